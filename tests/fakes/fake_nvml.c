/* A stand-in libnvidia-ml.so.1 for tests: four H200s on an NVSwitch fabric,
 * like the lent GPU machines, so the live NVML path (dlopen, the ops table,
 * every query) runs in CI where there is no GPU.
 *
 * FAKE_NVML_SCENARIO picks a variation:
 *   (unset)      four GPUs at 0000:00:06.0 .. 0000:00:09.0, 18 NVLinks each
 *   init_fail    nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *   lost_gpu     GPU 2 fails nvmlDeviceGetHandleByIndex (fell off the bus)
 *   mig          GPU 0 has MIG enabled with two instances
 * FAKE_NVML_PCI: the GPUs' PCI addresses in index order, comma separated
 * (missing ones keep 0000:00:06.0 + index), so a test can make NVML's GPUs
 * PCI functions that exist (tests/numa/xfer-staging: one on each node).
 *
 * fake-soname: libnvidia-ml.so.1 */
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
	(void)d;
	*r = 1;		/* GPU idle */
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
