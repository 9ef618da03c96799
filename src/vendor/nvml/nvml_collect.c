/* Ask live NVML for the facts the model (and, in full detail, the audit)
 * needs.  Every optional query that NVML refuses leaves its field unknown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/pciaddr.h"
#include "core/strutil.h"
#include "vendor/nvml/nvml.h"
#include "vendor/nvml/nvml_facts.h"

#define OK(call) ((call) == GF_NVML_SUCCESS)

const char *gf_nvml_ancestor_name(int level)
{
	switch (level) {
	case GF_NVML_TOPOLOGY_INTERNAL:   return "INTERNAL";
	case GF_NVML_TOPOLOGY_SINGLE:     return "PIX";
	case GF_NVML_TOPOLOGY_MULTIPLE:   return "PXB";
	case GF_NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
	case GF_NVML_TOPOLOGY_NODE:       return "NODE";
	case GF_NVML_TOPOLOGY_SYSTEM:     return "SYS";
	default:                          return "";
	}
}

const char *gf_nvml_remote_type_name(int type)
{
	switch (type) {
	case GF_NVML_NVLINK_DEVICE_TYPE_GPU:    return "gpu";
	case GF_NVML_NVLINK_DEVICE_TYPE_IBMNPU: return "ibmnpu";
	case GF_NVML_NVLINK_DEVICE_TYPE_SWITCH: return "switch";
	default:                                return "unknown";
	}
}

static const char *compute_mode_name(int m)
{
	static const char *names[] = { "default", "exclusive_thread", "prohibited", "exclusive_process" };

	return m >= 0 && m < 4 ? names[m] : "unknown";
}

static const char *fabric_state_name(unsigned s)
{
	static const char *names[] = { "not_supported", "not_started", "in_progress", "completed" };

	return s < 4 ? names[s] : "unknown";
}

static const char *p2p_name(int s)
{
	static const char *names[] = { "ok", "chipset_not_supported", "gpu_not_supported",
				       "ioh_topology_not_supported", "disabled_by_regkey",
				       "not_supported", "unknown" };

	return s >= 0 && s < 7 ? names[s] : "unknown";
}

static void uint_or(gf_nvml_fn_dev_uint *fn, gf_nvml_device d, int *out)
{
	unsigned v;

	*out = -1;
	if (fn && OK(fn(d, &v)))
		*out = (int)v;
}

static void power_or(gf_nvml_fn_dev_uint *fn, gf_nvml_device d, long long *out)
{
	unsigned v;

	*out = -1;
	if (fn && OK(fn(d, &v)))
		*out = v;
}

static int collect_links(const struct gf_nvml_ops *ops, gf_nvml_device d, struct gf_nvml_gpu *g)
{
	if (!ops->nvlink_state)
		return 0;
	g->links = calloc(GF_NVML_NVLINK_MAX_LINKS, sizeof(*g->links));
	if (!g->links)
		return -ENOMEM;
	for (unsigned l = 0; l < GF_NVML_NVLINK_MAX_LINKS; l++) {
		struct gf_nvml_link *lk = &g->links[g->nlinks];
		struct gf_nvml_pci_info pi;
		int state = 0, type;
		unsigned ver;

		/* NOT_SUPPORTED / INVALID_ARGUMENT: the link does not exist. */
		if (!OK(ops->nvlink_state(d, l, &state)))
			continue;
		memset(lk, 0, sizeof(*lk));
		lk->link = (int)l;
		lk->active = state != 0;
		gf_strlcpy(lk->remote_type, "unknown", sizeof(lk->remote_type));
		if (ops->nvlink_version && OK(ops->nvlink_version(d, l, &ver)))
			lk->version = (int)ver;
		if (lk->active && ops->nvlink_remote_type && OK(ops->nvlink_remote_type(d, l, &type)))
			gf_strlcpy(lk->remote_type, gf_nvml_remote_type_name(type), sizeof(lk->remote_type));
		if (lk->active && ops->nvlink_remote_pci) {
			memset(&pi, 0, sizeof(pi));
			if (OK(ops->nvlink_remote_pci(d, l, &pi)))
				gf_pci_normalize(pi.bus_id, lk->remote_pci, sizeof(lk->remote_pci));
		}
		g->nlinks++;
	}
	return 0;
}

static int collect_mig(const struct gf_nvml_ops *ops, gf_nvml_device d, struct gf_nvml_gpu *g)
{
	unsigned cur, pend;
	int max = 0;

	g->mig_current = g->mig_pending = -1;
	if (!ops->mig_mode || !OK(ops->mig_mode(d, &cur, &pend)))
		return 0;
	g->mig_current = (int)cur;
	g->mig_pending = (int)pend;
	if (!cur || !ops->mig_by_index)
		return 0;
	uint_or(ops->max_mig_count, d, &max);
	if (max <= 0)
		return 0;
	g->mig = calloc((size_t)max, sizeof(*g->mig));
	if (!g->mig)
		return -ENOMEM;
	for (int i = 0; i < max; i++) {
		struct gf_nvml_mig *m = &g->mig[g->nmig];
		struct gf_nvml_memory mem;
		gf_nvml_device md;

		if (!OK(ops->mig_by_index(d, (unsigned)i, &md)))
			continue;	/* empty slot */
		memset(m, 0, sizeof(*m));
		if (ops->uuid)
			ops->uuid(md, m->uuid, sizeof(m->uuid));
		uint_or(ops->gpu_instance_id, md, &m->gpu_instance);
		uint_or(ops->compute_instance_id, md, &m->compute_instance);
		if (ops->memory_info && OK(ops->memory_info(md, &mem)))
			m->memory_bytes = mem.total;
		g->nmig++;
	}
	return 0;
}

static void collect_fabric(const struct gf_nvml_ops *ops, gf_nvml_device d, struct gf_nvml_gpu *g)
{
	struct gf_nvml_fabric_info_v3 v3;
	struct gf_nvml_fabric_info_v2 v2;
	const unsigned char *uuid = NULL;
	unsigned state = 0;

	if (!ops->fabric_info_v)
		return;
	memset(&v3, 0, sizeof(v3));
	v3.version = GF_NVML_STRUCT_VERSION(struct gf_nvml_fabric_info_v3, 3);
	if (OK(ops->fabric_info_v(d, &v3))) {
		state = v3.state;
		g->fabric_status = v3.status;
		g->fabric_clique = v3.clique_id;
		g->fabric_health_mask = v3.health_mask;
		uuid = v3.cluster_uuid;
	} else {
		/* Drivers before R550 know only version 2. */
		memset(&v2, 0, sizeof(v2));
		v2.version = GF_NVML_STRUCT_VERSION(struct gf_nvml_fabric_info_v2, 2);
		if (!OK(ops->fabric_info_v(d, &v2)))
			return;
		state = v2.state;
		g->fabric_status = v2.status;
		g->fabric_clique = v2.clique_id;
		g->fabric_health_mask = v2.health_mask;
		uuid = v2.cluster_uuid;
	}
	g->fabric_known = true;
	gf_strlcpy(g->fabric_state, fabric_state_name(state), sizeof(g->fabric_state));
	snprintf(g->fabric_cluster_uuid, sizeof(g->fabric_cluster_uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7],
		 uuid[8], uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
}

static void collect_audit(const struct gf_nvml_ops *ops, gf_nvml_device d, struct gf_nvml_gpu *g)
{
	int a, b;
	unsigned c1, c2, c3, c4;
	unsigned long long reasons;

	if (ops->persistence_mode && OK(ops->persistence_mode(d, &a)))
		g->persistence_mode = a;
	if (ops->compute_mode && OK(ops->compute_mode(d, &a)))
		gf_strlcpy(g->compute_mode, compute_mode_name(a), sizeof(g->compute_mode));
	if (ops->ecc_mode && OK(ops->ecc_mode(d, &a, &b))) {
		g->ecc_current = a;
		g->ecc_pending = b;
	}
	if (ops->remapped_rows && OK(ops->remapped_rows(d, &c1, &c2, &c3, &c4))) {
		g->remap_correctable = c1;
		g->remap_uncorrectable = c2;
		g->remap_pending = c3 != 0;
		g->remap_failure = c4 != 0;
	}
	if (ops->retired_pages_pending && OK(ops->retired_pages_pending(d, &a)))
		g->retired_pages_pending = a;
	if (ops->clocks_event_reasons && OK(ops->clocks_event_reasons(d, &reasons)))
		g->clocks_event_reasons = (long long)reasons;
	power_or(ops->power_limit, d, &g->power_current_mw);
	power_or(ops->power_default_limit, d, &g->power_default_mw);
	power_or(ops->power_enforced_limit, d, &g->power_enforced_mw);
	if (ops->power_limit_constraints && OK(ops->power_limit_constraints(d, &c1, &c2))) {
		g->power_min_mw = c1;
		g->power_max_mw = c2;
	}
	collect_fabric(ops, d, g);
}

static void gpu_defaults(struct gf_nvml_gpu *g)
{
	memset(g, 0, sizeof(*g));
	g->minor = g->numa_node_id = -1;
	g->pcie_cur_gen = g->pcie_cur_width = g->pcie_max_gen = g->pcie_max_width = -1;
	g->mig_current = g->mig_pending = -1;
	g->persistence_mode = g->ecc_current = g->ecc_pending = -1;
	g->remap_correctable = g->remap_uncorrectable = -1;
	g->remap_pending = g->remap_failure = g->retired_pages_pending = -1;
	g->clocks_event_reasons = -1;
	g->power_current_mw = g->power_default_mw = g->power_enforced_mw = -1;
	g->power_min_mw = g->power_max_mw = -1;
	g->fabric_status = g->fabric_clique = g->fabric_health_mask = -1;
}

static int collect_gpu(const struct gf_nvml_ops *ops, gf_nvml_device d, enum gf_nvml_detail detail,
		       struct gf_nvml_gpu *g)
{
	struct gf_nvml_pci_info pi;
	struct gf_nvml_memory mem;
	int ret;

	memset(&pi, 0, sizeof(pi));
	if (OK(ops->pci_info(d, &pi)))
		gf_pci_normalize(pi.bus_id, g->pci, sizeof(g->pci));
	if (ops->name)
		ops->name(d, g->name, sizeof(g->name));
	if (ops->uuid)
		ops->uuid(d, g->uuid, sizeof(g->uuid));
	uint_or(ops->minor_number, d, &g->minor);
	if (ops->memory_info && OK(ops->memory_info(d, &mem)))
		g->memory_bytes = mem.total;
	uint_or(ops->numa_node_id, d, &g->numa_node_id);
	if (ops->cpu_affinity &&
	    OK(ops->cpu_affinity(d, GF_CPUSET_MAX / 64, (unsigned long *)g->cpu_affinity.w)))
		g->cpu_affinity_known = !gf_cpuset_empty(&g->cpu_affinity);
	if (ops->memory_affinity &&
	    OK(ops->memory_affinity(d, GF_CPUSET_MAX / 64, (unsigned long *)g->memory_affinity.w,
				    GF_NVML_AFFINITY_SCOPE_NODE)))
		g->memory_affinity_known = !gf_cpuset_empty(&g->memory_affinity);
	uint_or(ops->curr_pcie_gen, d, &g->pcie_cur_gen);
	uint_or(ops->curr_pcie_width, d, &g->pcie_cur_width);
	uint_or(ops->max_pcie_gen, d, &g->pcie_max_gen);
	uint_or(ops->max_pcie_width, d, &g->pcie_max_width);
	if ((ret = collect_links(ops, d, g)) || (ret = collect_mig(ops, d, g)))
		return ret;
	if (detail == GF_NVML_FULL)
		collect_audit(ops, d, g);
	return 0;
}

static int collect_pairs(const struct gf_nvml_ops *ops, gf_nvml_device *devs, int n,
			 enum gf_nvml_detail detail, struct gf_nvml_facts *f)
{
	if (n < 2 || !ops->common_ancestor)
		return 0;
	f->pairs = calloc((size_t)(n * (n - 1) / 2), sizeof(*f->pairs));
	if (!f->pairs)
		return -ENOMEM;
	for (int a = 0; a < n; a++) {
		for (int b = a + 1; b < n; b++) {
			struct gf_nvml_pair *p = &f->pairs[f->npairs++];
			int level, st;

			p->a = f->gpus[a].index;
			p->b = f->gpus[b].index;
			if (OK(ops->common_ancestor(devs[a], devs[b], &level)))
				gf_strlcpy(p->common_ancestor, gf_nvml_ancestor_name(level),
					   sizeof(p->common_ancestor));
			if (detail != GF_NVML_FULL || !ops->p2p_status)
				continue;
			if (OK(ops->p2p_status(devs[a], devs[b], GF_NVML_P2P_CAPS_INDEX_READ, &st)))
				gf_strlcpy(p->p2p_read, p2p_name(st), sizeof(p->p2p_read));
			if (OK(ops->p2p_status(devs[a], devs[b], GF_NVML_P2P_CAPS_INDEX_NVLINK, &st)))
				gf_strlcpy(p->p2p_nvlink, p2p_name(st), sizeof(p->p2p_nvlink));
		}
	}
	return 0;
}

int gf_nvml_collect(enum gf_nvml_detail detail, struct gf_nvml_facts **out, char *why, size_t whysize)
{
	const struct gf_nvml_ops *ops;
	struct gf_nvml_facts *f = NULL;
	gf_nvml_device *devs = NULL;
	unsigned count = 0;
	gf_nvml_return r;
	int ret;

	*out = NULL;
	if ((ret = gf_nvml_load(&ops, why, whysize)))
		return ret;
	r = ops->init();
	if (!OK(r)) {
		snprintf(why, whysize, "nvmlInit failed: %s", gf_nvml_strerror(ops, r));
		return gf_error(-ENODEV, "NVML not available: %s", why);
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		ret = gf_error(-ENOMEM, "NVML: out of memory");
		goto out;
	}
	if (ops->system_driver_version)
		ops->system_driver_version(f->driver_version, sizeof(f->driver_version));
	if (ops->system_nvml_version)
		ops->system_nvml_version(f->nvml_version, sizeof(f->nvml_version));
	if (ops->system_cuda_version)
		ops->system_cuda_version(&f->cuda_driver_version);
	r = ops->device_count(&count);
	if (!OK(r)) {
		snprintf(why, whysize, "nvmlDeviceGetCount failed: %s", gf_nvml_strerror(ops, r));
		ret = gf_error(-ENODEV, "NVML: %s", why);
		goto out;
	}
	if (count) {
		f->gpus = calloc(count, sizeof(*f->gpus));
		devs = calloc(count, sizeof(*devs));
		if (!f->gpus || !devs) {
			ret = gf_error(-ENOMEM, "NVML: out of memory");
			goto out;
		}
	}
	for (unsigned i = 0; i < count; i++) {
		struct gf_nvml_gpu *g = &f->gpus[f->ngpus];

		gpu_defaults(g);
		r = ops->device_by_index(i, &devs[f->ngpus]);
		if (!OK(r)) {
			/* A GPU that fell off the bus must not hide the others. */
			continue;
		}
		g->index = (int)i;
		f->ngpus++;
		if ((ret = collect_gpu(ops, devs[f->ngpus - 1], detail, g))) {
			ret = gf_error(ret, "NVML: out of memory");
			goto out;
		}
	}
	if ((ret = collect_pairs(ops, devs, f->ngpus, detail, f)))
		ret = gf_error(ret, "NVML: out of memory");
out:
	free(devs);
	ops->shutdown();
	if (ret) {
		gf_nvml_facts_free(f);
		return ret;
	}
	*out = f;
	return 0;
}
