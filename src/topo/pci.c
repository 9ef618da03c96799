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

/* A subsystem id, -1 when absent or out of range (an optional fact). */
static int read_subsystem(struct gf_ctx *c, const char *dir, const char *attr)
{
	char path[512];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (gf_read_opt_ll(c, path, &v) || v < 0 || v > 0xffff)
		return -1;
	return (int)v;
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
	d->subsystem_vendor = read_subsystem(c, d->path, "subsystem_vendor");
	d->subsystem_device = read_subsystem(c, d->path, "subsystem_device");
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

/* t->pci is in address order: binary search. */
static int find_addr(const struct gf_topo *t, const struct gf_pciaddr *a)
{
	int lo = 0, hi = t->npci - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2, c;
		struct gf_pciaddr m;

		gf_pciaddr_parse(t->pci[mid].bdf, &m);
		c = gf_pciaddr_cmp(&m, a);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int gf_pci_find(const struct gf_topo *t, const char *bdf)
{
	struct gf_pciaddr a;

	return gf_pciaddr_parse(bdf, &a) ? find_addr(t, &a) : -1;
}

/* Every device's directory is named after its address (discovery keeps
 * no other), so the device a path is under is found from the path's own
 * components, nearest first: a few binary searches, not a scan. */
int gf_pci_for_path(const struct gf_topo *t, const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, path, len + 1);
	while (len > 0) {
		char *slash;
		struct gf_pciaddr a;
		int i;

		buf[len] = '\0';
		slash = strrchr(buf, '/');
		if (!slash)
			break;
		if (gf_pciaddr_parse(slash + 1, &a) && (i = find_addr(t, &a)) >= 0 && !strcmp(t->pci[i].path, buf))
			return i;
		len = (size_t)(slash - buf);
	}
	return -1;
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

/* One host bridge name per device (in t->pci order) to t->host_bridges,
 * numbered in order of first appearance: sorted, not searched. */
struct hb_ref {
	const char *name;
	int dev;
};

static int cmp_hb_ref(const void *a, const void *b)
{
	const struct hb_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->dev > y->dev) - (x->dev < y->dev);
}

static int cmp_hb_first(const void *a, const void *b)
{
	const struct hb_ref *x = a, *y = b;

	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int number_host_bridges(struct gf_topo *t, char (*hb)[24])
{
	struct hb_ref *refs, *uniq;
	int nuniq = 0;

	if (!t->npci)
		return 0;
	refs = malloc((size_t)t->npci * sizeof(*refs));
	uniq = malloc((size_t)t->npci * sizeof(*uniq));
	t->host_bridges = NULL;
	if (!refs || !uniq)
		goto oom;
	for (int i = 0; i < t->npci; i++)
		refs[i] = (struct hb_ref){ hb[i], i };
	qsort(refs, (size_t)t->npci, sizeof(*refs), cmp_hb_ref);
	for (int i = 0; i < t->npci; i++)
		if (!i || strcmp(refs[i].name, refs[i - 1].name))
			uniq[nuniq++] = refs[i];	/* its first device */
	qsort(uniq, (size_t)nuniq, sizeof(*uniq), cmp_hb_first);
	t->host_bridges = calloc((size_t)nuniq, sizeof(*t->host_bridges));
	if (!t->host_bridges)
		goto oom;
	t->nhost_bridges = nuniq;
	for (int k = 0; k < nuniq; k++) {
		gf_strlcpy(t->host_bridges[k].name, uniq[k].name, sizeof(t->host_bridges[k].name));
		t->host_bridges[k].numa_node = -1;
		t->pci[uniq[k].dev].host_bridge = k;
	}
	/* Every other device of a bridge follows its first in refs. */
	for (int i = 1; i < t->npci; i++)
		if (!strcmp(refs[i].name, refs[i - 1].name))
			t->pci[refs[i].dev].host_bridge = t->pci[refs[i - 1].dev].host_bridge;
	free(refs);
	free(uniq);
	return 0;
oom:
	free(refs);
	free(uniq);
	return gf_error(-ENOMEM, "out of memory");
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

/* An entry of /sys/bus/pci/devices: its address and its place in the
 * listing (the first name of an address wins). */
struct pci_name {
	struct gf_pciaddr a;
	int name;
};

static int cmp_pci_name(const void *x, const void *y)
{
	const struct pci_name *a = x, *b = y;
	int c = gf_pciaddr_cmp(&a->a, &b->a);

	return c ? c : (a->name > b->name) - (a->name < b->name);
}

/* The names in address order, one per address; the others are reported. */
static struct pci_name *pci_names(struct gf_ctx *c, char **names, int n, int *count)
{
	struct pci_name *v = malloc((size_t)(n ? n : 1) * sizeof(*v));
	int cnt = 0, kept = 0;

	if (!v)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (gf_pciaddr_parse(names[i], &v[cnt].a))
			v[cnt++].name = i;
		else
			gf_warn(c, "%s" PCI_DEVICES "/%s: not a PCI address", c->fs.root, names[i]);
	}
	if (cnt > 1)
		qsort(v, (size_t)cnt, sizeof(*v), cmp_pci_name);
	for (int i = 0; i < cnt; i++) {
		if (kept && !gf_pciaddr_cmp(&v[i].a, &v[kept - 1].a)) {
			char bdf[16];

			gf_pciaddr_format(&v[i].a, bdf, sizeof(bdf));
			gf_warn(c, "%s" PCI_DEVICES "/%s: a second name for %s, ignored", c->fs.root,
				names[v[i].name], bdf);
			continue;
		}
		v[kept++] = v[i];
	}
	*count = kept;
	return v;
}

int gf_discover_pci(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	struct pci_name *order = NULL;
	char **names, (*hb)[24] = NULL;
	int n, ndev = 0, ret = 0;

	ret = gf_fs_list(&c->fs, PCI_DEVICES, &names, &n);
	if (ret)
		return 0;	/* no PCI bus (some containers, non-PCI arm boards) */
	order = pci_names(c, names, n, &ndev);
	t->pci = calloc((size_t)(ndev ? ndev : 1), sizeof(*t->pci));
	hb = calloc((size_t)(ndev ? ndev : 1), sizeof(*hb));
	if (!order || !t->pci || !hb) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	/* In address order, so t->pci needs no sorting. */
	for (int k = 0; k < ndev; k++) {
		struct gf_pci_dev *d = &t->pci[t->npci];
		const char *name = names[order[k].name], *base;
		char link[PATH_MAX];
		struct gf_pciaddr own;

		gf_pciaddr_format(&order[k].a, d->bdf, sizeof(d->bdf));
		snprintf(link, sizeof(link), PCI_DEVICES "/%s", name);
		if (gf_fs_resolve(&c->fs, link, d->path, sizeof(d->path))) {
			gf_warn_last(c);
			continue;
		}
		if (!host_bridge_of(d->path, hb[t->npci], sizeof(hb[0]))) {
			gf_warn(c, "%s%s: resolves to %s, not under /sys/devices/pciDDDD:BB", c->fs.root,
				link, d->path);
			continue;
		}
		/* sysfs names a device's directory after its address; lookups
		 * by path (gf_pci_for_path) rely on it. */
		base = strrchr(d->path, '/') + 1;
		if (!gf_pciaddr_parse(base, &own) || gf_pciaddr_cmp(&own, &order[k].a)) {
			gf_warn(c, "%s%s: resolves to %s, a directory not named after %s: ignored", c->fs.root,
				link, d->path, d->bdf);
			continue;
		}
		read_device(c, d);
		t->npci++;
	}
	if ((ret = number_host_bridges(t, hb)))
		goto out;
	link_parents(t);
	for (int i = 0; i < t->npci; i++) {
		struct gf_host_bridge *h = &t->host_bridges[t->pci[i].host_bridge];

		if (h->numa_node < 0 && t->pci[i].numa_node >= 0)
			h->numa_node = t->pci[i].numa_node;
	}
	gf_locality_all(c);
out:
	gf_strv_free(names, n);
	free(order);
	free(hb);
	return ret;
}
