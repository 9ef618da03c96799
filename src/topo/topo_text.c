/* Human output of the model: the matrix as nvidia-smi prints it, legends,
 * device tables, the path table and the summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "core/table.h"
#include "core/wrap.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

void gf_fmt_bytes(unsigned long long b, char *buf, size_t size)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", b);
	else
		snprintf(buf, size, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
}

/* Machine strings reach a terminal: a recording's product name can hold
 * "\x1b[31m".  Control characters (C0 but newline and tab, DEL, and C1 in
 * UTF-8 or as lone bytes) become '?', in place, keeping the length. */
void gf_sanitize_text(char *s)
{
	unsigned char *p = (unsigned char *)s;

	for (; *p; p++) {
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?', p++;
		else if (*p >= 0x80 && *p <= 0x9f && (p == (unsigned char *)s || p[-1] < 0x80))
			*p = '?';	/* a lone 8-bit C1 (0x9b is CSI) */
	}
}

/* Text output is built in memory and sanitized before it is written:
 * every machine string in it at once. */
FILE *gf_text_open(struct gf_text *x)
{
	x->buf = NULL;
	x->len = 0;
	x->f = open_memstream(&x->buf, &x->len);
	return x->f;
}

int gf_text_close(struct gf_text *x, FILE *out)
{
	int ret = 0;

	if (fclose(x->f) || !x->buf)
		ret = gf_error(-ENOMEM, "out of memory");
	else {
		gf_sanitize_text(x->buf);
		if (fwrite(x->buf, 1, x->len, out) != x->len)
			ret = gf_error(-EIO, "writing output failed");
	}
	free(x->buf);
	return ret;
}

/* "Gen4 x16", "Gen4 x8 (of x16)", or "-" when the device reports no link. */
static void fmt_link(const struct gf_pcie_link *l, char *buf, size_t size)
{
	int gen = gf_pcie_gen(l->cur_gts);

	if (!l->cur_gts || !l->cur_width) {
		snprintf(buf, size, "-");
		return;
	}
	if (gen)
		snprintf(buf, size, "Gen%d x%d", gen, l->cur_width);
	else
		snprintf(buf, size, "%.1f GT/s x%d", l->cur_gts, l->cur_width);
	if (l->max_width > l->cur_width)
		snprintf(buf + strlen(buf), size - strlen(buf), " (of x%d)", l->max_width);
}

static void fmt_cpus(const struct gf_cpuset *s, char *buf, size_t size)
{
	if (gf_cpuset_empty(s))
		snprintf(buf, size, "N/A");
	else
		gf_cpuset_format_list(s, buf, size);
}

const char *gf_matrix_dev_desc(const struct gf_topo *t, int i, char *buf, size_t size)
{
	const struct gf_matrix_dev *d = &t->matrix.dev[i];

	switch (d->kind) {
	case GF_DEV_GPU:
		snprintf(buf, size, "%s", t->gpus[d->ref].bdf);
		break;
	case GF_DEV_NIC:	/* nvidia-smi's legend names the RDMA device */
		snprintf(buf, size, "%s", t->nics[d->ref].rdma[0] ? t->nics[d->ref].rdma : t->pci[d->pci].bdf);
		break;
	case GF_DEV_NVME:
		snprintf(buf, size, "%s", t->blocks[d->ref].name);
		break;
	}
	return buf;
}

static void row_affinity(const struct gf_topo *t, int i, struct gf_cpuset *cpus, int *node,
			 int *gpu_numa)
{
	const struct gf_matrix_dev *d = &t->matrix.dev[i];

	*gpu_numa = -2;	/* not a GPU: blank */
	*node = -1;
	gf_cpuset_zero(cpus);
	switch (d->kind) {
	case GF_DEV_GPU:
		*cpus = t->gpus[d->ref].cpus;
		*node = t->gpus[d->ref].numa_node;
		*gpu_numa = t->gpus[d->ref].gpu_numa_id;
		break;
	case GF_DEV_NIC:
		*cpus = t->nics[d->ref].cpus;
		*node = t->nics[d->ref].numa_node;
		break;
	case GF_DEV_NVME:
		if (t->pci[d->pci].local_cpus_known)
			*cpus = t->pci[d->pci].local_cpus;
		*node = t->blocks[d->ref].numa_node;
		break;
	}
}

/* One row of a tab-separated matrix, as nvidia-smi prints it: " X " for
 * self, and for a GPU its CPU and NUMA affinity, then (after an empty field,
 * nvidia-smi's habit) its GPU NUMA ID; other rows end in two empty fields. */
static void print_matrix_row(const struct gf_topo *t, FILE *f, int i, int ncols)
{
	const struct gf_matrix *m = &t->matrix;
	struct gf_cpuset cpus;
	char buf[4096];
	int node, gnuma;

	fputs(m->dev[i].name, f);
	for (int j = 0; j < ncols; j++) {
		gf_link_format(&m->link[i * m->n + j], buf, sizeof(buf));
		fprintf(f, "\t%s", i == j ? " X " : buf);
	}
	row_affinity(t, i, &cpus, &node, &gnuma);
	if (m->dev[i].kind == GF_DEV_NIC && i < m->nsmi) {
		fputs("\t\t\n", f);
		return;
	}
	fmt_cpus(&cpus, buf, sizeof(buf));
	fprintf(f, "\t%s\t", buf);
	if (node >= 0)
		fprintf(f, "%d", node);
	else
		fputs("N/A", f);
	if (gnuma >= 0)
		fprintf(f, "\t\t%d", gnuma);
	else
		fputs("\t\tN/A", f);
	fputc('\n', f);
}

static void print_legends(const struct gf_topo *t, FILE *f, int width);

/* The matrix of `nvidia-smi topo -m`, field for field (tabs, so that
 * awk -F'\t' scripts written for it keep working): GPUs and RDMA NICs. */
void gf_print_matrix(const struct gf_topo *t, FILE *f)
{
	const struct gf_matrix *m = &t->matrix;

	if (!m->nsmi) {
		fprintf(f, "No GPUs or RDMA NICs on PCI.\n");
		return;
	}
	for (int j = 0; j < m->nsmi; j++)
		fprintf(f, "\t%s", m->dev[j].name);
	fputs(t->ngpus ? "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" : "\tCPU Affinity\tNUMA Affinity\n", f);
	for (int i = 0; i < m->nsmi; i++)
		print_matrix_row(t, f, i, m->nsmi);
	print_legends(t, f, 0);
}

/* Each class of the matrix and each NIC's name, as nvidia-smi explains
 * them; width > 0 wraps the explanations under themselves. */
static void print_legends(const struct gf_topo *t, FILE *f, int width)
{
	static const char *const legend[][2] = {
		{ "X", "Self" },
		{ "SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)" },
		{ "NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA "
			  "node" },
		{ "PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)" },
		{ "PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)" },
		{ "PIX", "Connection traversing at most a single PCIe bridge" },
		{ "NV#", "Connection traversing a bonded set of # NVLinks" },
	};
	const struct gf_matrix *m = &t->matrix;
	char buf[64];

	fputs("\nLegend:\n\n", f);
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
		fprintf(f, "  %-4s = ", legend[i][0]);
		if (width)
			gf_wrap_print(f, legend[i][1], 9, 9, width);
		else
			fprintf(f, "%s\n", legend[i][1]);
	}
	for (int i = t->ngpus; i < m->nsmi; i++) {
		if (i == t->ngpus)
			fputs("\nNIC Legend:\n\n", f);
		fprintf(f, "  %s: %s\n", m->dev[i].name, gf_matrix_dev_desc(t, i, buf, sizeof(buf)));
	}
}

/* Rows [from, to) of the matrix against its first ncols devices, with the
 * affinity columns (gpu_numa: and GPU NUMA ID), as an aligned table that
 * fits width: `gpufeed topo`'s view (the tab-separated one is --matrix). */
static void print_matrix_rows(const struct gf_topo *t, FILE *f, int from, int to, int ncols, bool gpu_numa,
			      int width)
{
	const struct gf_matrix *m = &t->matrix;
	struct gf_table tb;
	struct gf_cpuset cpus;
	char buf[4096];
	int node, gnuma;

	gf_table_init(&tb, 1 + ncols + 2 + gpu_numa);
	tb.gap = 1;	/* "NODE" and "NV18" apart as nvidia-smi's tabs keep them */
	gf_table_add(&tb, "%s", "");
	for (int j = 0; j < ncols; j++)
		gf_table_add(&tb, "%s", m->dev[j].name);
	gf_table_add(&tb, "CPU Affinity");
	gf_table_add(&tb, "NUMA Affinity");
	if (gpu_numa)
		gf_table_add(&tb, "GPU NUMA ID");
	for (int i = from; i < to; i++) {
		gf_table_add(&tb, "%s", m->dev[i].name);
		for (int j = 0; j < ncols; j++) {
			gf_link_format(&m->link[i * m->n + j], buf, sizeof(buf));
			gf_table_add(&tb, "%s", i == j ? "X" : buf);
		}
		row_affinity(t, i, &cpus, &node, &gnuma);
		if (m->dev[i].kind == GF_DEV_NIC && i < m->nsmi) {
			for (int k = 0; k < 2 + gpu_numa; k++)
				gf_table_add(&tb, "%s", "");
			continue;
		}
		fmt_cpus(&cpus, buf, sizeof(buf));
		gf_table_add(&tb, "%s", buf);
		if (node >= 0)
			gf_table_add(&tb, "%d", node);
		else
			gf_table_add(&tb, "N/A");
		if (gpu_numa && gnuma >= 0)
			gf_table_add(&tb, "%d", gnuma);
		else if (gpu_numa)
			gf_table_add(&tb, "N/A");
	}
	gf_table_print_width(&tb, f, "", width);
	gf_table_free(&tb);
}

static void print_matrix_fitted(const struct gf_topo *t, FILE *f, int width)
{
	if (!t->matrix.nsmi) {
		fprintf(f, "No GPUs or RDMA NICs on PCI.\n");
		return;
	}
	print_matrix_rows(t, f, 0, t->matrix.nsmi, t->matrix.nsmi, t->ngpus > 0, width);
	print_legends(t, f, width);
}

/* Devices nvidia-smi leaves out of its matrix (NICs without an RDMA device,
 * NVMe drives): their class of connection to each GPU, in the same layout. */
/* An aligned table that fits width (the matrix's view in `gpufeed topo`). */
static void print_other_devices(const struct gf_topo *t, FILE *f, int width)
{
	const struct gf_matrix *m = &t->matrix;
	char buf[64];

	if (m->n == m->nsmi)
		return;
	fputs("\nOther devices (not in nvidia-smi's matrix):\n\n", f);
	print_matrix_rows(t, f, m->nsmi, m->n, t->ngpus, false, width);
	fputc('\n', f);
	for (int i = m->nsmi; i < m->n; i++)
		fprintf(f, "  %s: %s\n", m->dev[i].name, gf_matrix_dev_desc(t, i, buf, sizeof(buf)));
}

/* The GPU table; only GPU `only` (position in t->gpus) when >= 0. */
static void print_gpus(const struct gf_topo *t, FILE *f, int only, int width)
{
	struct gf_table tb;
	char mem[32], cpus[4096], nv[48], mig[32];

	if (!t->ngpus)
		return;
	gf_table_init(&tb, 10);
	for (const char **h = (const char *[]){ "GPU", "PCI", "NAME", "MEMORY", "UUID", "CUDA", "MINOR",
						"NUMA", "CPUS", "NVLINK", NULL }; *h; h++)
		gf_table_add(&tb, "%s", *h);
	for (int i = 0; i < t->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[i];

		if (only >= 0 && i != only)
			continue;
		gf_fmt_bytes(g->memory_bytes, mem, sizeof(mem));
		fmt_cpus(&g->cpus, cpus, sizeof(cpus));
		if (g->nvlinks_active < 0)
			snprintf(nv, sizeof(nv), "unknown");
		else if (g->nvlinks_active == 0)
			snprintf(nv, sizeof(nv), "none");
		else
			snprintf(nv, sizeof(nv), "%d x %s%s", g->nvlinks_active,
				 gf_nvlink_version_name(g->nvlink_version),
				 g->nvswitch_links ? " (NVSwitch)" : "");
		gf_table_add(&tb, "%d", g->index);
		gf_table_add(&tb, "%s", g->bdf);
		gf_table_add(&tb, "%s", g->name[0] ? g->name : "NVIDIA GPU");
		gf_table_add(&tb, "%s", g->memory_bytes ? mem : "unknown");
		gf_table_add(&tb, "%s", g->uuid[0] ? g->uuid : "unknown");
		gf_table_add(&tb, "%d", g->cuda_ordinal);
		if (g->minor >= 0)
			gf_table_add(&tb, "%d", g->minor);
		else
			gf_table_add(&tb, "unknown");
		if (g->numa_node >= 0)
			gf_table_add(&tb, "%d (%s)", g->numa_node, gf_source_name(g->numa_source));
		else
			gf_table_add(&tb, "unknown");
		gf_table_add(&tb, "%s (%s)", cpus, gf_source_name(g->cpus_source));
		gf_table_add(&tb, "%s", nv);
	}
	fputs("\nGPUs:\n", f);
	gf_table_print_width(&tb, f, "  ", width);
	gf_table_free(&tb);
	for (int i = 0; i < t->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[i];

		if (only >= 0 && i != only)
			continue;
		if (g->mig_current != 1 && g->mig_pending != 1)
			continue;
		snprintf(mig, sizeof(mig), "%s%s", g->mig_current == 1 ? "enabled" : "disabled",
			 g->mig_pending != g->mig_current ? " (change pending reset)" : "");
		fprintf(f, "  GPU%d MIG %s, %d instance%s\n", g->index, mig, g->nmig, g->nmig == 1 ? "" : "s");
		for (int k = 0; k < g->nmig; k++) {
			gf_fmt_bytes(g->mig[k].memory_bytes, mem, sizeof(mem));
			fprintf(f, "    %s  GI %d CI %d  %s\n", g->mig[k].uuid, g->mig[k].gpu_instance,
				g->mig[k].compute_instance, mem);
		}
	}
	if (t->nvswitch && t->nvswitches > 0)
		fprintf(f, "  NVSwitch: %d switch%s\n", t->nvswitches, t->nvswitches == 1 ? "" : "es");
	else if (t->nvswitch)
		fprintf(f, "  NVSwitch: present, not visible from here (a VM?)\n");
}

/* RDMA devices (the matrix's NICs) or the other network functions. */
static void print_nic_table(const struct gf_topo *t, FILE *f, bool rdma, int width)
{
	struct gf_table tb;
	char link[48];

	static const char *rdma_head[] = { "NIC", "RDMA", "PCI", "PCIE", "NETDEVS", "LINK", "SPEED", "STATE",
					   "NUMA", NULL };
	static const char *other_head[] = { "NAME", "NETDEVS", "PCI", "PCIE", "LINK", "SPEED", "STATE", "NUMA",
					    NULL };

	gf_table_init(&tb, rdma ? 9 : 8);
	for (const char **h = rdma ? rdma_head : other_head; *h; h++)
		gf_table_add(&tb, "%s", *h);
	for (int k = 0; k < t->matrix.n; k++) {
		const struct gf_matrix_dev *d = &t->matrix.dev[k];
		const struct gf_nic *n;

		if (d->kind != GF_DEV_NIC || (k < t->matrix.nsmi) != rdma)
			continue;
		n = &t->nics[d->ref];
		gf_table_add(&tb, "%s", n->label);
		gf_table_add(&tb, "%s", rdma ? n->rdma : n->netdevs[0] ? n->netdevs : "none");
		gf_table_add(&tb, "%s%s", t->pci[n->pci].bdf, n->virtual_function ? " (VF)" : "");
		fmt_link(&t->pci[n->pci].link, link, sizeof(link));
		gf_table_add(&tb, "%s", link);
		if (rdma)
			gf_table_add(&tb, "%s", n->netdevs[0] ? n->netdevs : "none");
		gf_table_add(&tb, "%s", n->link_layer[0] ? n->link_layer : "unknown");
		if (n->speed_mbps > 0)
			gf_table_add(&tb, "%g Gb/s", n->speed_mbps / 1000.0);
		else
			gf_table_add(&tb, "unknown");
		gf_table_add(&tb, "%s", n->state);
		if (n->numa_node >= 0)
			gf_table_add(&tb, "%d", n->numa_node);
		else
			gf_table_add(&tb, "unknown");
	}
	if (tb.ncells > tb.ncols) {
		fputs(rdma ? "\nNICs (RDMA devices, numbered as nvidia-smi does):\n" : "\nOther network devices:\n", f);
		gf_table_print_width(&tb, f, "  ", width);
	}
	gf_table_free(&tb);
}

/* Appends " name" to the list at buf+n; returns the new length (a host with
 * hundreds of veths keeps the first that fit). */
static size_t add_name(char *buf, size_t size, size_t n, const char *name)
{
	int w;

	if (n >= size)
		return n;
	w = snprintf(buf + n, size - n, "%s%s", n ? " " : "", name);
	return w < 0 || (size_t)w >= size - n ? size : n + (size_t)w;
}

/* "  Label: a b c", wrapped under its first name to fit width (0: no limit):
 * a Docker host lists a veth per container. */
static void print_names(FILE *f, const char *label, const char *names, int width)
{
	int col = 2 + gf_wrap_columns(label) + 1;

	fprintf(f, "  %s ", label);
	gf_wrap_print(f, names, col, col, width ? width : 1 << 20);
}

static void print_nics(const struct gf_topo *t, FILE *f, int width)
{
	print_nic_table(t, f, true, width);
	print_nic_table(t, f, false, width);
	if (t->nnetifs) {
		char names[8192] = "";
		size_t n = 0;

		for (int i = 0; i < t->nnetifs; i++)
			n = add_name(names, sizeof(names), n, t->netifs[i].name);
		print_names(f, "Virtual interfaces:", names, width);
	}
}

static void print_blocks(const struct gf_topo *t, FILE *f, int width)
{
	struct gf_table tb;
	char size[32], link[48];
	int nvirt = 0;

	gf_table_init(&tb, 9);
	for (const char **h = (const char *[]){ "DISK", "MODEL", "SIZE", "PCI", "PCIE", "NUMA", "SCHED", "RA",
						"LBS", NULL }; *h; h++)
		gf_table_add(&tb, "%s", *h);
	for (int i = 0; i < t->nblocks; i++) {
		const struct gf_block *b = &t->blocks[i];

		if (b->virtual_dev) {
			nvirt++;
			continue;
		}
		/* 0 is how the model says "unknown" for sizes (topo.h). */
		if (b->size_bytes)
			gf_fmt_bytes(b->size_bytes, size, sizeof(size));
		else
			gf_strlcpy(size, "unknown", sizeof(size));
		gf_table_add(&tb, "%s%s%s%s", b->name, b->label[0] ? " (" : "", b->label, b->label[0] ? ")" : "");
		gf_table_add(&tb, "%s", b->model[0] ? b->model : "-");
		gf_table_add(&tb, "%s", size);
		gf_table_add(&tb, "%s", b->pci >= 0 ? t->pci[b->pci].bdf : "-");
		if (b->pci >= 0)
			fmt_link(&t->pci[b->pci].link, link, sizeof(link));
		gf_table_add(&tb, "%s", b->pci >= 0 ? link : "-");
		if (b->numa_node >= 0)
			gf_table_add(&tb, "%d", b->numa_node);
		else
			gf_table_add(&tb, "unknown");
		gf_table_add(&tb, "%s", b->scheduler[0] ? b->scheduler : "unknown");
		if (b->read_ahead_kb >= 0)
			gf_table_add(&tb, "%d KiB", b->read_ahead_kb);
		else
			gf_table_add(&tb, "unknown");
		if (b->logical_block_size > 0)
			gf_table_add(&tb, "%d", b->logical_block_size);
		else
			gf_table_add(&tb, "unknown");
	}
	if (tb.ncells > tb.ncols) {
		fputs("\nBlock devices:\n", f);
		gf_table_print_width(&tb, f, "  ", width);
	}
	gf_table_free(&tb);
	if (nvirt) {
		char names[8192] = "";
		size_t n = 0;

		for (int i = 0; i < t->nblocks; i++)
			if (t->blocks[i].virtual_dev)
				n = add_name(names, sizeof(names), n, t->blocks[i].name);
		print_names(f, "Virtual block devices:", names, width);
	}
}

/* "31.5", or "unknown" / "down": a path without a figure never shows one. */
const char *gf_path_rate_text(const struct gf_path *p, char *buf, size_t size)
{
	if (p->limit == GF_LIMIT_DOWN)
		snprintf(buf, size, "down");
	else if (p->gb_per_s > 0)
		snprintf(buf, size, "%.1f", p->gb_per_s);
	else
		snprintf(buf, size, "unknown");
	return buf;
}

/* "GPU1 <-> GPU0": named from GPU `self` first. */
static void path_ends(const struct gf_topo *t, const struct gf_path *p, int self, char *buf, size_t size)
{
	if (p->from < 0) {
		if (p->host_node >= 0)
			snprintf(buf, size, "host memory (node %d) -> %s", p->host_node,
				 t->matrix.dev[p->to].name);
		else
			snprintf(buf, size, "host memory -> %s", t->matrix.dev[p->to].name);
		return;
	}
	if (p->to == self)
		snprintf(buf, size, "%s <-> %s", t->matrix.dev[p->to].name, t->matrix.dev[p->from].name);
	else
		snprintf(buf, size, "%s <-> %s", t->matrix.dev[p->from].name, t->matrix.dev[p->to].name);
}

static void add_path_row(const struct gf_topo *t, struct gf_table *tb, const struct gf_path *p, int self)
{
	char ends[96], link[16], rate[16];

	path_ends(t, p, self, ends, sizeof(ends));
	gf_link_format(&p->link, link, sizeof(link));
	gf_table_add(tb, "%s", ends);
	gf_table_add(tb, "%s", link);
	gf_table_add(tb, "%s", gf_path_rate_text(p, rate, sizeof(rate)));
	gf_table_add(tb, "%s%s", p->limit_text, p->crosses_cpu_link ? "; crosses sockets (not modelled)" : "");
}

static void print_paths(const struct gf_topo *t, FILE *f, int gpu, int width);

void gf_print_paths(const struct gf_topo *t, FILE *f, int gpu)
{
	print_paths(t, f, gpu, GF_PRINT_WIDTH_DEFAULT);
}

/* Every path that feeds a GPU, each GPU pair once (under its first GPU),
 * or only GPU matrix entry `gpu`'s (-1: all), within width columns. */
static void print_paths(const struct gf_topo *t, FILE *f, int gpu, int width)
{
	struct gf_table tb;

	if (!t->npaths)
		return;
	gf_table_init(&tb, 4);
	tb.right_align = 1u << 2;
	gf_table_add(&tb, "PATH");
	gf_table_add(&tb, "LINK");
	gf_table_add(&tb, "GB/s");
	gf_table_add(&tb, "LIMITED BY");
	for (int g = 0; g < t->matrix.n; g++) {
		if (t->matrix.dev[g].kind != GF_DEV_GPU || (gpu >= 0 && g != gpu))
			continue;
		for (int kind = GF_PATH_HOST_GPU; kind <= GF_PATH_GPU_NVME; kind++) {
			for (int i = 0; i < t->npaths; i++) {
				const struct gf_path *p = &t->paths[i];
				int first = p->from < p->to ? p->from : p->to;
				bool mine = kind == GF_PATH_HOST_GPU ? p->to == g :
					    kind == GF_PATH_GPU_GPU ? (gpu >= 0 ? p->from == g || p->to == g : first == g) :
					    p->from == g;

				if ((int)p->kind == kind && mine)
					add_path_row(t, &tb, p, gpu);
			}
		}
	}
	fprintf(f, "\nPaths (theoretical one-way bandwidth of the narrowest link):\n");
	gf_table_print_width(&tb, f, "  ", width);
	gf_table_free(&tb);
}

void gf_print_findings(const struct gf_topo *t, FILE *f, bool color)
{
	gf_print_findings_width(t, f, color, GF_PRINT_WIDTH_DEFAULT);
}

/* Findings, one per paragraph, wrapped at width under their text. */
void gf_print_findings_width(const struct gf_topo *t, FILE *f, bool color, int width)
{
	const char *on[] = { "\033[36m", "\033[33m", "\033[31m" }, *off = "\033[0m";
	const int indent = 10;

	for (int i = 0; i < t->nfindings; i++) {
		const struct gf_finding *x = &t->findings[i];
		char msg[sizeof(x->message)];
		const char *s = msg;
		int col = indent;

		gf_strlcpy(msg, x->message, sizeof(msg));
		gf_sanitize_text(msg);
		fprintf(f, "  %s%-7s%s ", color ? on[x->severity] : "", gf_severity_name(x->severity),
			color ? off : "");
		while (*s) {
			size_t word = strcspn(s, " ");

			if (col > indent && col + 1 + (int)word > width) {
				fprintf(f, "\n%*s", indent, "");
				col = indent;
			} else if (col > indent) {
				fputc(' ', f);
				col++;
			}
			fwrite(s, 1, word, f);
			col += (int)word;
			s += word;
			s += strspn(s, " ");
		}
		fputc('\n', f);
	}
}

void gf_print_summary(const struct gf_topo *t, FILE *f)
{
	const struct gf_machine *m = &t->machine;
	char mem[32], allowed[4096], dmi[200] = "";
	int ib = 0, eth = 0;

	if (m->vendor[0] || m->product[0])
		snprintf(dmi, sizeof(dmi), " (%s%s%s)", m->vendor, m->vendor[0] && m->product[0] ? " " : "",
			 m->product);
	fprintf(f, "Machine:  %s%s, kernel %s%s\n", m->hostname[0] ? m->hostname : "unknown", dmi,
		m->kernel[0] ? m->kernel : "unknown", m->hypervisor ? ", virtual machine" : "");
	fmt_cpus(&t->cpus.allowed, allowed, sizeof(allowed));
	fprintf(f, "CPUs:     %d online (%d package%s, %d cores, %d thread%s per core); allowed here: %s\n",
		t->cpus.ncpu, t->cpus.npackages, t->cpus.npackages == 1 ? "" : "s", t->cpus.ncores,
		t->cpus.threads_per_core, t->cpus.threads_per_core == 1 ? "" : "s", allowed);
	if (t->cpus.model[0])
		fprintf(f, "          %s\n", t->cpus.model);
	gf_fmt_bytes(m->memory_bytes, mem, sizeof(mem));
	fprintf(f, "Memory:   %s in %d NUMA node%s%s\n", m->memory_bytes ? mem : "unknown", t->numa.nnodes,
		t->numa.nnodes == 1 ? "" : "s", t->numa.kernel_numa ? "" : " (kernel without NUMA)");
	if (t->ngpus) {
		fprintf(f, "GPUs:     %d x %s", t->ngpus, t->gpus[0].name[0] ? t->gpus[0].name : "NVIDIA GPU");
		for (int i = 1; i < t->ngpus; i++)
			if (strcmp(t->gpus[i].name, t->gpus[0].name)) {
				fputs(" (mixed models)", f);
				break;
			}
		if (m->driver_version[0])
			fprintf(f, ", driver %s", m->driver_version);
		if (m->cuda_driver_version)
			fprintf(f, ", CUDA %d.%d", m->cuda_driver_version / 1000,
				m->cuda_driver_version % 1000 / 10);
		if (t->nvswitch)
			fprintf(f, ", NVSwitch");
		fputc('\n', f);
	} else {
		fprintf(f, "GPUs:     none\n");
	}
	fprintf(f, "NVML:     %s\n", m->nvml ? "yes" : m->nvml_note);
	for (int i = 0; i < t->nnics; i++) {
		if (!strcmp(t->nics[i].link_layer, "InfiniBand"))
			ib++;
		else
			eth++;
	}
	fprintf(f, "NICs:     %d (%d InfiniBand, %d Ethernet or other); %d with RDMA\n", t->nnics, ib, eth,
		t->matrix.nsmi - t->ngpus);
}

GF_API int gf_topo_print(const struct gf_topo *t, FILE *out, unsigned flags)
{
	int width = gf_wrap_width(flags);
	struct gf_text x;
	FILE *f;
	int ret;

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "f");
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	print_matrix_fitted(t, f, width);
	print_other_devices(t, f, width);
	print_gpus(t, f, -1, width);
	print_nics(t, f, width);
	print_blocks(t, f, width);
	print_paths(t, f, -1, width);
	if ((ret = gf_text_close(&x, out)))
		return ret;
	f = out;	/* findings sanitize their own text, around their colour */
	if (t->nfindings) {
		fputs("\nFindings:\n", f);
		gf_print_findings_width(t, f, flags & GF_PRINT_COLOR, width);
	}
	return ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
}

GF_API int gf_topo_print_gpu(const struct gf_topo *t, int gpu, FILE *out)
{
	const struct gf_matrix *m;
	struct gf_text x;
	FILE *f;
	int g, ret;
	char buf[16];

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = gf_topo_gpu_args(t, gpu, __func__)))
		return ret;
	g = gf_matrix_gpu(t, gpu);
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	m = &t->matrix;
	print_gpus(t, f, gpu, GF_PRINT_WIDTH_DEFAULT);
	fprintf(f, "\nLinks of %s:\n ", m->dev[g].name);
	for (int j = 0, col = 1; j < m->n; j++) {
		int w;

		if (j == g)
			continue;
		gf_link_format(&m->link[g * m->n + j], buf, sizeof(buf));
		w = (int)strlen(m->dev[j].name) + (int)strlen(buf) + 2;
		if (col + w > 80) {
			fputs("\n ", f);
			col = 1;
		}
		fprintf(f, " %s %s", m->dev[j].name, buf);
		col += w;
	}
	fputc('\n', f);
	gf_print_paths(t, f, g);
	return gf_text_close(&x, out);
}

GF_API int gf_topo_print_matrix(const struct gf_topo *t, FILE *out)
{
	struct gf_text x;
	FILE *f;

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "f");
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	gf_print_matrix(t, f);
	return gf_text_close(&x, out);
}

GF_API int gf_topo_print_nearest_nic(const struct gf_topo *t, int gpu, FILE *out)
{
	struct gf_text x;
	FILE *f;
	int nic;

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((nic = gf_topo_gpu_args(t, gpu, __func__)) < 0 || (nic = gf_topo_nearest_nic(t, gpu)) < 0)
		return nic;
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	fprintf(f, "%s\n", t->nics[nic].rdma);
	return gf_text_close(&x, out);
}
