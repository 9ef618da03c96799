/* The GPUs: who they are and their links' limits from the model, their
 * figures from NVML (gpu_nvml.c), matched to the model by PCI address.  A
 * recording or a machine without NVML keeps the identities and limits and
 * says why the figures are absent (gpu_why). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "monitor/gpu_nvml.h"
#include "monitor/monitor_internal.h"

/* The matrix entry of GPU position g, -1 when it has none. */
static int matrix_of(const struct gf_topo *t, int g)
{
	for (int j = 0; j < t->matrix.n; j++)
		if (t->matrix.dev[j].kind == GF_DEV_GPU && t->matrix.dev[j].ref == g)
			return j;
	return -1;
}

/* Host memory to the GPU: its narrowest PCIe link, one direction. */
static double pcie_limit(const struct gf_topo *t, int j)
{
	for (int i = 0; j >= 0 && i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];

		if (p->kind == GF_PATH_HOST_GPU && p->to == j)
			return p->gb_per_s > 0 ? p->gb_per_s * 1e9 : NAN;
	}
	return NAN;
}

/* The GPU's NVLinks: the widest NVLink path to a peer, which through an
 * NVSwitch is all of its links (NV18 on H100: 18 x 25 GB/s). */
static double nvlink_limit(const struct gf_topo *t, int j)
{
	double best = 0;

	for (int i = 0; j >= 0 && i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];

		if (p->kind == GF_PATH_GPU_GPU && (p->from == j || p->to == j) && p->limit == GF_LIMIT_NVLINK &&
		    p->gb_per_s > best)
			best = p->gb_per_s;
	}
	return best > 0 ? best * 1e9 : NAN;
}

/* Every figure unknown: what a GPU NVML cannot read keeps. */
void gf_mon_gpu_unknown(struct gf_mon_gpu *g)
{
	g->activity_source = "none";
	g->sm_active = g->sm_occupancy = g->tensor_active = g->dram_active = NAN;
	g->mem_used = g->mem_total = GF_MON_NONE;
	g->pcie_rx_bps = g->pcie_tx_bps = NAN;
	g->nvlink_rx_bps = g->nvlink_tx_bps = NAN;
	g->power_w = g->power_limit_w = NAN;
	g->sm_clock_mhz = g->mem_clock_mhz = 0;
	g->temperature_c = 0;
	g->throttle_reasons = GF_MON_NONE;
	g->throttle[0] = '\0';
	g->xid_events = GF_MON_NONE;
	g->last_xid = 0;
	g->ecc_corrected = g->ecc_uncorrected = GF_MON_NONE;
	g->proc_sm_share = NAN;
	g->proc_mem_used = GF_MON_NONE;
}

int gf_mon_gpus_open(struct gf_monitor *m)
{
	const struct gf_topo *t = m->topo;

	if (t->ngpus > 0) {
		m->s.gpus = calloc((size_t)t->ngpus, sizeof(*m->s.gpus));
		if (!m->s.gpus)
			return gf_error(-ENOMEM, "monitor: out of memory");
	}
	m->s.ngpus = (unsigned)(t->ngpus > 0 ? t->ngpus : 0);
	for (unsigned i = 0; i < m->s.ngpus; i++) {
		const struct gf_gpu *tg = &t->gpus[i];
		struct gf_mon_gpu *g = &m->s.gpus[i];
		int j = matrix_of(t, (int)i);

		g->index = tg->index;
		gf_strlcpy(g->uuid, tg->uuid, sizeof(g->uuid));
		gf_strlcpy(g->pci, tg->bdf, sizeof(g->pci));
		gf_strlcpy(g->name, tg->name, sizeof(g->name));
		g->pcie_limit_bps = pcie_limit(t, j);
		g->nvlink_limit_bps = nvlink_limit(t, j);
		gf_mon_gpu_unknown(g);
		/* A recording's total is a level it holds. */
		if (tg->memory_bytes)
			g->mem_total = tg->memory_bytes;
	}
	if (!m->live) {
		m->s.gpu_why = "a recording holds no GPU counters (NVML is read on the machine itself)";
		return 0;
	}
	return gf_mon_nvml_open(m);
}

int gf_mon_gpus_sample(struct gf_monitor *m)
{
	if (!m->gpu)
		return 0;
	return gf_mon_nvml_sample(m);
}

void gf_mon_gpus_close(struct gf_monitor *m)
{
	free(m->s.gpus);
	m->s.gpus = NULL;
	gf_mon_nvml_close(m);
}
