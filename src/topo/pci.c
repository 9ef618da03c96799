/* The PCIe tree from /sys/bus/pci/devices and the canonical paths under
 * /sys/devices/pciDDDD:BB/...: host bridges, bridges, endpoints, their links
 * and locality. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pciaddr.h"
#include "core/strutil.h"
#include "topo/topo_internal.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

static bool is_host_bridge_name(const char *comp)
{
	const char *p = comp + 3;

	if (strncmp(comp, "pci", 3) || !isxdigit((unsigned char)*p))
		return false;
	while (isxdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isxdigit((unsigned char)*p))
		return false;
	while (isxdigit((unsigned char)*p))
		p++;
	return *p == '\0' || *p == '/';
}

/* "/sys/devices/pci0000:3a/0000:3a:00.0/..." -> "pci0000:3a". */
static bool host_bridge_of(const char *path, char *out, size_t size)
{
	const char *p = path;

	if (!gf_starts_with(p, "/sys/devices/"))
		return false;
	p += strlen("/sys/devices/");
	if (!is_host_bridge_name(p))
		return false;
	size_t n = strcspn(p, "/");
	if (n >= size)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static enum gf_pci_kind classify(const struct gf_pci_dev *d)
{
	unsigned base = d->class_code >> 16, sub = (d->class_code >> 8) & 0xff;

	if (base == 0x06 && sub == 0x04)
		return GF_PCI_BRIDGE;
	if (d->vendor == 0x10de && base == 0x03)
		return GF_PCI_GPU;
	if (d->vendor == 0x10de && base == 0x06 && sub == 0x80)
		return GF_PCI_NVSWITCH;
	if (base == 0x02)
		return GF_PCI_NIC;
	if (base == 0x01 && sub == 0x08)
		return GF_PCI_NVME;
	if (base == 0x01)
		return GF_PCI_STORAGE;
	return GF_PCI_OTHER;
}

/* The rates PCIe defines (Gen1 to Gen7), in GT/s. */
static bool pcie_rate(double v)
{
	static const double rates[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0 };

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (v == rates[i])
			return true;
	return false;
}

/* "16.0 GT/s PCIe" -> 16.0; "Unknown" -> 0 silently; anything else,
 * "nan GT/s" and rates PCIe does not have included -> warning, 0. */
static double read_speed(struct gf_ctx *c, const char *dir, const char *attr)
{
	char path[512], buf[64];
	double v;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (gf_read_opt_str(c, path, buf, sizeof(buf)))
		return 0;
	if (gf_starts_with(buf, "Unknown"))
		return 0;
	/* Plain decimal only: strtod would also take "nan", "inf" and hex. */
	if (!isdigit((unsigned char)buf[0]) || !gf_starts_with(buf + strspn(buf, "0123456789."), " GT/s") ||
	    sscanf(buf, "%lf GT/s%n", &v, &n) != 1 || n == 0 || !pcie_rate(v) ||
	    (buf[n] && strcmp(buf + n, " PCIe"))) {
		gf_warn(c, "%s%s: not a PCIe link speed: '%s'", c->fs.root, path, buf);
		return 0;
	}
	return v;
}

static int read_width(struct gf_ctx *c, const char *dir, const char *attr)
{
	char path[512];
	long long w;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (gf_read_opt_ll(c, path, &w))
		return 0;
	/* PCIe link widths; 0 is a link that is down. */
	if (w != 0 && w != 1 && w != 2 && w != 4 && w != 8 && w != 12 && w != 16 && w != 32) {
		gf_warn(c, "%s%s: not a PCIe link width: %lld", c->fs.root, path, w);
		return 0;
	}
	return (int)w;
}

static unsigned read_hex(struct gf_ctx *c, const char *dir, const char *attr, long long max)
{
	char path[512];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (gf_read_opt_ll(c, path, &v))
		return 0;
	if (v < 0 || v > max) {
		gf_warn(c, "%s%s: out of range: %lld", c->fs.root, path, v);
		return 0;
	}
	return (unsigned)v;
}

/* The PCI Express capability's Device/Port Type (PCIe base spec 7.5.3.2),
 * from config space; -1 when the capability is not within what we may read
 * (non-root users see 64 bytes) or the bytes make no sense. */
static int read_pcie_type(struct gf_ctx *c, const struct gf_pci_dev *d)
{
	char path[512], *cfg;
	const unsigned char *b;
	size_t len;
	int type = -1;

	snprintf(path, sizeof(path), "%s/config", d->path);
	if (gf_read_opt(c, path, &cfg, &len))
		return -1;
	b = (const unsigned char *)cfg;
	if (len >= 64 && (b[0x06] & 0x10)) {	/* status: capabilities list */
		unsigned ptr = b[0x34] & 0xfc;

		for (int hops = 0; ptr >= 0x40 && ptr + 4 <= len && hops < 48; hops++) {
			if (b[ptr] == 0x10) {
				type = (b[ptr + 2] >> 4) & 0xf;
				break;
			}
			ptr = b[ptr + 1] & 0xfc;
		}
	}
	free(cfg);
	return type;
}

static void read_device(struct gf_ctx *c, struct gf_pci_dev *d)
{
	char path[512], link[512];
	long long node;

	d->vendor = read_hex(c, d->path, "vendor", 0xffff);
	d->device = read_hex(c, d->path, "device", 0xffff);
	d->class_code = read_hex(c, d->path, "class", 0xffffff);
	d->kind = classify(d);
	d->numa_node = -1;
	d->pcie_type = d->kind == GF_PCI_BRIDGE ? read_pcie_type(c, d) : -1;
	snprintf(path, sizeof(path), "%s/numa_node", d->path);
	if (gf_read_opt_ll(c, path, &node) == 0) {
		/* -1: the firmware does not say.  Anything else names a node
		 * this machine has (NUMA discovery ran before us). */
		if (node == -1 || (node >= 0 && node < GF_CPUSET_MAX && gf_numa_index(c->t, (int)node) >= 0))
			d->numa_node = (int)node;
		else
			gf_warn(c, "%s%s: %lld is not a NUMA node of this machine: taken as unknown", c->fs.root,
				path, node);
	}
	snprintf(path, sizeof(path), "%s/local_cpulist", d->path);
	if (gf_read_opt_cpulist(c, path, &d->local_cpus) == 0)
		d->local_cpus_known = !gf_cpuset_empty(&d->local_cpus);
	d->link.cur_gts = read_speed(c, d->path, "current_link_speed");
	d->link.max_gts = read_speed(c, d->path, "max_link_speed");
	d->link.cur_width = read_width(c, d->path, "current_link_width");
	d->link.max_width = read_width(c, d->path, "max_link_width");
	snprintf(path, sizeof(path), "%s/driver", d->path);
	if (gf_fs_readlink(&c->fs, path, link, sizeof(link)) == 0) {
		const char *base = strrchr(link, '/');

		gf_strlcpy(d->driver, base ? base + 1 : link, sizeof(d->driver));
	}
}

static int cmp_dev(const void *a, const void *b)
{
	struct gf_pciaddr pa, pb;

	gf_pciaddr_parse(((const struct gf_pci_dev *)a)->bdf, &pa);
	gf_pciaddr_parse(((const struct gf_pci_dev *)b)->bdf, &pb);
	return gf_pciaddr_cmp(&pa, &pb);
}

int gf_pci_find(const struct gf_topo *t, const char *bdf)
{
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, bdf))
			return i;
	return -1;
}

int gf_pci_for_path(const struct gf_topo *t, const char *path)
{
	int best = -1;
	size_t bestlen = 0;

	for (int i = 0; i < t->npci; i++) {
		size_t n = strlen(t->pci[i].path);

		if (n > bestlen && !strncmp(path, t->pci[i].path, n) && (path[n] == '/' || !path[n])) {
			best = i;
			bestlen = n;
		}
	}
	return best;
}

int gf_pci_common_ancestor(const struct gf_topo *t, int a, int b)
{
	for (int x = a; x >= 0; x = t->pci[x].parent)
		for (int y = b; y >= 0; y = t->pci[y].parent)
			if (x == y)
				return x;
	return -1;
}

/* Which side of its link a bridge's link attributes describe.  From config
 * space when we could read it; otherwise from the tree: root ports sit on
 * the host bridge, below a downstream-facing port is an upstream-facing one
 * (a switch upstream port or an endpoint) and below a switch upstream port
 * are its downstream ports. */
bool gf_pci_downstream_port(const struct gf_topo *t, int i)
{
	const struct gf_pci_dev *d = &t->pci[i];

	if (d->kind != GF_PCI_BRIDGE)
		return false;
	/* Config space says: root port, switch downstream port, or a
	 * PCI-to-PCIe bridge (all face downstream). */
	if (d->pcie_type >= 0)
		return d->pcie_type == 4 || d->pcie_type == 6 || d->pcie_type == 8;
	if (d->parent < 0)
		return true;
	return !gf_pci_downstream_port(t, d->parent);
}

static int host_bridge_index(struct gf_topo *t, const char *name)
{
	struct gf_host_bridge *hb;

	for (int i = 0; i < t->nhost_bridges; i++)
		if (!strcmp(t->host_bridges[i].name, name))
			return i;
	hb = gf_push(&t->host_bridges, &t->nhost_bridges, sizeof(*hb));
	if (!hb)
		return -1;
	gf_strlcpy(hb->name, name, sizeof(hb->name));
	hb->numa_node = -1;
	return t->nhost_bridges - 1;
}

static void link_parents(struct gf_topo *t)
{
	for (int i = 0; i < t->npci; i++) {
		struct gf_pci_dev *d = &t->pci[i];
		char up[256];
		char *slash;

		/* The nearest device whose directory holds ours (a VMD domain's
		 * devices get the VMD endpoint as parent). */
		gf_strlcpy(up, d->path, sizeof(up));
		slash = strrchr(up, '/');
		if (slash)
			*slash = '\0';
		d->parent = gf_pci_for_path(t, up);
	}
	for (int i = 0; i < t->npci; i++) {
		int depth = 0;

		for (int p = t->pci[i].parent; p >= 0 && depth < 64; p = t->pci[p].parent)
			depth++;
		t->pci[i].depth = depth;
	}
}

int gf_discover_pci(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	char **names;
	int n, ret;

	ret = gf_fs_list(&c->fs, PCI_DEVICES, &names, &n);
	if (ret)
		return 0;	/* no PCI bus (some containers, non-PCI arm boards) */
	t->pci = calloc((size_t)(n ? n : 1), sizeof(*t->pci));
	if (!t->pci) {
		gf_strv_free(names, n);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		struct gf_pci_dev *d = &t->pci[t->npci];
		char link[PATH_MAX], hb[24];

		if (!gf_pci_normalize(names[i], d->bdf, sizeof(d->bdf))) {
			gf_warn(c, "%s" PCI_DEVICES "/%s: not a PCI address", c->fs.root, names[i]);
			continue;
		}
		if (gf_pci_find(t, d->bdf) >= 0) {
			gf_warn(c, "%s" PCI_DEVICES "/%s: a second name for %s, ignored", c->fs.root, names[i],
				d->bdf);
			continue;
		}
		snprintf(link, sizeof(link), PCI_DEVICES "/%s", names[i]);
		if (gf_fs_resolve(&c->fs, link, d->path, sizeof(d->path))) {
			gf_warn_last(c);
			continue;
		}
		if (!host_bridge_of(d->path, hb, sizeof(hb))) {
			gf_warn(c, "%s%s: resolves to %s, not under /sys/devices/pciDDDD:BB", c->fs.root,
				link, d->path);
			continue;
		}
		d->host_bridge = host_bridge_index(t, hb);
		if (d->host_bridge < 0) {
			gf_strv_free(names, n);
			return gf_error(-ENOMEM, "out of memory");
		}
		read_device(c, d);
		t->npci++;
	}
	gf_strv_free(names, n);
	/* Sorting moves entries; host_bridge indices stay valid. */
	if (t->npci > 1)
		qsort(t->pci, (size_t)t->npci, sizeof(*t->pci), cmp_dev);
	link_parents(t);
	for (int i = 0; i < t->npci; i++) {
		struct gf_host_bridge *hb = &t->host_bridges[t->pci[i].host_bridge];

		if (hb->numa_node < 0 && t->pci[i].numa_node >= 0)
			hb->numa_node = t->pci[i].numa_node;
	}
	return 0;
}
