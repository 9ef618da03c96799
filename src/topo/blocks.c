/* Block devices: whole disks (partitions skipped) with model, size, queue
 * settings and the PCI device behind them; NVMe controllers get a matrix
 * label.  Devices with nothing behind them (loop, zram, dm, md) are kept,
 * marked virtual. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

/* Native NVMe multipath puts namespaces under a virtual subsystem; its
 * controllers (nvme0, nvme1...) are links to the PCI functions. */
static int pci_of_nvme_subsystem(struct gf_ctx *c, const char *blockpath)
{
	char subsys[256], *slash, **names;
	int n, pci = -1;

	gf_strlcpy(subsys, blockpath, sizeof(subsys));
	slash = strrchr(subsys, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (gf_fs_list(&c->fs, subsys, &names, &n))
		return -1;
	for (int i = 0; i < n && pci < 0; i++) {
		char link[300], path[256];

		if (strncmp(names[i], "nvme", 4) || strchr(names[i] + 4, 'n') || strchr(names[i] + 4, 'c'))
			continue;
		snprintf(link, sizeof(link), "%s/%s", subsys, names[i]);
		if (gf_fs_resolve(&c->fs, link, path, sizeof(path)) == 0)
			pci = gf_pci_for_path(c->t, path);
	}
	gf_strv_free(names, n);
	return pci;
}

static int read_int_attr(struct gf_ctx *c, const char *dir, const char *attr)
{
	char path[400];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (gf_read_opt_ll(c, path, &v))
		return -1;
	if (v < 0 || v > INT_MAX) {
		gf_warn(c, "%s%s: %lld is out of range: taken as unknown", c->fs.root, path, v);
		return -1;
	}
	return (int)v;
}

/* "[none] mq-deadline kyber" -> "none". */
static void selected_scheduler(const char *s, char *out, size_t size)
{
	const char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (!open || !close) {
		gf_strlcpy(out, s, size);
		return;
	}
	n = (size_t)(close - open - 1);
	if (n >= size)
		n = size - 1;
	memcpy(out, open + 1, n);
	out[n] = '\0';
}

static void read_block(struct gf_ctx *c, struct gf_block *b, const char *path)
{
	char attr[400], buf[128];
	long long v;

	snprintf(attr, sizeof(attr), "%s/size", path);
	/* In 512-byte sectors, whatever the block size. */
	if (gf_read_opt_ll(c, attr, &v) == 0) {
		if (v >= 0 && v <= LLONG_MAX / 512)
			b->size_bytes = (unsigned long long)v * 512;
		else
			gf_warn(c, "%s%s: %lld is not a size in sectors: taken as unknown", c->fs.root, attr, v);
	}
	b->removable = read_int_attr(c, path, "removable") == 1;
	b->rotational = read_int_attr(c, path, "queue/rotational") == 1;
	b->read_ahead_kb = read_int_attr(c, path, "queue/read_ahead_kb");
	b->nr_requests = read_int_attr(c, path, "queue/nr_requests");
	b->logical_block_size = read_int_attr(c, path, "queue/logical_block_size");
	b->max_sectors_kb = read_int_attr(c, path, "queue/max_sectors_kb");
	snprintf(attr, sizeof(attr), "%s/queue/scheduler", path);
	if (gf_read_opt_str(c, attr, buf, sizeof(buf)) == 0)
		selected_scheduler(buf, b->scheduler, sizeof(b->scheduler));
	snprintf(attr, sizeof(attr), "%s/device/model", path);
	if (gf_read_opt_str(c, attr, buf, sizeof(buf)) == 0)
		gf_strlcpy(b->model, gf_strip(buf), sizeof(b->model));
}

static int cmp_block(const void *a, const void *b)
{
	const struct gf_block *x = a, *y = b;

	if (x->virtual_dev != y->virtual_dev)
		return x->virtual_dev ? 1 : -1;
	if (x->pci != y->pci)
		return x->pci - y->pci;
	return strcmp(x->name, y->name);
}

int gf_discover_blocks(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	char **names;
	int n, nvme = 0;

	if (gf_fs_list(&c->fs, "/sys/class/block", &names, &n))
		return 0;
	for (int i = 0; i < n; i++) {
		char link[300], path[256], attr[400];
		struct gf_block *b;
		int pci;

		/* nvme0c0n1: a hidden per-path node of a multipath namespace. */
		if (!strncmp(names[i], "nvme", 4) && strchr(names[i] + 4, 'c'))
			continue;
		snprintf(link, sizeof(link), "/sys/class/block/%s", names[i]);
		if (gf_fs_resolve(&c->fs, link, path, sizeof(path))) {
			gf_warn_last(c);
			continue;
		}
		snprintf(attr, sizeof(attr), "%s/partition", path);
		/* A partition is not a device of its own; one we cannot tell
		 * about is left out too, with the warning gf_probe gave. */
		if (gf_probe(c, attr, NULL))
			continue;
		pci = gf_pci_for_path(t, path);
		if (pci < 0 && strstr(path, "/nvme-subsystem/"))
			pci = pci_of_nvme_subsystem(c, path);
		/* A USB disk's nearest PCI device is its controller: not its link. */
		if (pci >= 0 && t->pci[pci].kind != GF_PCI_NVME && t->pci[pci].kind != GF_PCI_STORAGE)
			pci = -1;
		b = gf_push(&t->blocks, &t->nblocks, sizeof(*b));
		if (!b) {
			gf_strv_free(names, n);
			return gf_error(-ENOMEM, "out of memory");
		}
		gf_strlcpy(b->name, names[i], sizeof(b->name));
		b->pci = pci;
		b->numa_node = -1;
		b->virtual_dev = pci < 0 && strstr(path, "/devices/virtual/") != NULL;
		b->nvme = !strncmp(names[i], "nvme", 4);
		read_block(c, b, path);
	}
	gf_strv_free(names, n);
	if (t->nblocks > 1)
		qsort(t->blocks, (size_t)t->nblocks, sizeof(*t->blocks), cmp_block);
	for (int i = 0; i < t->nblocks; i++) {
		struct gf_block *b = &t->blocks[i];
		struct gf_locality loc;

		if (b->pci < 0)
			continue;
		gf_locality_of(c, b->pci, NULL, &loc);
		b->numa_node = loc.node;
		b->numa_source = loc.node_source;
		if (!b->nvme)
			continue;
		/* Namespaces of one controller share its label. */
		if (i > 0 && t->blocks[i - 1].nvme && t->blocks[i - 1].pci == b->pci)
			gf_strlcpy(b->label, t->blocks[i - 1].label, sizeof(b->label));
		else
			snprintf(b->label, sizeof(b->label), "NVME%d", nvme++);
	}
	return 0;
}
