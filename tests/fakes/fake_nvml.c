/* A stand-in libnvidia-ml.so.1 for tests: four H200s on an NVSwitch fabric,
 * like the lent GPU machines, so the live NVML path (dlopen, the ops table,
 * every query) runs in CI where there is no GPU.
 *
 * FAKE_NVML_SCENARIO picks a variation (no_gpm and no_fields combine:
 * "no_gpm,no_fields"):
 *   (unset)      four GPUs at 0000:00:06.0 .. 0000:00:09.0, 18 NVLinks each
 *   init_fail    nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *   lost_gpu     GPU 2 fails nvmlDeviceGetHandleByIndex (fell off the bus)
 *   mig          GPU 0 has MIG enabled with two instances
 *   no_gpm       nvmlGpmQueryDeviceSupport says no (a GPU before Hopper)
 *   no_gpm_metrics  GPM is supported but nvmlGpmMetricsGet fails
 *   no_fields    nvmlDeviceGetFieldValues answers NOT_SUPPORTED (no PCIe
 *                or NVLink byte counters: an older driver)
 * FAKE_NVML_PCI: the GPUs' PCI addresses in index order, comma separated
 * (missing ones keep 0000:00:06.0 + index), so a test can make NVML's GPUs
 * PCI functions that exist (tests/numa/xfer-staging: one on each node).
 *
 * What the monitor samples, the same on every GPU unless said, each read at
 * the call so a test changes it between two samples:
 *   FAKE_NVML_GPM       "sm,occupancy,tensor,dram,pcie_rx,pcie_tx,nvlink_rx,
 *                       nvlink_tx": GPM's percentages and MiB/s
 *                       (default 50,25,10,40,1000,2000,3000,4000)
 *   FAKE_NVML_UTIL      "gpu,memory" percent (default 35,20)
 *   FAKE_NVML_COUNTERS  "pcie_tx,pcie_rx,nvlink_tx,nvlink_rx": the byte
 *                       counters (PCIe bytes, NVLink KiB; default 0,0,0,0)
 *   FAKE_NVML_PCIE_KBS  "tx,rx": nvmlDeviceGetPcieThroughput, KB/s (100,200)
 *   FAKE_NVML_THROTTLE  the clocks event reasons mask (default 1, idle)
 *   FAKE_NVML_XID       "gpu:xid,...": XID events, each delivered once after
 *                       nvmlEventSetCreate
 *   FAKE_NVML_PROCS     "pid:gpu:sm:bytes,...": compute processes, their SM
 *                       utilisation (percent) and GPU memory
 * Fixed: 350 W drawn, clocks SM 1980 / memory 3201 MHz, 41 C, volatile ECC
 * 0 corrected (GPU 3: 5) and 0 uncorrected.
 *
 * fake-soname: libnvidia-ml.so.1 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendor/nvml/nvml_api.h"

#define NGPU 4
#define NLINK 18

struct fake_dev {
	int index;		/* >= 100: MIG device of GPU index-100 */
	int mig_slot;
};

static struct fake_dev gpus[NGPU] = { { 0, -1 }, { 1, -1 }, { 2, -1 }, { 3, -1 } };
static struct fake_dev migs[2] = { { 100, 0 }, { 100, 1 } };

static const char *scenario(void)
{
	const char *s = getenv("FAKE_NVML_SCENARIO");

	return s ? s : "";
}

/* One of the variations FAKE_NVML_SCENARIO lists (comma separated). */
static int scenario_has(const char *name)
{
	const char *s = scenario();
	size_t n = strlen(name);

	for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == ',' || s[n] == '\0'))
			return 1;
	return 0;
}

static struct fake_dev *dev(gf_nvml_device d)
{
	return (struct fake_dev *)d;
}

static int is_mig(gf_nvml_device d)
{
	return dev(d)->index >= 100;
}

gf_nvml_return nvmlInit_v2(void)
{
	return strcmp(scenario(), "init_fail") ? GF_NVML_SUCCESS : GF_NVML_ERROR_DRIVER_NOT_LOADED;
}

gf_nvml_return nvmlShutdown(void)
{
	return GF_NVML_SUCCESS;
}

const char *nvmlErrorString(gf_nvml_return r)
{
	switch (r) {
	case GF_NVML_SUCCESS: return "Success";
	case GF_NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case GF_NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case GF_NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	default: return "Unknown Error";
	}
}

gf_nvml_return nvmlSystemGetDriverVersion(char *v, unsigned len)
{
	snprintf(v, len, "580.159.04");
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlSystemGetNVMLVersion(char *v, unsigned len)
{
	snprintf(v, len, "13.580.159.04");
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	*v = 13000;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = NGPU;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetHandleByIndex_v2(unsigned i, gf_nvml_device *d)
{
	if (i >= NGPU)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	if (i == 2 && !strcmp(scenario(), "lost_gpu"))
		return GF_NVML_ERROR_GPU_IS_LOST;
	*d = (gf_nvml_device)&gpus[i];
	return GF_NVML_SUCCESS;
}

static void fill_pci(struct gf_nvml_pci_info *p, unsigned bus, unsigned devno)
{
	memset(p, 0, sizeof(*p));
	p->domain = 0;
	p->bus = bus;
	p->device = devno;
	p->pci_device_id = 0x233510de;
	snprintf(p->bus_id, sizeof(p->bus_id), "%08X:%02X:%02X.0", 0u, bus, devno);
	snprintf(p->bus_id_legacy, sizeof(p->bus_id_legacy), "%04X:%02X:%02X.0", 0u, bus, devno);
}

gf_nvml_return nvmlDeviceGetPciInfo_v3(gf_nvml_device d, struct gf_nvml_pci_info *p)
{
	const char *list = getenv("FAKE_NVML_PCI");
	unsigned dom = 0, bus = 0, devno = 0, fn = 0;

	for (int i = 0; list && *list && i < dev(d)->index; i++) {
		list = strchr(list, ',');
		list = list ? list + 1 : NULL;
	}
	if (list && sscanf(list, "%x:%x:%x.%x", &dom, &bus, &devno, &fn) == 4 && dom == 0)
		fill_pci(p, bus, devno);
	else
		fill_pci(p, 0, 6 + (unsigned)dev(d)->index);
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetName(gf_nvml_device d, char *n, unsigned len)
{
	snprintf(n, len, is_mig(d) ? "NVIDIA H200 MIG 3g.71gb" : "NVIDIA H200");
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetUUID(gf_nvml_device d, char *u, unsigned len)
{
	if (is_mig(d))
		snprintf(u, len, "MIG-00000000-0000-0000-0000-00000000000%d", dev(d)->mig_slot);
	else
		snprintf(u, len, "GPU-00000000-0000-0000-0000-00000000000%d", dev(d)->index);
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMemoryInfo(gf_nvml_device d, struct gf_nvml_memory *m)
{
	m->total = is_mig(d) ? 71ull << 30 : 150754820096ull;
	m->free = m->total;
	m->used = 0;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMinorNumber(gf_nvml_device d, unsigned *minor)
{
	/* Minor numbers need not follow the index. */
	static const unsigned minors[NGPU] = { 0, 1, 3, 2 };

	*minor = minors[dev(d)->index];
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetCpuAffinity(gf_nvml_device d, unsigned n, unsigned long *set)
{
	(void)d;
	memset(set, 0, n * sizeof(*set));
	set[0] = ~0ul;	/* CPUs 0-63 */
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMemoryAffinity(gf_nvml_device d, unsigned n, unsigned long *set, unsigned scope)
{
	(void)d;
	(void)scope;
	memset(set, 0, n * sizeof(*set));
	set[0] = 1;	/* node 0 */
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetNumaNodeId(gf_nvml_device d, unsigned *node)
{
	(void)d;
	(void)node;
	return GF_NVML_ERROR_NOT_SUPPORTED;
}

static gf_nvml_return five(gf_nvml_device d, unsigned *v)
{
	(void)d;
	*v = 5;
	return GF_NVML_SUCCESS;
}

static gf_nvml_return sixteen(gf_nvml_device d, unsigned *v)
{
	(void)d;
	*v = 16;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetCurrPcieLinkGeneration(gf_nvml_device d, unsigned *v) { return five(d, v); }
gf_nvml_return nvmlDeviceGetMaxPcieLinkGeneration(gf_nvml_device d, unsigned *v) { return five(d, v); }
gf_nvml_return nvmlDeviceGetCurrPcieLinkWidth(gf_nvml_device d, unsigned *v) { return sixteen(d, v); }
gf_nvml_return nvmlDeviceGetMaxPcieLinkWidth(gf_nvml_device d, unsigned *v) { return sixteen(d, v); }

gf_nvml_return nvmlDeviceGetNvLinkState(gf_nvml_device d, unsigned link, int *active)
{
	(void)d;
	if (link >= NLINK)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	*active = 1;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetNvLinkVersion(gf_nvml_device d, unsigned link, unsigned *v)
{
	(void)d;
	if (link >= NLINK)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	*v = 6;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetNvLinkRemoteDeviceType(gf_nvml_device d, unsigned link, int *type)
{
	(void)d;
	(void)link;
	*type = GF_NVML_NVLINK_DEVICE_TYPE_SWITCH;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetNvLinkRemotePciInfo_v2(gf_nvml_device d, unsigned link, struct gf_nvml_pci_info *p)
{
	(void)d;
	/* Four switches, invisible in the VM, links spread over them. */
	fill_pci(p, 0x80 + link % 4, 0);
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMigMode(gf_nvml_device d, unsigned *cur, unsigned *pend)
{
	*cur = *pend = (!strcmp(scenario(), "mig") && dev(d)->index == 0);
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMaxMigDeviceCount(gf_nvml_device d, unsigned *n)
{
	(void)d;
	*n = 7;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetMigDeviceHandleByIndex(gf_nvml_device d, unsigned i, gf_nvml_device *m)
{
	if (dev(d)->index != 0 || i >= 2)
		return GF_NVML_ERROR_NOT_FOUND;
	*m = (gf_nvml_device)&migs[i];
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetGpuInstanceId(gf_nvml_device d, unsigned *id)
{
	*id = 1 + (unsigned)dev(d)->mig_slot;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetComputeInstanceId(gf_nvml_device d, unsigned *id)
{
	(void)d;
	*id = 0;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetTopologyCommonAncestor(gf_nvml_device a, gf_nvml_device b, int *level)
{
	(void)a;
	(void)b;
	*level = GF_NVML_TOPOLOGY_HOSTBRIDGE;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetP2PStatus(gf_nvml_device a, gf_nvml_device b, int idx, int *status)
{
	(void)a;
	(void)b;
	(void)idx;
	*status = GF_NVML_P2P_STATUS_OK;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetPersistenceMode(gf_nvml_device d, int *m)
{
	(void)d;
	*m = 1;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetComputeMode(gf_nvml_device d, int *m)
{
	(void)d;
	*m = 0;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetEccMode(gf_nvml_device d, int *cur, int *pend)
{
	(void)d;
	*cur = *pend = 1;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetRemappedRows(gf_nvml_device d, unsigned *c, unsigned *u, unsigned *p, unsigned *f)
{
	*c = dev(d)->index == 3 ? 2 : 0;
	*u = 0;
	*p = 0;
	*f = 0;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetRetiredPagesPendingStatus(gf_nvml_device d, int *p)
{
	(void)d;
	(void)p;
	return GF_NVML_ERROR_NOT_SUPPORTED;	/* Hopper remaps rows instead */
}

gf_nvml_return nvmlDeviceGetCurrentClocksEventReasons(gf_nvml_device d, unsigned long long *r)
{
	const char *mask = getenv("FAKE_NVML_THROTTLE");

	(void)d;
	*r = mask ? strtoull(mask, NULL, 0) : 1;	/* GPU idle */
	return GF_NVML_SUCCESS;
}

static gf_nvml_return watts700(gf_nvml_device d, unsigned *mw)
{
	(void)d;
	*mw = 700000;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetPowerManagementLimit(gf_nvml_device d, unsigned *mw) { return watts700(d, mw); }
gf_nvml_return nvmlDeviceGetPowerManagementDefaultLimit(gf_nvml_device d, unsigned *mw) { return watts700(d, mw); }
gf_nvml_return nvmlDeviceGetEnforcedPowerLimit(gf_nvml_device d, unsigned *mw) { return watts700(d, mw); }

gf_nvml_return nvmlDeviceGetPowerManagementLimitConstraints(gf_nvml_device d, unsigned *lo, unsigned *hi)
{
	(void)d;
	*lo = 200000;
	*hi = 700000;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetGpuFabricInfoV(gf_nvml_device d, void *info)
{
	struct gf_nvml_fabric_info_v3 *v3 = info;

	(void)d;
	/* Behave like an R535 driver: only version 2 is known. */
	if (v3->version != GF_NVML_STRUCT_VERSION(struct gf_nvml_fabric_info_v2, 2))
		return GF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	{
		struct gf_nvml_fabric_info_v2 *v2 = info;

		memset(v2->cluster_uuid, 0xab, sizeof(v2->cluster_uuid));
		v2->status = 0;
		v2->clique_id = 7;
		v2->state = GF_NVML_GPU_FABRIC_STATE_COMPLETED;
		v2->health_mask = 0;
	}
	return GF_NVML_SUCCESS;
}

/* ---- what the monitor samples ---- */

/* Up to n comma-separated numbers of variable var, else the defaults. */
static void numbers(const char *var, double *v, int n, const double *defaults)
{
	const char *s = getenv(var);

	for (int i = 0; i < n; i++) {
		char *end;

		v[i] = defaults[i];
		if (s && *s) {
			v[i] = strtod(s, &end);
			s = *end == ',' ? end + 1 : NULL;
		}
	}
}

gf_nvml_return nvmlDeviceGetUtilizationRates(gf_nvml_device d, struct gf_nvml_utilization *u)
{
	static const double def[2] = { 35, 20 };
	double v[2];

	(void)d;
	numbers("FAKE_NVML_UTIL", v, 2, def);
	u->gpu = (unsigned)v[0];
	u->memory = (unsigned)v[1];
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetPcieThroughput(gf_nvml_device d, int counter, unsigned *value)
{
	static const double def[2] = { 100, 200 };
	double v[2];

	(void)d;
	if (counter != GF_NVML_PCIE_UTIL_TX_BYTES && counter != GF_NVML_PCIE_UTIL_RX_BYTES)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	numbers("FAKE_NVML_PCIE_KBS", v, 2, def);
	*value = (unsigned)v[counter == GF_NVML_PCIE_UTIL_TX_BYTES ? 0 : 1];
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetFieldValues(gf_nvml_device d, int n, struct gf_nvml_field_value *f)
{
	static const double def[4] = { 0, 0, 0, 0 };
	double v[4];

	(void)d;
	if (n < 0 || !f)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	numbers("FAKE_NVML_COUNTERS", v, 4, def);
	for (int i = 0; i < n; i++) {
		int k = -1;

		switch (f[i].field_id) {
		case GF_NVML_FI_DEV_PCIE_COUNT_TX_BYTES: k = 0; break;
		case GF_NVML_FI_DEV_PCIE_COUNT_RX_BYTES: k = 1; break;
		case GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX: k = 2; break;
		case GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX: k = 3; break;
		}
		/* The NVLink counters are summed over links only for UINT_MAX. */
		if (k < 0 || scenario_has("no_fields") || (k >= 2 && f[i].scope_id != UINT_MAX)) {
			f[i].nvml_return = GF_NVML_ERROR_NOT_SUPPORTED;
			continue;
		}
		f[i].nvml_return = GF_NVML_SUCCESS;
		f[i].value_type = GF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
		f[i].value.ull_val = (unsigned long long)v[k];
	}
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetPowerUsage(gf_nvml_device d, unsigned *mw)
{
	(void)d;
	*mw = 350000;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetClockInfo(gf_nvml_device d, int type, unsigned *mhz)
{
	(void)d;
	if (type == GF_NVML_CLOCK_SM || type == GF_NVML_CLOCK_GRAPHICS)
		*mhz = 1980;
	else if (type == GF_NVML_CLOCK_MEM)
		*mhz = 3201;
	else
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetTemperature(gf_nvml_device d, int sensor, unsigned *c)
{
	(void)d;
	if (sensor != GF_NVML_TEMPERATURE_GPU)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	*c = 41;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetTotalEccErrors(gf_nvml_device d, int type, int counter, unsigned long long *n)
{
	if (counter != GF_NVML_VOLATILE_ECC)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	*n = type == GF_NVML_MEMORY_ERROR_TYPE_CORRECTED && dev(d)->index == 3 ? 5 : 0;
	return GF_NVML_SUCCESS;
}

/* ---- events: FAKE_NVML_XID, each once per event set ---- */

struct gf_nvml_event_set_st {
	int delivered;
	unsigned registered;	/* GPU index bits */
};

gf_nvml_return nvmlEventSetCreate(gf_nvml_event_set *set)
{
	*set = calloc(1, sizeof(**set));
	return *set ? GF_NVML_SUCCESS : GF_NVML_ERROR_UNKNOWN;
}

gf_nvml_return nvmlDeviceGetSupportedEventTypes(gf_nvml_device d, unsigned long long *types)
{
	(void)d;
	*types = GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceRegisterEvents(gf_nvml_device d, unsigned long long types, gf_nvml_event_set set)
{
	if (!set || types != GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	set->registered |= 1u << dev(d)->index;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlEventSetWait_v2(gf_nvml_event_set set, struct gf_nvml_event_data *data, unsigned timeout_ms)
{
	const char *s = getenv("FAKE_NVML_XID");
	int i = 0;

	(void)timeout_ms;	/* never waits: the events are all there */
	for (; s && *s; i++) {
		unsigned gpu, xid;

		if (sscanf(s, "%u:%u", &gpu, &xid) != 2 || gpu >= NGPU)
			break;
		if (i == set->delivered) {
			set->delivered++;
			if (!(set->registered & (1u << gpu)))
				goto next;	/* not asked for: dropped */
			memset(data, 0, sizeof(*data));
			data->device = (gf_nvml_device)&gpus[gpu];
			data->event_type = GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR;
			data->event_data = xid;
			data->gpu_instance_id = data->compute_instance_id = 0xFFFFFFFFu;
			return GF_NVML_SUCCESS;
		}
next:
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return GF_NVML_ERROR_TIMEOUT;
}

gf_nvml_return nvmlEventSetFree(gf_nvml_event_set set)
{
	free(set);
	return GF_NVML_SUCCESS;
}

/* ---- processes: FAKE_NVML_PROCS ---- */

struct fake_proc {
	unsigned pid, gpu, sm;
	unsigned long long bytes;
};

/* The n'th process of FAKE_NVML_PROCS on GPU d, 0 when there is none. */
static int proc_at(gf_nvml_device d, unsigned n, struct fake_proc *p)
{
	const char *s = getenv("FAKE_NVML_PROCS");

	while (s && *s) {
		if (sscanf(s, "%u:%u:%u:%llu", &p->pid, &p->gpu, &p->sm, &p->bytes) == 4 &&
		    p->gpu == (unsigned)dev(d)->index && n-- == 0)
			return 1;
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return 0;
}

gf_nvml_return nvmlDeviceGetProcessUtilization(gf_nvml_device d, struct gf_nvml_process_util *u, unsigned *count,
					       unsigned long long last_seen)
{
	struct fake_proc p;
	unsigned n = 0;

	while (proc_at(d, n, &p))
		n++;
	/* One driver period at t = 1000 us; nothing newer after that. */
	if (!n || last_seen >= 1000)
		return GF_NVML_ERROR_NOT_FOUND;
	if (!u || *count < n) {
		*count = n;
		return GF_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < n; i++) {
		proc_at(d, i, &p);
		memset(&u[i], 0, sizeof(u[i]));
		u[i].pid = p.pid;
		u[i].time_stamp = 1000;
		u[i].sm_util = p.sm;
	}
	*count = n;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlDeviceGetComputeRunningProcesses_v3(gf_nvml_device d, unsigned *count,
						       struct gf_nvml_process_info *info)
{
	struct fake_proc p;
	unsigned n = 0;

	while (proc_at(d, n, &p))
		n++;
	if (*count < n) {
		*count = n;
		return GF_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < n; i++) {
		proc_at(d, i, &p);
		info[i].pid = p.pid;
		info[i].used_gpu_memory = p.bytes;
		info[i].gpu_instance_id = info[i].compute_instance_id = 0xFFFFFFFFu;
	}
	*count = n;
	return GF_NVML_SUCCESS;
}

/* ---- GPM: FAKE_NVML_GPM ---- */

struct gf_nvml_gpm_sample_st {
	int taken;
};

gf_nvml_return nvmlGpmQueryDeviceSupport(gf_nvml_device d, struct gf_nvml_gpm_support *sup)
{
	(void)d;
	if (sup->version != GF_NVML_GPM_SUPPORT_VERSION)
		return GF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	sup->is_supported_device = !scenario_has("no_gpm");
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlGpmSampleAlloc(gf_nvml_gpm_sample *s)
{
	*s = calloc(1, sizeof(**s));
	return *s ? GF_NVML_SUCCESS : GF_NVML_ERROR_UNKNOWN;
}

gf_nvml_return nvmlGpmSampleFree(gf_nvml_gpm_sample s)
{
	free(s);
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlGpmSampleGet(gf_nvml_device d, gf_nvml_gpm_sample s)
{
	(void)d;
	if (!s)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	s->taken = 1;
	return GF_NVML_SUCCESS;
}

gf_nvml_return nvmlGpmMetricsGet(struct gf_nvml_gpm_metrics_get *g)
{
	static const double def[8] = { 50, 25, 10, 40, 1000, 2000, 3000, 4000 };
	static const unsigned ids[8] = {
		GF_NVML_GPM_METRIC_SM_UTIL, GF_NVML_GPM_METRIC_SM_OCCUPANCY, GF_NVML_GPM_METRIC_ANY_TENSOR_UTIL,
		GF_NVML_GPM_METRIC_DRAM_BW_UTIL, GF_NVML_GPM_METRIC_PCIE_RX_PER_SEC,
		GF_NVML_GPM_METRIC_PCIE_TX_PER_SEC, GF_NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
		GF_NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC,
	};
	double v[8];

	if (g->version != GF_NVML_GPM_METRICS_GET_VERSION)
		return GF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (scenario_has("no_gpm_metrics"))
		return GF_NVML_ERROR_UNKNOWN;
	/* Two distinct samples, both taken, as NVML requires. */
	if (!g->sample1 || !g->sample2 || g->sample1 == g->sample2 || !g->sample1->taken || !g->sample2->taken ||
	    g->num_metrics > GF_NVML_GPM_METRIC_MAX)
		return GF_NVML_ERROR_INVALID_ARGUMENT;
	numbers("FAKE_NVML_GPM", v, 8, def);
	for (unsigned i = 0; i < g->num_metrics; i++) {
		g->metrics[i].nvml_return = GF_NVML_ERROR_NOT_SUPPORTED;
		for (int k = 0; k < 8; k++) {
			if (g->metrics[i].metric_id == ids[k]) {
				g->metrics[i].nvml_return = GF_NVML_SUCCESS;
				g->metrics[i].value = v[k];
			}
		}
	}
	return GF_NVML_SUCCESS;
}
