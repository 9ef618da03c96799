/* One monitor sample as Prometheus metrics.  GPU figures keep DCGM
 * exporter's names, units and labels where they overlap (its
 * etc/default-counters.csv and dcp-metrics-included.csv, and DCGM's field
 * list, "Field Identifiers", docs.nvidia.com/datacenter/dcgm), so its
 * Grafana dashboards read them; the host's figures are gpufeed_*.  A
 * family is written only when it has a sample: a figure the machine cannot
 * give is left out, never written as 0 or NaN. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/prom.h"
#include <gpufeed/exporter.h>

/* A family, written (HELP, TYPE) before its first sample only. */
struct family {
	const char *name, *type, *help;
	bool started;
};

static void emit(FILE *f, struct family *fam, const char *const *labels, double value)
{
	if (isnan(value))
		return;
	if (!fam->started) {
		gf_prom_family(f, fam->name, fam->type, fam->help);
		fam->started = true;
	}
	gf_prom_sample(f, fam->name, labels, value);
}

static double count(uint64_t v)
{
	return v == GF_MON_NONE ? NAN : (double)v;
}

/* 0 means unknown for clocks and temperature (monitor.h). */
static double level(unsigned v)
{
	return v ? (double)v : NAN;
}

/* NVML's bus id as DCGM exporter prints it: "00000000:1B:00.0" for
 * "0000:1b:00.0" (a 32-bit domain, upper-case hex). */
static void nvml_bus_id(const char *pci, char *buf, size_t size)
{
	unsigned dom, bus, dev, fn;

	if (sscanf(pci, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(buf, size, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
	else
		snprintf(buf, size, "%s", pci);
}

/* /dev/nvidiaN from the model, matched by PCI address. */
static void device_name(const struct gf_topo *t, const char *pci, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; t && i < t->ngpus; i++)
		if (!strcasecmp(t->gpus[i].bdf, pci) && t->gpus[i].minor >= 0)
			snprintf(buf, size, "nvidia%d", t->gpus[i].minor);
}

enum gpu_fam {
	SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE, DRAM_ACTIVE, GPU_UTIL, MEM_COPY_UTIL, FB_USED, MEM_TOTAL,
	PCIE_TX, PCIE_RX, PCIE_LIMIT, NVLINK_TX, NVLINK_RX, NVLINK_LIMIT, POWER, POWER_LIMIT, SM_CLOCK,
	MEM_CLOCK, GPU_TEMP, CLOCK_EVENTS, CLOCK_EVENT, XID_LAST, XID_EVENTS, ECC_SBE, ECC_DBE, ACTIVITY_SOURCE,
	NGPU_FAM
};

static const struct family gpu_families[NGPU_FAM] = {
	[SM_ACTIVE] = { "DCGM_FI_PROF_SM_ACTIVE", "gauge",
			"The ratio of cycles an SM has at least 1 warp assigned (NVML GPM).", false },
	[SM_OCCUPANCY] = { "DCGM_FI_PROF_SM_OCCUPANCY", "gauge",
			   "The ratio of number of warps resident on an SM (NVML GPM).", false },
	[TENSOR_ACTIVE] = { "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge",
			    "Ratio of cycles the tensor (HMMA) pipe is active (NVML GPM).", false },
	[DRAM_ACTIVE] = { "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
			  "Ratio of cycles the device memory interface is active sending or receiving data (NVML GPM).",
			  false },
	[GPU_UTIL] = { "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %), where NVML GPM is not supported.",
		       false },
	[MEM_COPY_UTIL] = { "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge",
			    "Memory utilization (in %), where NVML GPM is not supported.", false },
	[FB_USED] = { "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", false },
	[MEM_TOTAL] = { "gpufeed_gpu_memory_total_bytes", "gauge", "GPU memory in all (bytes).", false },
	[PCIE_TX] = { "DCGM_FI_PROF_PCIE_TX_BYTES", "gauge",
		      "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
		      "payloads - in bytes per second.", false },
	[PCIE_RX] = { "DCGM_FI_PROF_PCIE_RX_BYTES", "gauge",
		      "The rate of data received over the PCIe bus - including both protocol headers and data "
		      "payloads - in bytes per second.", false },
	[PCIE_LIMIT] = { "gpufeed_gpu_pcie_limit_bytes_per_second", "gauge",
			 "The GPU's PCIe link limit in one direction, from the topology model (bytes/s).", false },
	[NVLINK_TX] = { "DCGM_FI_PROF_NVLINK_TX_BYTES", "gauge",
			"The rate of data transmitted over NVLink, summed over links, in bytes per second.", false },
	[NVLINK_RX] = { "DCGM_FI_PROF_NVLINK_RX_BYTES", "gauge",
			"The rate of data received over NVLink, summed over links, in bytes per second.", false },
	[NVLINK_LIMIT] = { "gpufeed_gpu_nvlink_limit_bytes_per_second", "gauge",
			   "The GPU's NVLink limit in one direction, from the topology model (bytes/s).", false },
	[POWER] = { "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", false },
	[POWER_LIMIT] = { "DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", false },
	[SM_CLOCK] = { "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", false },
	[MEM_CLOCK] = { "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", false },
	[GPU_TEMP] = { "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", false },
	[CLOCK_EVENTS] = { "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge",
			   "Current clock event reasons (bitmask of nvmlClocksEventReason bits).", false },
	[CLOCK_EVENT] = { "gpufeed_gpu_clocks_event_active", "gauge",
			  "1 for each clock event reason active now (reason label: sw_power_cap, hw_slowdown, ...).",
			  false },
	[XID_LAST] = { "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", false },
	[XID_EVENTS] = { "gpufeed_gpu_xid_events_total", "counter", "XID events seen since the exporter started.",
			 false },
	[ECC_SBE] = { "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter",
		      "Total number of single-bit volatile ECC errors.", false },
	[ECC_DBE] = { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter",
		      "Total number of double-bit volatile ECC errors.", false },
	[ACTIVITY_SOURCE] = { "gpufeed_gpu_activity_source", "gauge",
			      "1, with the source of the GPU's activity figures: gpm (NVML GPM: "
			      "DCGM_FI_PROF_*) or utilization (nvmlDeviceGetUtilizationRates: DCGM_FI_DEV_*_UTIL).",
			      false },
};

/* Each active reason of "sw_power_cap,hw_slowdown" as its own sample. */
static void clock_events(FILE *f, struct family *fam, const char *const *labels, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		char reason[64];
		const char *l[32];
		int k = 0;

		snprintf(reason, sizeof(reason), "%.*s", (int)(n < sizeof(reason) ? n : sizeof(reason) - 1), p);
		for (; labels[k]; k++)
			l[k] = labels[k];
		l[k++] = "reason";
		l[k++] = reason;
		l[k] = NULL;
		if (n)
			emit(f, fam, l, 1);
		p += n + (p[n] == ',');
	}
}

static void write_gpus(FILE *f, const struct gf_mon_sample *s, const struct gf_topo *t)
{
	struct family fam[NGPU_FAM];

	memcpy(fam, gpu_families, sizeof(fam));
	/* One family after the other, every GPU in each: the exposition format
	 * wants a family's samples together. */
	for (int k = 0; k < NGPU_FAM; k++) {
		for (unsigned i = 0; i < s->ngpus; i++) {
			const struct gf_mon_gpu *g = &s->gpus[i];
			char index[16], bus[24], dev[24];
			bool gpm = g->activity_source && !strcmp(g->activity_source, "gpm");
			bool util = g->activity_source && !strcmp(g->activity_source, "utilization");
			const char *const labels[] = { "gpu", index, "UUID", g->uuid, "pci_bus_id", bus, "device", dev,
						       "modelName", g->name, "Hostname", s->hostname, NULL };
			double v = NAN;

			snprintf(index, sizeof(index), "%d", g->index);
			nvml_bus_id(g->pci, bus, sizeof(bus));
			device_name(t, g->pci, dev, sizeof(dev));
			switch ((enum gpu_fam)k) {
			case SM_ACTIVE: v = gpm ? g->sm_active : NAN; break;
			case SM_OCCUPANCY: v = gpm ? g->sm_occupancy : NAN; break;
			case TENSOR_ACTIVE: v = gpm ? g->tensor_active : NAN; break;
			case DRAM_ACTIVE: v = gpm ? g->dram_active : NAN; break;
			case GPU_UTIL: v = util ? g->sm_active * 100 : NAN; break;
			case MEM_COPY_UTIL: v = util ? g->dram_active * 100 : NAN; break;
			case FB_USED: v = g->mem_used == GF_MON_NONE ? NAN : (double)(g->mem_used >> 20); break;
			case MEM_TOTAL: v = g->mem_total && g->mem_total != GF_MON_NONE ? (double)g->mem_total : NAN; break;
			case PCIE_TX: v = g->pcie_tx_bps; break;
			case PCIE_RX: v = g->pcie_rx_bps; break;
			case PCIE_LIMIT: v = g->pcie_limit_bps; break;
			case NVLINK_TX: v = g->nvlink_tx_bps; break;
			case NVLINK_RX: v = g->nvlink_rx_bps; break;
			case NVLINK_LIMIT: v = g->nvlink_limit_bps; break;
			case POWER: v = g->power_w; break;
			case POWER_LIMIT: v = g->power_limit_w; break;
			case SM_CLOCK: v = level(g->sm_clock_mhz); break;
			case MEM_CLOCK: v = level(g->mem_clock_mhz); break;
			case GPU_TEMP: v = level(g->temperature_c); break;
			case CLOCK_EVENTS: v = count(g->throttle_reasons); break;
			case CLOCK_EVENT: clock_events(f, &fam[k], labels, g->throttle); break;
			case XID_LAST: v = g->xid_events == GF_MON_NONE ? NAN : (double)g->last_xid; break;
			case XID_EVENTS: v = count(g->xid_events); break;
			case ECC_SBE: v = count(g->ecc_corrected); break;
			case ECC_DBE: v = count(g->ecc_uncorrected); break;
			case ACTIVITY_SOURCE: {
				const char *const l[] = { "gpu", index, "UUID", g->uuid, "source",
							  g->activity_source ? g->activity_source : "none", NULL };

				emit(f, &fam[k], l, 1);
				break;
			}
			case NGPU_FAM: break;
			}
			emit(f, &fam[k], labels, v);
		}
	}
	if (s->gpu_why) {
		struct family why = { "gpufeed_gpu_unavailable", "gauge",
				      "1 when no GPU is sampled, with the reason (NVML not available, no GPU).", false };
		const char *const l[] = { "reason", s->gpu_why, NULL };

		emit(f, &why, l, 1);
	}
}

static void write_nodes(FILE *f, const struct gf_mon_sample *s)
{
	struct family busy = { "gpufeed_numa_cpu_busy_ratio", "gauge",
			       "Share of the node's online CPUs' time not idle over the interval (/proc/stat).", false };
	struct family iowait = { "gpufeed_numa_cpu_iowait_ratio", "gauge",
				 "Share of the node's online CPUs' time in iowait over the interval (/proc/stat).", false };
	struct family total = { "gpufeed_numa_memory_total_bytes", "gauge", "The node's memory (its meminfo).", false };
	struct family mfree = { "gpufeed_numa_memory_free_bytes", "gauge", "The node's free memory (its meminfo).",
				false };
	struct family *fams[] = { &busy, &iowait, &total, &mfree };

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++)
		for (unsigned i = 0; i < s->nnodes; i++) {
			const struct gf_mon_node *n = &s->nodes[i];
			char node[16];
			const char *const l[] = { "node", node, NULL };
			double v = k == 0 ? n->cpu_busy : k == 1 ? n->cpu_iowait
					: k == 2 ? (n->mem_total ? (double)n->mem_total : NAN)
						 : (n->mem_total ? (double)n->mem_free : NAN);

			snprintf(node, sizeof(node), "%d", n->node);
			emit(f, fams[k], l, v);
		}
}

static void write_disks(FILE *f, const struct gf_mon_sample *s)
{
	struct family fams[] = {
		{ "gpufeed_disk_read_bytes_per_second", "gauge", "Bytes read per second (/proc/diskstats).", false },
		{ "gpufeed_disk_write_bytes_per_second", "gauge", "Bytes written per second (/proc/diskstats).", false },
		{ "gpufeed_disk_reads_per_second", "gauge", "Reads completed per second (/proc/diskstats).", false },
		{ "gpufeed_disk_writes_per_second", "gauge", "Writes completed per second (/proc/diskstats).", false },
		{ "gpufeed_disk_busy_ratio", "gauge", "Share of the interval with I/O in flight (iostat's %util).",
		  false },
		{ "gpufeed_disk_queue_depth", "gauge", "Average requests in flight (iostat's aqu-sz).", false },
		{ "gpufeed_disk_limit_bytes_per_second", "gauge",
		  "The device's link limit from the topology model (bytes/s).", false },
	};

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++)
		for (unsigned i = 0; i < s->ndisks; i++) {
			const struct gf_mon_disk *d = &s->disks[i];
			const char *const l[] = { "device", d->name, NULL };
			const double v[] = { d->read_bps, d->write_bps, d->read_iops, d->write_iops,
					     d->busy, d->queue, d->limit_bps };

			emit(f, &fams[k], l, v[k]);
		}
}

static void write_nics(FILE *f, const struct gf_mon_sample *s)
{
	struct family fams[] = {
		{ "gpufeed_nic_receive_bytes_per_second", "gauge",
		  "Bytes received per second (/sys/class/net statistics, or the RDMA port's counters).", false },
		{ "gpufeed_nic_transmit_bytes_per_second", "gauge",
		  "Bytes transmitted per second (/sys/class/net statistics, or the RDMA port's counters).", false },
		{ "gpufeed_nic_limit_bytes_per_second", "gauge", "The link's speed in one direction (bytes/s).", false },
	};

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++)
		for (unsigned i = 0; i < s->nnics; i++) {
			const struct gf_mon_nic *n = &s->nics[i];
			const char *const l[] = { "device", n->name, "rdma", n->rdma ? "true" : "false", NULL };
			const double v[] = { n->rx_bps, n->tx_bps, n->limit_bps };

			emit(f, &fams[k], l, v[k]);
		}
}

static void write_pagecache(FILE *f, const struct gf_mon_sample *s)
{
	const struct gf_mon_pagecache *p = &s->pagecache;
	struct family fams[] = {
		{ "gpufeed_page_cache_bytes", "gauge", "The page cache (/proc/meminfo Cached).", false },
		{ "gpufeed_page_cache_dirty_bytes", "gauge", "Dirty pages waiting for writeback (/proc/meminfo Dirty).",
		  false },
		{ "gpufeed_page_cache_writeback_bytes", "gauge", "Pages being written back (/proc/meminfo Writeback).",
		  false },
		{ "gpufeed_memory_available_bytes", "gauge", "/proc/meminfo MemAvailable.", false },
	};
	const uint64_t v[] = { p->cached, p->dirty, p->writeback, p->mem_available };

	/* All zeros: the page cache was not sampled (monitor.h). */
	if (!p->cached && !p->mem_available)
		return;
	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++)
		emit(f, &fams[k], NULL, (double)v[k]);
}

int gf_exporter_write_prom(const struct gf_mon_sample *s, const struct gf_topo *t, const struct gf_audit *a,
			   FILE *f)
{
	int ret;

	if (!s || !f)
		return GF_NULL_ARG(!s ? "s" : "f");
	write_gpus(f, s, t);
	write_nodes(f, s);
	write_disks(f, s);
	write_nics(f, s);
	write_pagecache(f, s);
	if (a && (ret = gf_audit_write_prom(a, f)))
		return ret;
	return ferror(f) ? -EIO : 0;
}
