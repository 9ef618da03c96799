/* The bandwidth of every path that feeds a GPU: host memory to GPU, GPU to
 * GPU, GPU to NIC and GPU to NVMe, each limited by its narrowest link.
 *
 * Rates (one direction, docs/bandwidth.md has the sources):
 *   PCIe per lane: Gen1 2.5 GT/s 8b/10b = 0.25 GB/s; Gen2 0.5; Gen3 8 GT/s
 *   128b/130b = 0.985; Gen4 1.969; Gen5 3.938; Gen6 64 GT/s FLIT (242/256)
 *   = 7.563; Gen7 15.125.  x16: Gen4 31.5 GB/s, Gen5 63.0 GB/s.
 *   NVLink per link: 1.0 20 GB/s; 2.x, 3.x, 4.0 25 GB/s; 5.0 50 GB/s.
 *   NIC: line rate / 8 (400 Gb/s = 50 GB/s). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo/topo_internal.h"

double gf_pcie_lane_gb_per_s(double gts)
{
	if (gts <= 0)
		return 0;
	if (gts < 8)
		return gts * 0.8 / 8;			/* 8b/10b */
	if (gts < 64)
		return gts * 128.0 / 130.0 / 8;		/* 128b/130b */
	return gts * 242.0 / 256.0 / 8;			/* PAM4 FLIT */
}

int gf_pcie_gen(double gts)
{
	static const double rates[] = { 2.5, 5, 8, 16, 32, 64, 128 };

	for (int i = 0; i < 7; i++)
		if (fabs(gts - rates[i]) < 0.5)
			return i + 1;
	return 0;
}

double gf_nvlink_link_gb_per_s(int v)
{
	switch (v) {
	case 1:  return 20;	/* NVLink 1.0 (P100) */
	case 2: case 3: case 4: case 5: case 6:
		 return 25;	/* NVLink 2.x (V100), 3.x (A100), 4.0 (H100/H200) */
	case 7:  return 50;	/* NVLink 5.0 (B200) */
	default: return 0;	/* unknown: not guessed */
	}
}

const char *gf_nvlink_version_name(int v)
{
	static const char *names[] = { "unknown", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0", "6.0" };

	return v >= 0 && v <= 8 ? names[v] : "unknown";
}

/* The link above device x (between x and its upstream port), or 0 when x
 * faces downstream (its link attributes describe the link below it) or
 * reports nothing.  Speed: what the link can do (the lesser of both ends'
 * maximum) for GPUs, which drop to Gen1 when idle to save power; what it
 * negotiated for everything else, which does not.  Width: as negotiated. */
static double link_above(const struct gf_topo *t, int x, double *gts, int *width)
{
	const struct gf_pci_dev *d = &t->pci[x];
	double speed = d->link.max_gts ? d->link.max_gts : d->link.cur_gts;
	int w = d->link.cur_width ? d->link.cur_width : d->link.max_width;

	if (gf_pci_downstream_port(t, x) || !speed || !w)
		return 0;
	if (d->parent >= 0) {
		const struct gf_pci_dev *p = &t->pci[d->parent];

		if (p->link.max_gts && p->link.max_gts < speed)
			speed = p->link.max_gts;	/* a Gen5 card in a Gen4 slot */
	}
	if (d->kind != GF_PCI_GPU && d->link.cur_gts && d->link.cur_gts < speed)
		speed = d->link.cur_gts;	/* trained slower: a real limit */
	*gts = speed;
	*width = w;
	return gf_pcie_lane_gb_per_s(speed) * w;
}

void gf_pcie_narrowest(const struct gf_topo *t, int x, int stop, struct gf_narrowest *nw)
{
	for (; x >= 0 && x != stop; x = t->pci[x].parent) {
		double gts = 0, bw;
		int w = 0;

		bw = link_above(t, x, &gts, &w);
		if (bw <= 0 && nw->unknown_pci < 0 && !gf_pci_downstream_port(t, x))
			nw->unknown_pci = x;	/* a link of unknown rate: the path's too */
		if (bw > 0 && (nw->gb_per_s == 0 || bw < nw->gb_per_s)) {
			nw->gb_per_s = bw;
			nw->pci = x;
			nw->gts = gts;
			nw->width = w;
		}
	}
}

static void set_pcie_limit(const struct gf_topo *t, struct gf_path *p, const struct gf_narrowest *nw)
{
	/* A link of unknown rate may be the narrowest: no figure, never the
	 * rate of the links we know. */
	if (nw->unknown_pci >= 0 || nw->pci < 0) {
		p->gb_per_s = 0;
		p->limit = GF_LIMIT_UNKNOWN;
		p->limit_pci = nw->unknown_pci;
		if (nw->unknown_pci >= 0)
			snprintf(p->limit_text, sizeof(p->limit_text), "PCIe link of %s reports no speed",
				 t->pci[nw->unknown_pci].bdf);
		else
			snprintf(p->limit_text, sizeof(p->limit_text), "no PCIe link speed reported");
		return;
	}
	p->gb_per_s = nw->gb_per_s;
	p->limit = GF_LIMIT_PCIE;
	p->limit_pci = nw->pci;
	if (gf_pcie_gen(nw->gts))
		snprintf(p->limit_text, sizeof(p->limit_text), "PCIe Gen%d x%d at %s", gf_pcie_gen(nw->gts),
			 nw->width, t->pci[nw->pci].bdf);
	else
		snprintf(p->limit_text, sizeof(p->limit_text), "PCIe %.1f GT/s x%d at %s", nw->gts,
			 nw->width, t->pci[nw->pci].bdf);
}

/* PCIe between two devices: both legs up to their common ancestor, or to
 * their roots when they only meet at a host bridge or beyond. */
static void pcie_between(const struct gf_topo *t, int a, int b, struct gf_path *p)
{
	struct gf_narrowest nw = GF_NARROWEST_INIT;
	int lca = gf_pci_common_ancestor(t, a, b);

	gf_pcie_narrowest(t, a, lca, &nw);
	gf_pcie_narrowest(t, b, lca, &nw);
	set_pcie_limit(t, p, &nw);
}

int gf_node_package(const struct gf_topo *t, int node)
{
	int ni = gf_numa_index(t, node), cpu;

	if (ni < 0 || (cpu = gf_cpuset_first(&t->numa.node[ni].cpus)) < 0)
		return -1;
	for (int i = 0; i < t->cpus.ncpu; i++)
		if (t->cpus.cpu[i].id == cpu)
			return t->cpus.cpu[i].package;
	return -1;
}

/* SYS means different NUMA nodes; only different sockets (or unknown ones)
 * cross UPI/xGMI: sub-NUMA clusters (SNC, NPS) of one socket do not. */
static bool crosses_sockets(const struct gf_topo *t, int node_a, int node_b)
{
	int pa = gf_node_package(t, node_a), pb = gf_node_package(t, node_b);

	return pa < 0 || pb < 0 || pa != pb;
}

static int dev_node(const struct gf_topo *t, const struct gf_matrix_dev *d)
{
	switch (d->kind) {
	case GF_DEV_GPU:  return t->gpus[d->ref].numa_node;
	case GF_DEV_NIC:  return t->nics[d->ref].numa_node;
	case GF_DEV_NVME: return t->blocks[d->ref].numa_node;
	}
	return -1;
}

static struct gf_path *new_path(struct gf_topo *t, enum gf_path_kind kind, int from, int to)
{
	struct gf_path *p = gf_push(&t->paths, &t->npaths, sizeof(*p));

	if (!p)
		return NULL;
	p->kind = kind;
	p->from = from;
	p->to = to;
	p->host_node = -1;
	p->limit_pci = -1;
	if (from >= 0)
		p->link = *gf_matrix_at(&t->matrix, from, to);
	return p;
}

/* A port that is down carries nothing: netdev operstate "down" or
 * "lowerlayerdown", InfiniBand port state "DOWN". */
static bool nic_down(const struct gf_nic *n)
{
	return !strcasecmp(n->state, "down") || !strcmp(n->state, "lowerlayerdown");
}

/* The NIC's line rate ends the path: down, unknown (virtio, a port not
 * active) or the narrowest link when slower than the PCIe behind it. */
static void nic_limit(const struct gf_nic *nic, struct gf_path *p)
{
	double line = nic->speed_mbps > 0 ? nic->speed_mbps / 8000.0 : 0;

	if (nic_down(nic)) {
		p->gb_per_s = 0;
		p->limit = GF_LIMIT_DOWN;
		p->limit_pci = -1;
		snprintf(p->limit_text, sizeof(p->limit_text), "%s is down", nic->name);
	} else if (line <= 0) {
		p->gb_per_s = 0;
		p->limit = GF_LIMIT_UNKNOWN;
		p->limit_pci = -1;
		snprintf(p->limit_text, sizeof(p->limit_text), "%s line rate unknown", nic->name);
	} else if (p->gb_per_s > 0 && line < p->gb_per_s) {
		p->gb_per_s = line;
		p->limit = GF_LIMIT_NIC;
		p->limit_pci = -1;
		snprintf(p->limit_text, sizeof(p->limit_text), "%s line rate %g Gb/s", nic->name,
			 nic->speed_mbps / 1000.0);
	}
}

int gf_build_paths(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	struct gf_matrix *m = &t->matrix;

	for (int i = 0; i < m->n; i++) {
		const struct gf_matrix_dev *a = &m->dev[i];
		struct gf_path *p;

		if (a->kind != GF_DEV_GPU)
			continue;
		p = new_path(t, GF_PATH_HOST_GPU, -1, i);
		if (!p)
			return gf_error(-ENOMEM, "out of memory");
		p->host_node = t->gpus[a->ref].numa_node;
		p->link.type = p->link.pcie = GF_LINK_PHB;
		{
			struct gf_narrowest nw = GF_NARROWEST_INIT;

			gf_pcie_narrowest(t, a->pci, -1, &nw);
			set_pcie_limit(t, p, &nw);
		}
		for (int j = 0; j < m->n; j++) {
			const struct gf_matrix_dev *b = &m->dev[j];

			if (j == i || (b->kind == GF_DEV_GPU && j < i))
				continue;
			p = new_path(t, b->kind == GF_DEV_GPU ? GF_PATH_GPU_GPU :
					b->kind == GF_DEV_NIC ? GF_PATH_GPU_NIC : GF_PATH_GPU_NVME, i, j);
			if (!p)
				return gf_error(-ENOMEM, "out of memory");
			if (p->link.type == GF_LINK_NV) {
				const struct gf_gpu *g = &t->gpus[a->ref];
				double per = gf_nvlink_link_gb_per_s(g->nvlink_version);

				p->gb_per_s = per * p->link.nvlinks;
				p->limit = per > 0 ? GF_LIMIT_NVLINK : GF_LIMIT_UNKNOWN;
				if (per > 0)
					snprintf(p->limit_text, sizeof(p->limit_text), "NVLink %s x%d%s",
						 gf_nvlink_version_name(g->nvlink_version), p->link.nvlinks,
						 g->nvswitch_links ? " via NVSwitch" : "");
				else
					snprintf(p->limit_text, sizeof(p->limit_text),
						 "NVLink x%d (rate of version %d not known)", p->link.nvlinks,
						 g->nvlink_version);
				continue;
			}
			pcie_between(t, a->pci, b->pci, p);
			p->crosses_cpu_link = p->link.pcie == GF_LINK_SYS &&
					      crosses_sockets(t, dev_node(t, a), dev_node(t, b));
			if (b->kind == GF_DEV_NIC)
				nic_limit(&t->nics[b->ref], p);
		}
	}
	return 0;
}

/* The path from matrix entry g to matrix entry j, NULL when none. */
static const struct gf_path *path_between(const struct gf_topo *t, int g, int j)
{
	for (int i = 0; i < t->npaths; i++)
		if (t->paths[i].from == g && t->paths[i].to == j)
			return &t->paths[i];
	return NULL;
}

/* NCCL_IB_HCA's question: of the RDMA devices whose port is not down, the
 * one with the closest connection class to the GPU, then the fastest path,
 * then the first in nvidia-smi's order. */
GF_API int gf_topo_nearest_nic(const struct gf_topo *t, int gpu)
{
	const struct gf_matrix *m;
	const struct gf_path *best = NULL;
	int g, nic = -1;

	int ret = gf_topo_gpu_args(t, gpu, __func__);

	if (ret)
		return ret;
	m = &t->matrix;
	g = gf_matrix_gpu(t, gpu);
	for (int j = t->ngpus; g >= 0 && j < m->nsmi; j++) {
		const struct gf_path *p = path_between(t, g, j);

		if (!p || m->dev[j].kind != GF_DEV_NIC || nic_down(&t->nics[m->dev[j].ref]))
			continue;
		if (!best || p->link.type < best->link.type ||
		    (p->link.type == best->link.type && p->gb_per_s > best->gb_per_s)) {
			best = p;
			nic = m->dev[j].ref;
		}
	}
	if (nic < 0)
		return gf_error(-ENODEV, "GPU%d: no RDMA NIC (InfiniBand or RoCE device) is up on this machine",
				t->gpus[gpu].index);
	return nic;
}
