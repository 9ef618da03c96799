/* NICs: PCI network functions with their netdevs and RDMA devices (line
 * rate, state, link layer); interfaces without a device are listed apart. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

/* 10 Tb/s: no port comes near (800 Gb/s is the fastest sold); a larger
 * rate is a broken attribute, not a fast NIC. */
#define GF_MAX_LINE_MBPS 10000000LL

/* The NIC of a PCI function, made on first use.  nic_of[pci] holds its
 * index + 1 (0: none yet), so that hosts with thousands of functions
 * (SR-IOV) are not searched once per interface. */
static struct gf_nic *nic_for_pci(struct gf_topo *t, int *nic_of, int pci)
{
	struct gf_nic *n;

	if (nic_of[pci])
		return &t->nics[nic_of[pci] - 1];
	n = gf_push(&t->nics, &t->nnics, sizeof(*n));
	if (!n)
		return NULL;
	nic_of[pci] = t->nnics;
	n->pci = pci;
	n->speed_mbps = -1;
	n->numa_node = -1;
	return n;
}

/* Comma-separated; ends in ",+" when more did not fit (SR-IOV functions
 * with dozens of representors). */
static void append_netdev(struct gf_nic *n, const char *name)
{
	size_t len = strlen(n->netdevs), need = strlen(name) + (len ? 1 : 0);

	if (len >= 2 && !strcmp(n->netdevs + len - 2, ",+"))
		return;
	if (len + need + 2 >= sizeof(n->netdevs)) {
		strcpy(n->netdevs + (len + 2 < sizeof(n->netdevs) ? len : sizeof(n->netdevs) - 3), ",+");
		return;
	}
	if (len)
		n->netdevs[len++] = ',';
	strcpy(n->netdevs + len, name);
}

static int discover_netdevs(struct gf_ctx *c, int *nic_of)
{
	struct gf_topo *t = c->t;
	char **names;
	int n;

	if (gf_fs_list(&c->fs, "/sys/class/net", &names, &n))
		return 0;
	for (int i = 0; i < n; i++) {
		char link[300], path[256], attr[400], state[16] = "";
		long long type = -1, speed = -1;
		struct gf_nic *nic;
		int pci;

		snprintf(link, sizeof(link), "/sys/class/net/%s", names[i]);
		if (gf_fs_resolve(&c->fs, link, path, sizeof(path))) {
			gf_warn_last(c);
			continue;
		}
		snprintf(attr, sizeof(attr), "%s/operstate", path);
		gf_read_opt_str(c, attr, state, sizeof(state));
		pci = gf_pci_for_path(t, path);
		/* A netdev behind a USB controller or bridge (a BMC's usb0) is not
		 * a PCI NIC: its "link" would be the controller's. */
		if (pci >= 0 && t->pci[pci].kind != GF_PCI_NIC)
			pci = -1;
		if (pci < 0) {
			struct gf_netif *v = gf_push(&t->netifs, &t->nnetifs, sizeof(*v));

			if (!v)
				goto oom;
			gf_strlcpy(v->name, names[i], sizeof(v->name));
			gf_strlcpy(v->state, state, sizeof(v->state));
			continue;
		}
		nic = nic_for_pci(t, nic_of, pci);
		if (!nic)
			goto oom;
		append_netdev(nic, names[i]);
		snprintf(attr, sizeof(attr), "%s/type", path);
		gf_read_opt_ll(c, attr, &type);
		if (!nic->link_layer[0] && type == 1)
			gf_strlcpy(nic->link_layer, "Ethernet", sizeof(nic->link_layer));
		else if (!nic->link_layer[0] && type == 32)
			gf_strlcpy(nic->link_layer, "InfiniBand", sizeof(nic->link_layer));
		/* Reading speed of a down link fails with EINVAL: unknown. */
		snprintf(attr, sizeof(attr), "%s/speed", path);
		if (gf_read_opt_ll(c, attr, &speed) == 0) {
			/* -1 (or 0 on some drivers): the link is down. */
			if (speed < -1 || speed > GF_MAX_LINE_MBPS)
				gf_warn(c, "%s%s: %lld is not a line rate in Mb/s: taken as unknown", c->fs.root, attr,
					speed);
			else if (speed > nic->speed_mbps)
				nic->speed_mbps = speed;
		}
		if (!nic->state[0])
			gf_strlcpy(nic->state, state, sizeof(nic->state));
	}
	gf_strv_free(names, n);
	return 0;
oom:
	gf_strv_free(names, n);
	return gf_error(-ENOMEM, "out of memory");
}

/* "400 Gb/sec (4X NDR)" -> 400000 Mb/s; -1 when it is not a rate. */
static long long parse_ib_rate(const char *s)
{
	double gb;

	if (sscanf(s, "%lf Gb/sec", &gb) == 1 && isfinite(gb) && gb > 0 && gb * 1000.0 <= GF_MAX_LINE_MBPS)
		return (long long)(gb * 1000.0 + 0.5);
	return -1;
}

static int discover_rdma(struct gf_ctx *c, int *nic_of)
{
	struct gf_topo *t = c->t;
	char **names;
	int n;

	if (gf_fs_list(&c->fs, "/sys/class/infiniband", &names, &n))
		return 0;
	for (int i = 0; i < n; i++) {
		char link[300], path[256], attr[400], buf[64];
		char **ports;
		int nports, pci;
		struct gf_nic *nic;

		snprintf(link, sizeof(link), "/sys/class/infiniband/%s", names[i]);
		if (gf_fs_resolve(&c->fs, link, path, sizeof(path))) {
			gf_warn_last(c);
			continue;
		}
		pci = gf_pci_for_path(t, path);
		if (pci < 0 || t->pci[pci].kind != GF_PCI_NIC)
			continue;	/* soft RDMA (rxe, siw) over a virtual netdev */
		nic = nic_for_pci(t, nic_of, pci);
		if (!nic) {
			gf_strv_free(names, n);
			return gf_error(-ENOMEM, "out of memory");
		}
		gf_strlcpy(nic->rdma, names[i], sizeof(nic->rdma));
		snprintf(attr, sizeof(attr), "%s/ports", path);
		if (gf_fs_list(&c->fs, attr, &ports, &nports) || nports == 0)
			continue;
		/* Port 1 of a function: mlx5 exposes one port per PCI function. */
		snprintf(attr, sizeof(attr), "%s/ports/%s/link_layer", path, ports[0]);
		if (gf_read_opt_str(c, attr, buf, sizeof(buf)) == 0)
			gf_strlcpy(nic->link_layer, buf, sizeof(nic->link_layer));
		snprintf(attr, sizeof(attr), "%s/ports/%s/state", path, ports[0]);
		if (gf_read_opt_str(c, attr, buf, sizeof(buf)) == 0) {
			const char *colon = strchr(buf, ':');

			gf_strlcpy(nic->state, colon ? gf_lstrip((char *)colon + 1) : buf, sizeof(nic->state));
		}
		snprintf(attr, sizeof(attr), "%s/ports/%s/rate", path, ports[0]);
		/* A port that is not up reports its slowest rate: unknown. */
		if (!strstr(nic->state, "ACTIVE")) {
			nic->speed_mbps = -1;
		} else if (gf_read_opt_str(c, attr, buf, sizeof(buf)) == 0) {
			long long r = parse_ib_rate(buf);

			if (r > 0)
				nic->speed_mbps = r;
			else
				gf_warn(c, "%s%s: not a rate: '%s'", c->fs.root, attr, buf);
		}
		gf_strv_free(ports, nports);
	}
	gf_strv_free(names, n);
	return 0;
}

static int cmp_nic(const void *a, const void *b)
{
	return ((const struct gf_nic *)a)->pci - ((const struct gf_nic *)b)->pci;
}

int gf_discover_nics(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	int ret, *nic_of = calloc((size_t)(t->npci ? t->npci : 1), sizeof(*nic_of));

	if (!nic_of)
		return gf_error(-ENOMEM, "out of memory");
	if ((ret = discover_netdevs(c, nic_of)) || (ret = discover_rdma(c, nic_of))) {
		free(nic_of);
		return ret;
	}
	/* Network functions with no interface (unbound, vfio) still count. */
	for (int i = 0; i < t->npci; i++) {
		if (t->pci[i].kind == GF_PCI_NIC && !nic_for_pci(t, nic_of, i)) {
			free(nic_of);
			return gf_error(-ENOMEM, "out of memory");
		}
	}
	free(nic_of);
	if (t->nnics > 1)	/* pci[] is in bus order */
		qsort(t->nics, (size_t)t->nnics, sizeof(*t->nics), cmp_nic);
	for (int i = 0; i < t->nnics; i++) {
		struct gf_nic *n = &t->nics[i];
		struct gf_locality loc;
		char path[300];

		gf_strlcpy(n->name, n->rdma[0] ? n->rdma : n->netdevs, sizeof(n->name));
		if (!n->name[0])
			gf_strlcpy(n->name, t->pci[n->pci].bdf, sizeof(n->name));
		{
			char *comma = strchr(n->name, ',');

			if (comma)
				*comma = '\0';
		}
		if (!n->state[0])
			gf_strlcpy(n->state, t->pci[n->pci].driver[0] ? "no interface" : "no driver",
				   sizeof(n->state));
		snprintf(path, sizeof(path), "%s/physfn", t->pci[n->pci].path);
		n->virtual_function = gf_probe(c, path, NULL) == 1;	/* else warned */
		gf_locality_of(c, n->pci, NULL, &loc);
		n->numa_node = loc.node;
		n->numa_source = loc.node_source;
		n->cpus = loc.cpus;
	}
	return 0;
}
