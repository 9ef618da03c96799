/* Network interfaces and RDMA ports of the NICs the model knows.
 * Interfaces: /sys/class/net/DEV/statistics/{rx,tx}_bytes, the limit from
 * DEV/speed (Mb/s; the kernel's Documentation/ABI/testing/sysfs-class-net).
 * RDMA ports: /sys/class/infiniband/DEV/ports/N/counters/port_{rcv,xmit}_data,
 * which count 4-byte words (the InfiniBand PortCounters attribute, kernel
 * Documentation/ABI/stable/sysfs-class-infiniband), the limit from
 * ports/N/rate ("400 Gb/sec (4X NDR)"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "monitor/monitor_internal.h"

static int grow(struct gf_monitor *m, unsigned *cap)
{
	struct gf_mon_nic *nics;
	struct mon_nic_src *src;
	unsigned want = *cap ? *cap * 2 : 8;

	if (m->s.nnics < *cap)
		return 0;
	nics = realloc(m->s.nics, want * sizeof(*nics));
	if (nics)
		m->s.nics = nics;
	src = realloc(m->nic_src, want * sizeof(*src));
	if (src)
		m->nic_src = src;
	if (!nics || !src)
		return gf_error(-ENOMEM, "monitor: out of memory");
	*cap = want;
	return 0;
}

static int add_netdev(struct gf_monitor *m, unsigned *cap, const char *dev)
{
	struct gf_mon_nic *n;
	struct mon_nic_src *s;
	int ret;

	for (unsigned i = 0; i < m->s.nnics; i++)
		if (!m->s.nics[i].rdma && !strcmp(m->s.nics[i].name, dev))
			return 0;
	if ((ret = grow(m, cap)))
		return ret;
	n = &m->s.nics[m->s.nnics];
	s = &m->nic_src[m->s.nnics++];
	memset(n, 0, sizeof(*n));
	memset(s, 0, sizeof(*s));
	gf_strlcpy(n->name, dev, sizeof(n->name));
	snprintf(s->rx_path, sizeof(s->rx_path), "/sys/class/net/%s/statistics/rx_bytes", dev);
	snprintf(s->tx_path, sizeof(s->tx_path), "/sys/class/net/%s/statistics/tx_bytes", dev);
	snprintf(s->speed_path, sizeof(s->speed_path), "/sys/class/net/%s/speed", dev);
	s->word = 1;
	return 0;
}

static int add_rdma_ports(struct gf_monitor *m, unsigned *cap, const char *rdma)
{
	char dir[96], **ports = NULL;
	int nports = 0, ret = 0;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports", rdma);
	if (gf_fs_list(&m->fs, dir, &ports, &nports))
		return 0;	/* no ports listed: nothing to count */
	for (int p = 0; p < nports; p++) {
		struct gf_mon_nic *n;
		struct mon_nic_src *s;

		if ((ret = grow(m, cap)))
			break;
		n = &m->s.nics[m->s.nnics];
		s = &m->nic_src[m->s.nnics++];
		memset(n, 0, sizeof(*n));
		memset(s, 0, sizeof(*s));
		snprintf(n->name, sizeof(n->name), "%.24s/%.12s", rdma, ports[p]);
		n->rdma = true;
		snprintf(s->rx_path, sizeof(s->rx_path), "%s/%s/counters/port_rcv_data", dir, ports[p]);
		snprintf(s->tx_path, sizeof(s->tx_path), "%s/%s/counters/port_xmit_data", dir, ports[p]);
		snprintf(s->speed_path, sizeof(s->speed_path), "%s/%s/rate", dir, ports[p]);
		s->word = 4;
	}
	gf_strv_free(ports, nports);
	return ret;
}

int gf_mon_nics_open(struct gf_monitor *m)
{
	const struct gf_topo *t = m->topo;
	unsigned cap = 0;
	int ret;

	for (int i = 0; i < t->nnics; i++) {
		char list[sizeof(t->nics[i].netdevs)], *rest = list, *dev;

		gf_strlcpy(list, t->nics[i].netdevs, sizeof(list));
		while ((dev = strsep(&rest, ","))) {
			/* "+": the model cut the list there. */
			if (*dev && strcmp(dev, "+") && (ret = add_netdev(m, &cap, dev)))
				return ret;
		}
		if (t->nics[i].rdma[0] && (ret = add_rdma_ports(m, &cap, t->nics[i].rdma)))
			return ret;
	}
	return 0;
}

/* One direction's limit in bytes/s, NAN when the link reports none (down,
 * virtio's -1, a file absent). */
static double read_limit(struct gf_monitor *m, const struct mon_nic_src *s)
{
	char text[64];
	double v;

	if (gf_fs_read_str(&m->fs, s->speed_path, text, sizeof(text)))
		return NAN;
	if (s->word == 4)	/* "400 Gb/sec (4X NDR)" */
		return sscanf(text, "%lf Gb/sec", &v) == 1 && v > 0 ? v * 1e9 / 8 : NAN;
	return sscanf(text, "%lf", &v) == 1 && v > 0 ? v * 1e6 / 8 : NAN;	/* Mb/s */
}

static bool read_counter(struct gf_monitor *m, const char *path, uint64_t *v)
{
	long long x;

	if (gf_fs_read_ll(&m->fs, path, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

int gf_mon_nics_sample(struct gf_monitor *m)
{
	for (unsigned i = 0; i < m->s.nnics; i++) {
		struct gf_mon_nic *n = &m->s.nics[i];
		struct mon_nic_src *s = &m->nic_src[i];
		uint64_t rx, tx;

		n->rx_bps = n->tx_bps = NAN;
		n->limit_bps = read_limit(m, s);
		if (!m->live)
			continue;
		if (!read_counter(m, s->rx_path, &rx) || !read_counter(m, s->tx_path, &tx)) {
			s->have = false;
			continue;
		}
		if (s->have) {
			n->rx_bps = gf_mon_rate(rx, s->rx, m->dt) * s->word;
			n->tx_bps = gf_mon_rate(tx, s->tx, m->dt) * s->word;
		}
		s->rx = rx;
		s->tx = tx;
		s->have = true;
	}
	return 0;
}
