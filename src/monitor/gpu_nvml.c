/* The GPUs' figures from NVML, each from the best source this GPU has:
 *   activity    GPM (SM activity, occupancy, tensor activity, DRAM
 *               bandwidth: DCGM's DCGM_FI_PROF_* from the same counters),
 *               else nvmlDeviceGetUtilizationRates (nvidia-smi's sm/mem %);
 *   PCIe        GPM, else the byte counters NVML_FI_DEV_PCIE_COUNT_{TX,RX}_BYTES
 *               over the interval, else nvmlDeviceGetPcieThroughput (a 20 ms
 *               window, KB/s);
 *   NVLink      GPM, else NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_{TX,RX} summed
 *               over links (KiB counters) over the interval;
 *   levels      memory, power, clocks, temperature, clocks event reasons,
 *               volatile ECC counts, read every call;
 *   XID         an event set polled without waiting;
 *   a process   nvmlDeviceGetProcessUtilization since the last call and
 *               nvmlDeviceGetComputeRunningProcesses' memory.
 * NVIDIA's NVML API Reference (docs.nvidia.com/deploy/nvml-api) has each. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/pciaddr.h"
#include "core/strutil.h"
#include "monitor/gpu_nvml.h"
#include "monitor/monitor_internal.h"
#include "vendor/nvml/nvml.h"

#define OK(call) ((call) == GF_NVML_SUCCESS)
#define MIB 1048576.0

struct mon_gpu_dev {
	gf_nvml_device dev;
	bool found;
	bool gpm;			/* GPM supported and both samples allocated */
	gf_nvml_gpm_sample gpm_prev, gpm_cur;
	bool gpm_primed;
	bool xid;			/* registered for XID events */
	uint64_t xid_count, last_xid;
	uint64_t pcie_tx, pcie_rx, nvl_tx, nvl_rx;	/* last counter readings */
	bool pcie_have, nvl_have;
	unsigned long long proc_seen_us;	/* nvmlDeviceGetProcessUtilization's lastSeenTimeStamp */
};

struct mon_gpu {
	const struct gf_nvml_ops *ops;
	bool inited;
	gf_nvml_event_set events;
	struct mon_gpu_dev *d;		/* one per m->s.gpus */
};

void gf_mon_throttle_names(unsigned long long mask, char *buf, size_t size)
{
	/* nvidia-smi -q's "Clocks Event Reasons", in nvml.h's bit order. */
	static const struct {
		unsigned long long bit;
		const char *name;
	} names[] = {
		{ GF_NVML_CLOCKS_EVENT_GPU_IDLE, "gpu_idle" },
		{ GF_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS, "applications_clocks_setting" },
		{ GF_NVML_CLOCKS_EVENT_SW_POWER_CAP, "sw_power_cap" },
		{ GF_NVML_CLOCKS_EVENT_HW_SLOWDOWN, "hw_slowdown" },
		{ GF_NVML_CLOCKS_EVENT_SYNC_BOOST, "sync_boost" },
		{ GF_NVML_CLOCKS_EVENT_SW_THERMAL, "sw_thermal_slowdown" },
		{ GF_NVML_CLOCKS_EVENT_HW_THERMAL, "hw_thermal_slowdown" },
		{ GF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE, "hw_power_brake_slowdown" },
		{ GF_NVML_CLOCKS_EVENT_DISPLAY_CLOCK, "display_clock_setting" },
	};
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && size; i++) {
		int n;

		if (!(mask & names[i].bit))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';	/* never half a name */
			break;
		}
		len += (size_t)n;
	}
}

static void set_why(struct gf_monitor *m, const char *fmt, const char *a, const char *b)
{
	snprintf(m->gpu_why, sizeof(m->gpu_why), fmt, a, b);
	m->s.gpu_why = m->gpu_why;
}

/* The position in m->s.gpus of NVML device i, -1 when the model has none. */
static int match(struct gf_monitor *m, const struct gf_nvml_pci_info *pci)
{
	char bdf[16];

	if (!gf_pci_normalize(pci->bus_id, bdf, sizeof(bdf)))
		return -1;
	for (unsigned k = 0; k < m->s.ngpus; k++)
		if (!strcasecmp(m->s.gpus[k].pci, bdf))
			return (int)k;
	return -1;
}

static void open_device(struct mon_gpu *g, struct mon_gpu_dev *d)
{
	const struct gf_nvml_ops *ops = g->ops;
	struct gf_nvml_gpm_support sup = { .version = GF_NVML_GPM_SUPPORT_VERSION };
	unsigned long long types = 0;

	if (ops->gpm_query_support && ops->gpm_sample_alloc && ops->gpm_sample_free && ops->gpm_sample_get &&
	    ops->gpm_metrics_get && OK(ops->gpm_query_support(d->dev, &sup)) && sup.is_supported_device) {
		if (OK(ops->gpm_sample_alloc(&d->gpm_prev))) {
			if (OK(ops->gpm_sample_alloc(&d->gpm_cur)))
				d->gpm = true;
			else
				ops->gpm_sample_free(d->gpm_prev);
		}
	}
	if (g->events && ops->register_events &&
	    (!ops->supported_event_types || (OK(ops->supported_event_types(d->dev, &types)) &&
					     (types & GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR))))
		d->xid = OK(ops->register_events(d->dev, GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR, g->events));
}

int gf_mon_nvml_open(struct gf_monitor *m)
{
	struct mon_gpu *g;
	char why[256];
	unsigned count = 0, found = 0;
	gf_nvml_return r;

	g = calloc(1, sizeof(*g));
	if (!g)
		return gf_error(-ENOMEM, "monitor: out of memory");
	m->gpu = g;
	if (gf_nvml_load(&g->ops, why, sizeof(why))) {
		set_why(m, "NVML not available: %s%s", why, "");
		goto none;
	}
	r = g->ops->init();
	if (!OK(r)) {
		set_why(m, "NVML not available: nvmlInit failed: %s%s", gf_nvml_strerror(g->ops, r), "");
		goto none;
	}
	g->inited = true;
	if (m->s.ngpus) {
		g->d = calloc(m->s.ngpus, sizeof(*g->d));
		if (!g->d) {
			gf_mon_nvml_close(m);
			return gf_error(-ENOMEM, "monitor: out of memory");
		}
	}
	if (g->ops->event_set_create && g->ops->event_set_wait && g->ops->event_set_free &&
	    !OK(g->ops->event_set_create(&g->events)))
		g->events = NULL;
	r = g->ops->device_count(&count);
	if (!OK(r)) {
		set_why(m, "NVML: nvmlDeviceGetCount failed: %s%s", gf_nvml_strerror(g->ops, r), "");
		goto none;
	}
	for (unsigned i = 0; i < count; i++) {
		struct gf_nvml_pci_info pci;
		gf_nvml_device dev;
		int k;

		/* A GPU that fell off the bus must not hide the others. */
		if (!OK(g->ops->device_by_index(i, &dev)) || !OK(g->ops->pci_info(dev, &pci)))
			continue;
		k = match(m, &pci);
		if (k < 0 || g->d[k].found)
			continue;
		g->d[k].dev = dev;
		g->d[k].found = true;
		open_device(g, &g->d[k]);
		found++;
	}
	if (!found) {
		char n[16];

		snprintf(n, sizeof(n), "%u", count);
		if (!count)
			set_why(m, "no NVIDIA GPU on this machine (NVML lists none)%s%s", "", "");
		else
			set_why(m, "NVML lists %s GPU(s), none of them a GPU of the model's (%s)", n,
				m->s.ngpus ? "no PCI address matches" : "sysfs shows no NVIDIA GPU");
	}
	return 0;
none:
	gf_mon_nvml_close(m);
	return 0;
}

void gf_mon_nvml_close(struct gf_monitor *m)
{
	struct mon_gpu *g = m->gpu;

	if (!g)
		return;
	for (unsigned k = 0; g->d && k < m->s.ngpus; k++) {
		if (g->d[k].gpm) {
			g->ops->gpm_sample_free(g->d[k].gpm_prev);
			g->ops->gpm_sample_free(g->d[k].gpm_cur);
		}
	}
	if (g->events)
		g->ops->event_set_free(g->events);
	if (g->inited)
		g->ops->shutdown();
	free(g->d);
	free(g);
	m->gpu = NULL;
}

/* GPM's figures between the previous sample and this one. */
static bool read_gpm(struct mon_gpu *g, struct mon_gpu_dev *d, struct gf_mon_gpu *out)
{
	static const unsigned ids[] = {
		GF_NVML_GPM_METRIC_SM_UTIL, GF_NVML_GPM_METRIC_SM_OCCUPANCY, GF_NVML_GPM_METRIC_ANY_TENSOR_UTIL,
		GF_NVML_GPM_METRIC_DRAM_BW_UTIL, GF_NVML_GPM_METRIC_PCIE_RX_PER_SEC,
		GF_NVML_GPM_METRIC_PCIE_TX_PER_SEC, GF_NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
		GF_NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC,
	};
	enum { NIDS = sizeof(ids) / sizeof(ids[0]) };
	double v[NIDS];
	struct gf_nvml_gpm_metrics_get *mg;
	gf_nvml_gpm_sample t;

	if (!OK(g->ops->gpm_sample_get(d->dev, d->gpm_cur))) {
		d->gpm_primed = false;
		return false;
	}
	if (!d->gpm_primed) {
		t = d->gpm_prev, d->gpm_prev = d->gpm_cur, d->gpm_cur = t;
		d->gpm_primed = true;
		return true;	/* GPM's first sample: its figures come next time */
	}
	/* The struct is 16 kB: on the heap, not a sampler thread's stack. */
	mg = calloc(1, sizeof(*mg));
	if (!mg)
		return false;
	mg->version = GF_NVML_GPM_METRICS_GET_VERSION;
	mg->num_metrics = NIDS;
	mg->sample1 = d->gpm_prev;
	mg->sample2 = d->gpm_cur;
	for (unsigned i = 0; i < NIDS; i++)
		mg->metrics[i].metric_id = ids[i];
	if (OK(g->ops->gpm_metrics_get(mg))) {
		for (unsigned i = 0; i < NIDS; i++)
			v[i] = OK(mg->metrics[i].nvml_return) ? mg->metrics[i].value : NAN;
		out->sm_active = v[0] / 100;
		out->sm_occupancy = v[1] / 100;
		out->tensor_active = v[2] / 100;
		out->dram_active = v[3] / 100;
		out->pcie_rx_bps = v[4] * MIB;
		out->pcie_tx_bps = v[5] * MIB;
		out->nvlink_rx_bps = v[6] * MIB;
		out->nvlink_tx_bps = v[7] * MIB;
	}
	free(mg);
	t = d->gpm_prev, d->gpm_prev = d->gpm_cur, d->gpm_cur = t;
	return true;
}

/* Two cumulative counters read as field values (scope: every link). */
static bool read_fields(const struct gf_nvml_ops *ops, gf_nvml_device dev, unsigned id_a, unsigned id_b,
			uint64_t *a, uint64_t *b)
{
	struct gf_nvml_field_value f[2];

	if (!ops->field_values)
		return false;
	memset(f, 0, sizeof(f));
	f[0].field_id = id_a;
	f[1].field_id = id_b;
	f[0].scope_id = f[1].scope_id = UINT_MAX;
	if (!OK(ops->field_values(dev, 2, f)) || !OK(f[0].nvml_return) || !OK(f[1].nvml_return))
		return false;
	for (int i = 0; i < 2; i++) {
		uint64_t v;

		switch (f[i].value_type) {
		case GF_NVML_VALUE_TYPE_UNSIGNED_INT: v = f[i].value.ui_val; break;
		case GF_NVML_VALUE_TYPE_UNSIGNED_LONG: v = f[i].value.ul_val; break;
		case GF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: v = f[i].value.ull_val; break;
		case GF_NVML_VALUE_TYPE_SIGNED_LONG_LONG:
			if (f[i].value.sll_val < 0)
				return false;
			v = (uint64_t)f[i].value.sll_val;
			break;
		default: return false;
		}
		*(i ? b : a) = v;
	}
	return true;
}

static void read_counters(struct gf_monitor *m, struct mon_gpu_dev *d, struct gf_mon_gpu *out)
{
	const struct gf_nvml_ops *ops = m->gpu->ops;
	uint64_t tx, rx;
	unsigned v;

	/* GPM gave them: the counters' last readings are stale from here. */
	if (!isnan(out->pcie_rx_bps))
		d->pcie_have = false;
	if (!isnan(out->nvlink_rx_bps))
		d->nvl_have = false;
	if (isnan(out->pcie_rx_bps)) {
		if (read_fields(ops, d->dev, GF_NVML_FI_DEV_PCIE_COUNT_TX_BYTES, GF_NVML_FI_DEV_PCIE_COUNT_RX_BYTES,
				&tx, &rx)) {
			if (d->pcie_have) {
				out->pcie_tx_bps = gf_mon_rate(tx, d->pcie_tx, m->dt);
				out->pcie_rx_bps = gf_mon_rate(rx, d->pcie_rx, m->dt);
			}
			d->pcie_tx = tx, d->pcie_rx = rx, d->pcie_have = true;
		} else if (ops->pcie_throughput) {
			/* 1 KB granularity over the driver's 20 ms window. */
			d->pcie_have = false;
			if (OK(ops->pcie_throughput(d->dev, GF_NVML_PCIE_UTIL_TX_BYTES, &v)))
				out->pcie_tx_bps = v * 1024.0;
			if (OK(ops->pcie_throughput(d->dev, GF_NVML_PCIE_UTIL_RX_BYTES, &v)))
				out->pcie_rx_bps = v * 1024.0;
		}
	}
	if (isnan(out->nvlink_rx_bps)) {
		if (read_fields(ops, d->dev, GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
				GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, &tx, &rx)) {
			if (d->nvl_have) {
				out->nvlink_tx_bps = gf_mon_rate(tx, d->nvl_tx, m->dt) * 1024;
				out->nvlink_rx_bps = gf_mon_rate(rx, d->nvl_rx, m->dt) * 1024;
			}
			d->nvl_tx = tx, d->nvl_rx = rx, d->nvl_have = true;
		} else {
			d->nvl_have = false;
		}
	}
}

static void read_levels(const struct gf_nvml_ops *ops, gf_nvml_device dev, struct gf_mon_gpu *out)
{
	struct gf_nvml_memory mem;
	unsigned long long reasons, n;
	unsigned v;

	if (ops->memory_info && OK(ops->memory_info(dev, &mem))) {
		out->mem_used = mem.used;
		out->mem_total = mem.total;
	}
	if (ops->power_usage && OK(ops->power_usage(dev, &v)))
		out->power_w = v / 1000.0;
	if ((ops->power_enforced_limit && OK(ops->power_enforced_limit(dev, &v))) ||
	    (ops->power_limit && OK(ops->power_limit(dev, &v))))
		out->power_limit_w = v / 1000.0;
	if (ops->clock_info && OK(ops->clock_info(dev, GF_NVML_CLOCK_SM, &v)))
		out->sm_clock_mhz = v;
	if (ops->clock_info && OK(ops->clock_info(dev, GF_NVML_CLOCK_MEM, &v)))
		out->mem_clock_mhz = v;
	if (ops->temperature && OK(ops->temperature(dev, GF_NVML_TEMPERATURE_GPU, &v)))
		out->temperature_c = v;
	if (ops->clocks_event_reasons && OK(ops->clocks_event_reasons(dev, &reasons))) {
		out->throttle_reasons = reasons;
		gf_mon_throttle_names(reasons, out->throttle, sizeof(out->throttle));
	}
	if (ops->total_ecc_errors &&
	    OK(ops->total_ecc_errors(dev, GF_NVML_MEMORY_ERROR_TYPE_CORRECTED, GF_NVML_VOLATILE_ECC, &n))) {
		out->ecc_corrected = n;
		if (OK(ops->total_ecc_errors(dev, GF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, GF_NVML_VOLATILE_ECC, &n)))
			out->ecc_uncorrected = n;
	}
}

/* XID events since the last call, without waiting (a 0 ms wait). */
static void drain_events(struct gf_monitor *m)
{
	struct mon_gpu *g = m->gpu;
	struct gf_nvml_event_data ev;

	/* Bounded: a flood of events must not hold the sampler. */
	for (int i = 0; g->events && i < 1024; i++) {
		memset(&ev, 0, sizeof(ev));
		if (!OK(g->ops->event_set_wait(g->events, &ev, 0)))
			break;
		if (!(ev.event_type & GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR))
			continue;
		for (unsigned k = 0; k < m->s.ngpus; k++) {
			if (g->d[k].found && g->d[k].dev == ev.device) {
				g->d[k].xid_count++;
				g->d[k].last_xid = ev.event_data;
			}
		}
	}
}

/* The sampled process's (and its descendants') SM share and memory. */
static void read_process(struct gf_monitor *m, struct mon_gpu_dev *d, struct gf_mon_gpu *out)
{
	const struct gf_nvml_ops *ops = m->gpu->ops;
	struct gf_nvml_process_util *u = NULL;
	struct gf_nvml_process_info *pi = NULL;
	unsigned n = 0;
	gf_nvml_return r;

	if (ops->process_utilization) {
		r = ops->process_utilization(d->dev, NULL, &n, d->proc_seen_us);
		if (r == GF_NVML_ERROR_NOT_FOUND) {
			out->proc_sm_share = 0;		/* no process ran a kernel since */
		} else if ((r == GF_NVML_ERROR_INSUFFICIENT_SIZE || OK(r)) && n &&
			   (u = calloc(n, sizeof(*u))) &&
			   OK(ops->process_utilization(d->dev, u, &n, d->proc_seen_us))) {
			double sum = 0;
			unsigned long long newest = d->proc_seen_us;
			int samples = 0;

			/* Samples come per process and driver period: the
			 * share is their mean per period, summed over ours. */
			for (unsigned i = 0; i < n; i++) {
				if (u[i].time_stamp > newest)
					newest = u[i].time_stamp;
				if (gf_mon_proc_has(m, u[i].pid))
					sum += u[i].sm_util;
			}
			for (unsigned i = 0; i < n; i++) {
				bool seen = false;

				for (unsigned j = 0; j < i && !seen; j++)
					seen = u[j].time_stamp == u[i].time_stamp;
				samples += !seen;
			}
			out->proc_sm_share = samples ? sum / samples / 100 : 0;
			d->proc_seen_us = newest;
		}
		free(u);
	}
	if (ops->compute_processes) {
		n = 0;
		r = ops->compute_processes(d->dev, &n, NULL);
		if (OK(r) && n == 0) {
			out->proc_mem_used = 0;
		} else if (r == GF_NVML_ERROR_INSUFFICIENT_SIZE && n) {
			n += 4;		/* room for one that starts meanwhile */
			pi = calloc(n, sizeof(*pi));
			if (pi && OK(ops->compute_processes(d->dev, &n, pi))) {
				out->proc_mem_used = 0;
				for (unsigned i = 0; i < n; i++)
					if (gf_mon_proc_has(m, pi[i].pid))
						out->proc_mem_used += pi[i].used_gpu_memory;
			}
			free(pi);
		}
	}
}

int gf_mon_nvml_sample(struct gf_monitor *m)
{
	struct mon_gpu *g = m->gpu;

	drain_events(m);
	for (unsigned k = 0; k < m->s.ngpus; k++) {
		struct gf_mon_gpu *out = &m->s.gpus[k];
		struct mon_gpu_dev *d = &g->d[k];
		struct gf_nvml_utilization u;

		gf_mon_gpu_unknown(out);
		if (!d->found) {
			if (m->topo->gpus[k].memory_bytes)
				out->mem_total = m->topo->gpus[k].memory_bytes;
			continue;
		}
		if (d->gpm && read_gpm(g, d, out)) {
			out->activity_source = "gpm";
		} else if (g->ops->utilization && OK(g->ops->utilization(d->dev, &u))) {
			out->activity_source = "utilization";
			out->sm_active = u.gpu / 100.0;
			out->dram_active = u.memory / 100.0;
		}
		read_counters(m, d, out);
		read_levels(g->ops, d->dev, out);
		if (d->xid) {
			out->xid_events = d->xid_count;
			out->last_xid = d->last_xid;
		}
		if (m->proc)
			read_process(m, d, out);
	}
	return 0;
}
