/* The model on recorded and constructed machines: facts a reader can check
 * against the machine's source (`nvidia-smi topo -m`'s table of the host a fixture reproduces, the fixtures'
 * READMEs), not outputs copied from the tool. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <gpufeed/gpufeed.h>
#include "emit/emit_internal.h"
#include "topo/locality.h"
#include "topo/render.h"
#include "vendor/nvml/nvml_facts.h"

/* Options as a caller builds them: GF_TOPO_OPTS_INIT, then its fields. */
#define TOPO_OPTS(...) { .struct_size = sizeof(struct gf_topo_options), __VA_ARGS__ }

static struct gf_topo *load(const char *machine, const char *locality)
{
	struct gf_topo_options o = TOPO_OPTS(.root = t_fixture_root(machine), .pci_locality = locality);
	struct gf_topo *t = NULL;
	int ret = gf_topo_discover(&o, &t);

	if (ret)
		fail_msg("%s: %s", machine, gf_last_error());
	return t;
}

static const char *link_at(const struct gf_topo *t, const char *a, const char *b)
{
	static char buf[16];
	int i = -1, j = -1;

	for (int k = 0; k < t->matrix.n; k++) {
		if (!strcmp(t->matrix.dev[k].name, a))
			i = k;
		if (!strcmp(t->matrix.dev[k].name, b))
			j = k;
	}
	assert_true(i >= 0 && j >= 0);
	gf_link_format(gf_matrix_at(&t->matrix, i, j), buf, sizeof(buf));
	return buf;
}

static const char *cpus_of(const struct gf_cpuset *s)
{
	static char buf[512];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return buf;
}

static const struct gf_finding *finding(const struct gf_topo *t, const char *id, const char *subject)
{
	for (int i = 0; i < t->nfindings; i++)
		if (!strcmp(t->findings[i].id, id) && (!subject || !strcmp(t->findings[i].subject, subject)))
			return &t->findings[i];
	return NULL;
}

static const struct gf_path *path(const struct gf_topo *t, enum gf_path_kind kind, const char *a,
				  const char *b)
{
	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];

		if (p->kind != kind || strcmp(t->matrix.dev[p->to].name, b))
			continue;
		if (kind == GF_PATH_HOST_GPU || !strcmp(t->matrix.dev[p->from].name, a))
			return p;
	}
	fail_msg("no path %s -> %s", a ? a : "host", b);
	return NULL;
}

/* `nvidia-smi topo -m` of a dual-socket 8-GPU host with GPU pairs under PCIe switches. */
static const char *nvsmi_dual8[8][8] = {
	{ "X", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS" },
	{ "PIX", "X", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS" },
	{ "NODE", "NODE", "X", "PIX", "SYS", "SYS", "SYS", "SYS" },
	{ "NODE", "NODE", "PIX", "X", "SYS", "SYS", "SYS", "SYS" },
	{ "SYS", "SYS", "SYS", "SYS", "X", "PIX", "NODE", "NODE" },
	{ "SYS", "SYS", "SYS", "SYS", "PIX", "X", "NODE", "NODE" },
	{ "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "X", "PIX" },
	{ "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "PIX", "X" },
};

static void dual_socket_matches_seed_table(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", NULL);
	char a[8], b[8];

	(void)state;
	assert_int_equal(t->ngpus, 8);
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 8; j++) {
			snprintf(a, sizeof(a), "GPU%d", i);
			snprintf(b, sizeof(b), "GPU%d", j);
			assert_string_equal(link_at(t, a, b), nvsmi_dual8[i][j]);
		}
		assert_string_equal(cpus_of(&t->gpus[i].cpus), i < 4 ? "0-31,64-95" : "32-63,96-127");
		assert_int_equal(t->gpus[i].numa_node, i < 4 ? 0 : 1);
		assert_int_equal(t->gpus[i].numa_source, GF_SRC_SYSFS);
		/* No NVML: index by PCI order, minor from /proc/driver/nvidia. */
		assert_int_equal(t->gpus[i].index_source, GF_SRC_PCI_ORDER);
		assert_int_equal(t->gpus[i].minor_source, GF_SRC_PROCFS);
		assert_int_equal(t->gpus[i].nvlinks_active, -1);
		assert_string_equal(t->gpus[i].name, "NVIDIA A100 80GB PCIe");
	}
	assert_false(t->machine.nvml);
	assert_int_equal(t->cpus.ncpu, 128);
	assert_int_equal(t->cpus.npackages, 2);
	assert_int_equal(t->cpus.ncores, 64);
	assert_int_equal(t->cpus.threads_per_core, 2);
	assert_int_equal(t->cpus.cpu[64].smt_rank, 1);	/* cpu64 is cpu0's sibling */
	assert_int_equal(t->cpus.cpu[64].core, t->cpus.cpu[0].core);
	assert_int_equal(t->cpus.nl3, 2);
	assert_int_equal(t->numa.nnodes, 2);
	assert_int_equal(t->numa.node[0].distance[1], 21);
	/* nvidia-smi's columns exactly: GPUs, then the RDMA devices (mlx5_0 =
	 * NIC0, mlx5_1 = NIC1); the onboard eno1/eno2 come after, by name. */
	assert_int_equal(t->matrix.nsmi, 10);
	for (int i = 0; i < 10; i++) {
		snprintf(a, sizeof(a), i < 8 ? "GPU%d" : "NIC%d", i < 8 ? i : i - 8);
		assert_string_equal(t->matrix.dev[i].name, a);
	}
	assert_string_equal(t->nics[t->matrix.dev[8].ref].rdma, "mlx5_0");
	assert_string_equal(t->nics[t->matrix.dev[9].ref].rdma, "mlx5_1");
	assert_string_equal(t->nics[0].label, "eno1");
	assert_string_equal(t->nics[1].label, "eno2");
	assert_string_equal(t->matrix.dev[10].name, "eno1");
	/* GPU and NIC on one switch: PIX; the book's 400G-behind-Gen4 case. */
	assert_string_equal(link_at(t, "GPU0", "NIC0"), "PIX");
	assert_non_null(finding(t, "topo.nic-pcie-capped", "NIC1"));
	assert_non_null(finding(t, "topo.pcie-width-degraded", "GPU5"));
	assert_int_equal(gf_topo_finding_count(t, GF_SEV_WARN), 2);
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU0")->gb_per_s - 31.5) < 0.05);
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU5")->gb_per_s - 15.75) < 0.05);
	assert_true(fabs(path(t, GF_PATH_GPU_NIC, "GPU4", "NIC1")->gb_per_s - 31.5) < 0.05);
	assert_int_equal(path(t, GF_PATH_GPU_NIC, "GPU4", "NIC1")->limit, GF_LIMIT_PCIE);
	assert_int_equal(path(t, GF_PATH_GPU_NIC, "GPU0", "NIC0")->limit, GF_LIMIT_NIC);
	assert_true(path(t, GF_PATH_GPU_GPU, "GPU0", "GPU4")->crosses_cpu_link);
	/* eno2 is down: its paths have no figure (it was the 3.9 GB/s of its
	 * Gen3 x4 link), and say so. */
	for (int i = 0; i < 8; i++) {
		const struct gf_path *p;

		snprintf(a, sizeof(a), "GPU%d", i);
		p = path(t, GF_PATH_GPU_NIC, a, "eno2");
		assert_int_equal(p->limit, GF_LIMIT_DOWN);
		assert_true(p->gb_per_s == 0);
		assert_non_null(strstr(p->limit_text, "eno2 is down"));
	}
	/* The onboard NIC's node is unknown on a 2-node machine. */
	assert_int_equal(t->nics[0].numa_node, -1);
	assert_int_equal(t->nwarnings, 0);
	gf_topo_free(t);
}

static void hgx_nvswitch_all_nv18(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", NULL);
	char a[8], b[8];

	(void)state;
	assert_true(t->machine.nvml);
	assert_int_equal(t->ngpus, 8);
	assert_int_equal(t->nvswitches, 4);
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 8; j++) {
			snprintf(a, sizeof(a), "GPU%d", i);
			snprintf(b, sizeof(b), "GPU%d", j);
			assert_string_equal(link_at(t, a, b), i == j ? "X" : "NV18");
		}
		assert_int_equal(t->gpus[i].nvswitch_links, 18);
		assert_int_equal(t->gpus[i].index_source, GF_SRC_NVML);
		assert_int_equal(t->gpus[i].memory_bytes, 85520809984ull);
	}
	/* Each GPU shares a switch with its own NIC: mlx5_N is NICN as in
	 * nvidia-smi, though mlx5_8 and mlx5_9 come first in PCI order. */
	for (int i = 0; i < 8; i++) {
		snprintf(a, sizeof(a), "GPU%d", i);
		snprintf(b, sizeof(b), "NIC%d", i);
		assert_string_equal(link_at(t, a, b), "PIX");
		assert_true(fabs(path(t, GF_PATH_GPU_NIC, a, b)->gb_per_s - 50.0) < 0.01);
	}
	assert_string_equal(t->nics[2].name, "mlx5_0");
	assert_string_equal(t->nics[0].name, "mlx5_8");
	assert_string_equal(t->nics[0].label, "NIC8");
	assert_string_equal(t->nics[2].label, "NIC0");
	assert_int_equal(t->matrix.nsmi, 18);
	assert_true(fabs(path(t, GF_PATH_GPU_GPU, "GPU0", "GPU7")->gb_per_s - 450.0) < 0.01);
	assert_int_equal(path(t, GF_PATH_GPU_GPU, "GPU0", "GPU7")->limit, GF_LIMIT_NVLINK);
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU3")->gb_per_s - 63.0) < 0.05);
	/* Minors are not the index here. */
	assert_int_equal(t->gpus[2].minor, 3);
	assert_int_equal(t->gpus[3].minor, 2);
	assert_int_equal(t->gpus[2].minor_source, GF_SRC_NVML);
	/* NVML's PCIe answers agree with the tree. */
	assert_null(finding(t, "topo.nvml-pcie-mismatch", NULL));
	assert_int_equal(gf_topo_finding_count(t, GF_SEV_WARN), 0);
	gf_topo_free(t);
}

static void l40s_two_two_four(void **state)
{
	struct gf_topo *t = load("l40s-4gpu-224", NULL);

	(void)state;
	assert_int_equal(t->ngpus, 4);
	assert_string_equal(link_at(t, "GPU0", "GPU1"), "NODE");
	assert_string_equal(link_at(t, "GPU0", "GPU2"), "SYS");
	assert_string_equal(link_at(t, "GPU2", "GPU3"), "NODE");
	for (int i = 0; i < 4; i++)
		assert_int_equal(t->gpus[i].nvlinks_active, 0);
	/* GPU to its NIC, PCIe Gen4 x16 32 GB/s and a 200 Gb/s port
	 * (25 GB/s): the port is the limit. */
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU0")->gb_per_s - 31.5) < 0.05);
	assert_true(fabs(path(t, GF_PATH_GPU_NIC, "GPU0", "NIC2")->gb_per_s - 25.0) < 0.01);
	assert_int_equal(path(t, GF_PATH_GPU_NIC, "GPU0", "NIC2")->limit, GF_LIMIT_NIC);
	assert_true(fabs(path(t, GF_PATH_GPU_GPU, "GPU0", "GPU1")->gb_per_s - 31.5) < 0.05);
	assert_int_equal(gf_topo_finding_count(t, GF_SEV_WARN), 0);
	gf_topo_free(t);
}

/* Recorded on a lent 4xH200 VM; its `nvidia-smi topo -m` is kept beside
 * the recording (bench/results/2026-11-22-h200x4-topo): NV18 everywhere,
 * CPU Affinity 0-63, NUMA Affinity 0. */
static void h200_vm_recording(void **state)
{
	struct gf_topo *t = load("h200x4-vm", NULL);
	char a[8], b[8];

	(void)state;
	assert_true(t->machine.nvml);
	assert_true(t->machine.hypervisor);
	assert_int_equal(t->ngpus, 4);
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			snprintf(a, sizeof(a), "GPU%d", i);
			snprintf(b, sizeof(b), "GPU%d", j);
			assert_string_equal(link_at(t, a, b), i == j ? "X" : "NV18");
		}
		assert_string_equal(cpus_of(&t->gpus[i].cpus), "0-63");
		assert_int_equal(t->gpus[i].numa_node, 0);
		/* sysfs says -1 in this VM; NVML's memory affinity answers. */
		assert_int_equal(t->pci[t->gpus[i].pci].numa_node, -1);
		assert_int_equal(t->gpus[i].numa_source, GF_SRC_NVML);
		assert_string_equal(t->gpus[i].name, "NVIDIA H200");
	}
	/* nvidia-smi shows no NIC column here (virtio, no RDMA device): the
	 * matrix is the 4 GPUs; eth0 is among the other devices. */
	assert_int_equal(t->matrix.nsmi, 4);
	assert_int_equal(t->nnics, 1);
	assert_string_equal(t->nics[0].label, "eth0");
	assert_string_equal(t->matrix.dev[4].name, "eth0");
	/* eth0 is virtio: no line rate, no PCIe link attributes.  The path has
	 * no figure (it was the GPU's 63 GB/s), and the GPU's own does. */
	for (int i = 0; i < 4; i++) {
		const struct gf_path *p;

		snprintf(a, sizeof(a), "GPU%d", i);
		p = path(t, GF_PATH_GPU_NIC, a, "eth0");
		assert_int_equal(p->limit, GF_LIMIT_UNKNOWN);
		assert_true(p->gb_per_s == 0);
		assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, a)->gb_per_s - 63.0) < 0.05);
	}
	/* The switches are not on this VM's PCI bus. */
	assert_true(t->nvswitch);
	assert_int_equal(t->nvswitches, 0);
	/* Without NVML: node 0 because the machine has one node, a fact. */
	{
		struct gf_topo_options o = TOPO_OPTS(.root = t_fixture_root("h200x4-vm"), .nvml = GF_NVML_OFF);
		struct gf_topo *u;

		assert_int_equal(gf_topo_discover(&o, &u), 0);
		assert_int_equal(u->gpus[0].numa_node, 0);
		assert_int_equal(u->gpus[0].numa_source, GF_SRC_SINGLE_NODE);
		assert_string_equal(link_at(u, "GPU0", "GPU1"), "PHB");	/* no NVLink facts */
		gf_topo_free(u);
	}
	gf_topo_free(t);
}

/* Every PCI device has the node the model resolves for it (local_node), by
 * a GPU's rules short of NVML, and gf_topo_pci_node answers for any of them:
 * xfer and bench io-gpu stage on it for a device CUDA opens that the model
 * does not call a GPU. */
static bool below(const struct gf_topo *t, int dev, int bridge)
{
	for (int x = dev; x >= 0; x = t->pci[x].parent)
		if (x == bridge)
			return true;
	return false;
}

static void pci_node_of_any_device(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", NULL), *o;
	char spec[32];
	int bridge, other, n = 0;

	(void)state;
	assert_int_equal(t->numa.nnodes, 2);
	for (int g = 0; g < t->ngpus; g++)
		assert_int_equal(gf_topo_pci_node(t, t->gpus[g].bdf), t->gpus[g].numa_node);
	for (int i = 0; i < t->nnics; i++)
		assert_int_equal(gf_topo_pci_node(t, t->pci[t->nics[i].pci].bdf), t->nics[i].numa_node);
	for (int i = 0; i < t->npci; i++) {
		int want = -1;

		for (int x = i; x >= 0 && want < 0; x = t->pci[x].parent)
			want = t->pci[x].numa_node;
		assert_int_equal(t->pci[i].local_node, want);
		if (want >= 0)
			assert_int_equal(t->pci[i].local_node_source, GF_SRC_SYSFS);
		if (t->pci[i].kind != GF_PCI_GPU && want >= 0)
			n++;
	}
	assert_true(n > 0);
	/* A rule for the bridge above GPU 0 moves everything below it, GPU or
	 * not, and nothing else. */
	bridge = t->pci[t->gpus[0].pci].parent;
	assert_true(bridge >= 0);
	other = t->gpus[0].numa_node == 0 ? 1 : 0;
	snprintf(spec, sizeof(spec), "%s=%d", t->pci[bridge].bdf, other);
	o = load("dual-8gpu-pcie-switch", spec);
	assert_int_equal(o->npci, t->npci);
	n = 0;
	for (int i = 0; i < o->npci; i++) {
		if (below(o, i, bridge)) {
			assert_int_equal(o->pci[i].local_node, other);
			assert_int_equal(o->pci[i].local_node_source, GF_SRC_OVERRIDE);
			assert_int_equal(gf_topo_pci_node(o, o->pci[i].bdf), other);
			n++;
		} else {
			assert_int_equal(o->pci[i].local_node, t->pci[i].local_node);
		}
	}
	assert_true(n >= 2);	/* the bridge and GPU 0 at least */
	gf_topo_free(o);
	/* Short forms, a device the model lacks, garbage. */
	assert_int_equal(gf_topo_pci_node(t, t->gpus[0].bdf + 5), t->gpus[0].numa_node);
	assert_int_equal(gf_topo_pci_node(t, "0000:fe:1f.7"), -ENOENT);
	assert_int_equal(gf_topo_pci_node(t, "GPU-3"), -EINVAL);
	assert_int_equal(gf_topo_pci_node(t, NULL), -EINVAL);
	assert_int_equal(gf_topo_pci_node(NULL, "0000:00:00.0"), -EINVAL);
	gf_topo_free(t);
	/* One node: every device is on it, a fact. */
	t = load("ci-vm", NULL);
	for (int i = 0; i < t->npci; i++) {
		assert_int_equal(t->pci[i].local_node, 0);
		assert_int_equal(t->pci[i].local_node_source, GF_SRC_SINGLE_NODE);
	}
	gf_topo_free(t);
}

static void ci_machine(void **state)
{
	struct gf_topo *t = load("ci-vm", NULL);

	(void)state;
	assert_int_equal(t->ngpus, 0);
	assert_int_equal(t->numa.nnodes, 1);
	assert_int_equal(t->nnics, 1);
	/* One NUMA node: node 0 is a fact. */
	assert_int_equal(t->nics[0].numa_node, 0);
	assert_int_equal(t->nics[0].numa_source, GF_SRC_SINGLE_NODE);
	assert_int_equal(t->cpus.cgroup_version, 1);
	assert_true(t->cpus.cgroup_known);
	assert_true(t->machine.hypervisor);
	assert_false(t->machine.nvml);
	assert_int_equal(t->nwarnings, 0);
	gf_topo_free(t);
}

/* The override without a model (xfer's staging node): the device's own
 * rule, else the nearest bridge's; the same parser's errors. */
static void locality_override_chain(void **state)
{
	const char *chain[] = { "0000:82:00.0", "0000:80:01.0", "0000:80:00.0" };
	int node = 7;

	(void)state;
	assert_int_equal(gf_locality_override("0000:80:01.0=1;0000:82:00.0=0", "X", chain, 3, &node), 0);
	assert_int_equal(node, 0);
	assert_int_equal(gf_locality_override("0000:80:00.0=2;0000:80:01.0=1", "X", chain, 3, &node), 0);
	assert_int_equal(node, 1);	/* the nearest bridge, not the first rule */
	assert_int_equal(gf_locality_override("0000:80-81=3", "X", chain, 1, &node), 0);
	assert_int_equal(node, -1);	/* the device alone: bus 0x82 is not in 80-81 */
	assert_int_equal(gf_locality_override("0000:80-81=3", "X", chain, 3, &node), 0);
	assert_int_equal(node, 3);
	assert_int_equal(gf_locality_override("0000:82:00.0=x", "GPUFEED_PCI_LOCALITY", chain, 3, &node), -EINVAL);
	assert_int_equal(node, -1);
	assert_string_equal(gf_last_error(),
			    "GPUFEED_PCI_LOCALITY: '0000:82:00.0=x': expected PCI=NODE, e.g. 0000:3b:00.0=1 or 0000:80-ff=1");
}

static void locality_override(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", "0000:9b:00.0=0; 0000:b7-bb=0");
	struct gf_topo_options bad = TOPO_OPTS(.root = t_fixture_root("ci-vm"), .pci_locality = "0000:9b=zero");
	struct gf_topo *u = NULL;

	(void)state;
	assert_int_equal(t->gpus[4].numa_node, 0);
	assert_int_equal(t->gpus[4].numa_source, GF_SRC_OVERRIDE);
	assert_string_equal(cpus_of(&t->gpus[4].cpus), "0-31,64-95");
	assert_int_equal(t->gpus[4].cpus_source, GF_SRC_NODE_CPUS);
	/* A bus range covers the devices below its bridges too. */
	assert_int_equal(t->gpus[6].numa_source, GF_SRC_OVERRIDE);
	assert_int_equal(t->gpus[5].numa_source, GF_SRC_SYSFS);
	gf_topo_free(t);
	assert_int_equal(gf_topo_discover(&bad, &u), -EINVAL);
	assert_null(u);
	assert_non_null(strstr(gf_last_error(), "--pci-locality"));
	assert_non_null(strstr(gf_last_error(), "0000:9b=zero"));
}

static void find_gpu_by_any_name(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", NULL);
	char prefix[16];

	(void)state;
	assert_int_equal(gf_topo_find_gpu(t, "3"), 3);
	assert_int_equal(gf_topo_find_gpu(t, t->gpus[5].uuid), 5);
	snprintf(prefix, sizeof(prefix), "%.12s", t->gpus[6].uuid);
	assert_int_equal(gf_topo_find_gpu(t, prefix), 6);
	assert_int_equal(gf_topo_find_gpu(t, "GPU-"), -EINVAL);	/* ambiguous */
	assert_int_equal(gf_topo_find_gpu(t, t->gpus[1].bdf), 1);
	assert_int_equal(gf_topo_find_gpu(t, "00000000:43:00.0"), 1);	/* NVML's form */
	assert_int_equal(gf_topo_find_gpu(t, "9"), -ENOENT);
	assert_int_equal(gf_topo_find_gpu(t, "0000:99:00.0"), -ENOENT);
	assert_int_equal(gf_topo_find_gpu(t, "nonsense"), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "nonsense"));
	gf_topo_free(t);
}

/* A VM that hides locality on a 2-node machine: numa_node -1 everywhere. */
static void hidden_locality(void **state)
{
	char *dir = t_mkdtemp(), cmd[2 * PATH_MAX];
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_topo *t;

	(void)state;
	t_copytree(t_fixture_root("hgx-h100-8gpu"), dir);
	snprintf(cmd, sizeof(cmd), "find '%s/sys/devices' -name numa_node -exec sh -c 'rm \"$1\" && echo -1 > \"$1\"' _ {} \\;",
		 dir);
	assert_int_equal(system(cmd), 0);
	/* With NVML's memory affinity: known, and said where from. */
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->gpus[0].numa_node, 0);
	assert_int_equal(t->gpus[0].numa_source, GF_SRC_NVML);
	assert_int_equal(t->gpus[7].numa_node, 1);
	gf_topo_free(t);
	/* Without NVML: unknown (-1), and the report says so. */
	o.nvml = GF_NVML_OFF;
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->gpus[0].numa_node, -1);
	assert_int_equal(t->gpus[0].numa_source, GF_SRC_UNKNOWN);
	assert_non_null(finding(t, "topo.gpu-numa-unknown", "GPU0"));
	assert_true(gf_topo_finding_count(t, GF_SEV_WARN) >= 8);
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* A container's cgroup v2 path: the cpuset lives on an ancestor only. */
static void cgroup_v2_walks_up(void **state)
{
	char *dir = t_mkdtemp();
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_topo *t;

	(void)state;
	t_copytree(t_fixture_root("dual-8gpu-pcie-switch"), dir);
	t_write(dir, "proc/4242/cgroup", "0::/kubepods.slice/pod7/ctr9\n");
	t_write(dir, "sys/fs/cgroup/kubepods.slice/cpuset.cpus.effective", "8-15,72-79\n");
	t_write(dir, "sys/fs/cgroup/kubepods.slice/pod7/ctr9/cgroup.procs", "1\n");
	t_write(dir, "proc/4242/status", "Name:\tgpufeed\nCpus_allowed_list:\t0-15,64-79\nMems_allowed_list:\t0\n");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->cpus.cgroup_version, 2);
	assert_string_equal(t->cpus.cgroup_path, "/kubepods.slice/pod7/ctr9");
	assert_string_equal(cpus_of(&t->cpus.cgroup), "8-15,72-79");
	assert_string_equal(cpus_of(&t->cpus.allowed), "8-15,72-79");
	assert_string_equal(cpus_of(&t->numa.mems_allowed), "0");
	assert_true(t->cpus.cpu[8].allowed);
	assert_false(t->cpus.cpu[0].allowed);
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* cgroup v1 (hybrid), a Docker container's cpuset. */
static void cgroup_v1_container(void **state)
{
	char *dir = t_mkdtemp();
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_topo *t;

	(void)state;
	t_copytree(t_fixture_root("dual-8gpu-pcie-switch"), dir);
	t_write(dir, "proc/4242/cgroup", "4:memory:/docker/abc\n3:cpuset:/docker/abc\n0::/\n");
	t_write(dir, "sys/fs/cgroup/cpuset/docker/abc/cpuset.effective_cpus", "32-35\n");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->cpus.cgroup_version, 1);
	assert_string_equal(cpus_of(&t->cpus.allowed), "32-35");
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* MIG facts (recorded NVML) reach the model. */
static void mig_instances(void **state)
{
	char *dir = t_mkdtemp(), path[PATH_MAX];
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_nvml_facts *f;
	struct gf_topo *t;

	(void)state;
	t_copytree(t_fixture_root("h200x4-vm"), dir);
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	assert_int_equal(gf_nvml_facts_load(path, &f), 0);
	f->gpus[1].mig_current = f->gpus[1].mig_pending = 1;
	f->gpus[1].mig = calloc(2, sizeof(*f->gpus[1].mig));
	f->gpus[1].nmig = 2;
	for (int i = 0; i < 2; i++) {
		snprintf(f->gpus[1].mig[i].uuid, sizeof(f->gpus[1].mig[i].uuid), "MIG-%d", i);
		f->gpus[1].mig[i].gpu_instance = 1 + i;
		f->gpus[1].mig[i].memory_bytes = 71ull << 30;
	}
	f->gpus[2].mig_pending = 1;	/* enabled, awaiting a reset */
	assert_int_equal(gf_nvml_facts_save(f, path), 0);
	gf_nvml_facts_free(f);
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->gpus[1].mig_current, 1);
	assert_int_equal(t->gpus[1].nmig, 2);
	assert_string_equal(t->gpus[1].mig[1].uuid, "MIG-1");
	assert_int_equal(t->gpus[1].mig[1].gpu_instance, 2);
	assert_int_equal(t->gpus[2].mig_current, 0);
	assert_int_equal(t->gpus[2].mig_pending, 1);
	assert_int_equal(t->gpus[0].nmig, 0);
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* A copy of a fixture to break or extend; the caller frees it. */
static char *copy_of(const char *machine)
{
	char *dir = t_mkdtemp();

	t_copytree(t_fixture_root(machine), dir);
	return dir;
}

static bool warned(const struct gf_topo *t, const char *needle)
{
	for (int i = 0; i < t->nwarnings; i++)
		if (strstr(t->warnings[i], needle))
			return true;
	return false;
}

/* A BMC's usb0 under a USB controller is not a NIC of the matrix. */
static void usb_netdev_is_not_a_nic(void **state)
{
	char *dir = copy_of("ci-vm");
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	const char *usb = "sys/devices/pci0000:00/0000:00:14.0";
	char rel[512];
	struct gf_topo *t;

	(void)state;
	snprintf(rel, sizeof(rel), "%s/class", usb);
	t_write(dir, rel, "0x0c0330\n");
	snprintf(rel, sizeof(rel), "%s/vendor", usb);
	t_write(dir, rel, "0x8086\n");
	t_symlink(dir, "sys/bus/pci/devices/0000:00:14.0", "../../../devices/pci0000:00/0000:00:14.0");
	snprintf(rel, sizeof(rel), "%s/usb1/1-1/1-1:1.0/net/usb0/type", usb);
	t_write(dir, rel, "1\n");
	t_symlink(dir, "sys/class/net/usb0", "../../devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/net/usb0");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->nnics, 1);	/* eth0 only */
	{
		bool listed = false;

		for (int i = 0; i < t->nnetifs; i++)
			listed |= !strcmp(t->netifs[i].name, "usb0");
		assert_true(listed);
	}
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* node/online must not conjure nodes that have no directory. */
static void numa_online_bounded(void **state)
{
	char *dir = copy_of("dual-8gpu-pcie-switch");
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_topo *t;

	(void)state;
	t_write(dir, "sys/devices/system/node/online", "0-8191\n");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->numa.nnodes, 2);
	assert_true(warned(t, "lists node 2, which has no node2 directory"));
	gf_topo_free(t);
	t_write(dir, "sys/devices/system/node/online", "\n");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->numa.nnodes, 1);
	assert_true(warned(t, "no node: taken as one node 0"));
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* All of a GPU's NVLinks down on an NVSwitch box: said, and its pairs
 * fall back to their PCIe class. */
static void nvlinks_down(void **state)
{
	char *dir = copy_of("hgx-h100-8gpu"), path[PATH_MAX];
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_nvml_facts *f;
	struct gf_topo *t;

	(void)state;
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	assert_int_equal(gf_nvml_facts_load(path, &f), 0);
	for (int k = 0; k < f->gpus[3].nlinks; k++)
		f->gpus[3].links[k].active = false;
	for (int k = 0; k < 4; k++)
		f->gpus[5].links[k].active = false;
	assert_int_equal(gf_nvml_facts_save(f, path), 0);
	gf_nvml_facts_free(f);
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_non_null(finding(t, "topo.nvlink-down", "GPU3"));
	assert_non_null(finding(t, "topo.nvlink-inactive", "GPU5"));
	assert_string_equal(link_at(t, "GPU3", "GPU2"), "NODE");
	assert_string_equal(link_at(t, "GPU3", "GPU4"), "SYS");
	assert_string_equal(link_at(t, "GPU5", "GPU6"), "NV14");
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* A drive that trained at Gen3 limits its path (GPUs are exempt: they
 * slow down when idle), and the report says so. */
static void slow_drive_limits_path(void **state)
{
	char *dir = copy_of("dual-8gpu-pcie-switch");
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	struct gf_topo *t;

	(void)state;
	t_write(dir, "sys/devices/pci0000:3a/0000:3a:05.0/0000:3f:00.0/current_link_speed", "8.0 GT/s PCIe\n");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_true(fabs(path(t, GF_PATH_GPU_NVME, "GPU2", "NVME0")->gb_per_s - 3.94) < 0.01);
	assert_non_null(finding(t, "topo.pcie-speed-degraded", "NVME0"));
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

/* Which side of its link a bridge reports comes from its PCI Express
 * capability (config space) when we can read it.  Here the root port above
 * switch 1 trained x4 on its link; whether that narrows GPU0's path depends
 * on whether the port faces down (its attributes are the link below it,
 * which GPU0's switch reports as x16) or up. */
static void port_type_from_config_space(void **state)
{
	const char *rp = "sys/devices/pci0000:15/0000:15:01.0";
	char *dir = copy_of("dual-8gpu-pcie-switch"), rel[256];
	struct gf_topo_options o = TOPO_OPTS(.root = dir);
	unsigned char cfg[256];
	struct gf_topo *t;

	(void)state;
	snprintf(rel, sizeof(rel), "%s/current_link_width", rp);
	t_write(dir, rel, "4\n");
	memset(cfg, 0, sizeof(cfg));
	cfg[0x06] = 0x10;		/* status: capabilities list */
	cfg[0x34] = 0x40;		/* first capability */
	cfg[0x40] = 0x10;		/* PCI Express */
	cfg[0x41] = 0x00;		/* last */
	snprintf(rel, sizeof(rel), "%s/config", rp);
	cfg[0x42] = 0x42;		/* version 2, type 4: root port (faces down) */
	t_write_bytes(dir, rel, cfg, sizeof(cfg));
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, "0000:15:01.0"))
			assert_int_equal(t->pci[i].pcie_type, 4);
		else if (!strcmp(t->pci[i].bdf, "0000:16:00.0"))
			assert_int_equal(t->pci[i].pcie_type, -1);	/* no config file */
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU0")->gb_per_s - 31.5) < 0.05);
	gf_topo_free(t);
	cfg[0x42] = 0x52;		/* type 5: switch upstream port (faces up) */
	t_write_bytes(dir, rel, cfg, sizeof(cfg));
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU0")->gb_per_s - 7.88) < 0.05);
	gf_topo_free(t);
	/* Garbage config space: unknown type, the tree's rule applies. */
	t_write(dir, rel, "\x01garbage");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_true(fabs(path(t, GF_PATH_HOST_GPU, NULL, "GPU0")->gb_per_s - 31.5) < 0.05);
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

static void locality_override_to_missing_node(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", "0000:18:00.0=7");

	(void)state;
	assert_int_equal(t->gpus[0].numa_node, 0);
	assert_int_equal(t->gpus[0].numa_source, GF_SRC_SYSFS);
	assert_true(warned(t, "node 7, which this machine does not have"));
	gf_topo_free(t);
}

static void nvml_require(void **state)
{
	struct gf_topo_options o = TOPO_OPTS(.root = t_fixture_root("dual-8gpu-pcie-switch"), .nvml = GF_NVML_REQUIRE);
	struct gf_topo *t = NULL;

	(void)state;
	assert_int_equal(gf_topo_discover(&o, &t), -ENOSYS);
	assert_null(t);
	assert_non_null(strstr(gf_last_error(), "no nvml.json"));
}

/* The report of the 8-GPU HGX: GPUs with the same paths in one group, each
 * GPU's own NIC listed, every line within 100 columns (it was 171). */
static void report_groups_gpus(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", NULL);
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int lines = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(gf_report_print_with_audit(t, NULL, f, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\n  GPU0-3  host memory   node 0"));
	assert_non_null(strstr(buf, "\n  GPU4-7  host memory   node 1"));
	assert_non_null(strstr(buf, "mlx5_0-3"));
	assert_non_null(strstr(buf, "mlx5_4-7"));
	assert_null(strstr(buf, "GPU5 <-> "));	/* the per-GPU rows are topo's */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++)
		assert_in_range(strlen(line), 0, 100);
	assert_in_range(lines, 1, 45);
	free(buf);
	gf_topo_free(t);

	/* No GPU: said once, at the top. */
	t = load("ci-vm", NULL);
	f = open_memstream(&buf, &len);
	assert_int_equal(gf_report_print_with_audit(t, NULL, f, 0), 0);
	fclose(f);
	{
		const char *top = "== gpufeed report ==\n\nNo NVIDIA GPU found";

		assert_true(!strncmp(buf, top, strlen(top)));
	}
	free(buf);
	gf_topo_free(t);
}

/* NCCL_IB_HCA's answer: the RDMA device nearest each GPU. */
static void nearest_nic(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", NULL);

	(void)state;
	for (int i = 0; i < 8; i++) {
		int n = gf_topo_nearest_nic(t, i);

		assert_true(n >= 0);
		/* PIX on GPU0,1 (GPU4,5); NODE beats SYS for GPU2,3 (6,7); never eno1/2. */
		assert_string_equal(t->nics[n].rdma, i < 4 ? "mlx5_0" : "mlx5_1");
	}
	assert_int_equal(gf_topo_nearest_nic(t, 8), -EINVAL);
	gf_topo_free(t);
	t = load("h200x4-vm", NULL);
	assert_int_equal(gf_topo_nearest_nic(t, 0), -ENODEV);
	assert_non_null(strstr(gf_last_error(), "no RDMA NIC"));
	gf_topo_free(t);
}

/* Escape sequences in machine strings never reach a terminal. */
static void sanitize_text(void **state)
{
	char s[] = "a\033[31mb\tc\nd\x7f\xc2\x9b[2J\x9b" "1m\xc3\xa9";

	(void)state;
	gf_sanitize_text(s);
	/* ESC, DEL, C1 as UTF-8 and a lone C1 byte go; tab, newline, é stay. */
	assert_string_equal(s, "a?[31mb\tc\nd???[2J?1m\xc3\xa9");
}

/* gf_topo_options carries its size: a struct zeroed by hand is refused with
 * a message naming the initializer; GF_TOPO_OPTS_INIT works as is. */
static void topo_options_versioned(void **state)
{
	struct gf_topo_options zeroed = { 0 }, o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = (struct gf_topo *)&o;

	(void)state;
	zeroed.root = t_fixture_root("ci-vm");
	assert_int_equal(gf_topo_discover(&zeroed, &t), -EINVAL);
	assert_null(t);
	assert_non_null(strstr(gf_last_error(), "GF_TOPO_OPTS_INIT"));
	assert_int_equal(o.nvml, GF_NVML_AUTO);
	o.root = t_fixture_root("ci-vm");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->ngpus, 0);
	gf_topo_free(t);
	assert_int_equal(gf_topo_discover(&o, NULL), -EINVAL);
}

/* What gpufeed plan reads: a model without CPU detail and disks keeps the
 * GPUs, NICs, packages, matrix and paths of the whole one, says what it
 * left out, and judges nothing. */
static void omit_parts(void **state)
{
	struct gf_topo_options o = TOPO_OPTS(.root = t_fixture_root("dual-8gpu-pcie-switch"),
					      .omit = GF_TOPO_OMIT_CPU_DETAIL | GF_TOPO_OMIT_STORAGE);
	struct gf_topo *all = load("dual-8gpu-pcie-switch", NULL), *part = NULL;

	(void)state;
	assert_int_equal(gf_topo_discover(&o, &part), 0);
	assert_int_equal(all->omitted, 0);
	assert_int_equal(part->omitted, GF_TOPO_OMIT_CPU_DETAIL | GF_TOPO_OMIT_STORAGE);
	assert_true(all->cpus.ncores > 0 && all->cpus.nl3 > 0 && all->cpus.model[0]);
	assert_true(all->nblocks > 0 && all->nfindings > 0);
	assert_int_equal(part->cpus.ncores, 0);
	assert_int_equal(part->cpus.nl3, 0);
	assert_string_equal(part->cpus.model, "");
	assert_int_equal(part->nblocks, 0);
	assert_int_equal(part->nfindings, 0);
	assert_int_equal(part->cpus.ncpu, all->cpus.ncpu);
	assert_int_equal(part->cpus.npackages, all->cpus.npackages);
	for (int i = 0; i < part->cpus.ncpu; i++) {
		assert_int_equal(part->cpus.cpu[i].core, -1);
		assert_int_equal(part->cpus.cpu[i].l3, -1);
		assert_int_equal(part->cpus.cpu[i].package, all->cpus.cpu[i].package);
	}
	assert_int_equal(part->ngpus, all->ngpus);
	assert_int_equal(part->nnics, all->nnics);
	assert_int_equal(part->npci, all->npci);
	for (int i = 0; i < part->ngpus; i++) {
		assert_int_equal(part->gpus[i].numa_node, all->gpus[i].numa_node);
		assert_true(gf_cpuset_equal(&part->gpus[i].cpus, &all->gpus[i].cpus));
		assert_int_equal(gf_topo_nearest_nic(part, i), gf_topo_nearest_nic(all, i));
	}
	/* The rows of `nvidia-smi topo -m` (GPUs and NICs), link for link. */
	assert_int_equal(part->matrix.nsmi, all->matrix.nsmi);
	for (int i = 0; i < part->matrix.nsmi; i++) {
		char a[16], b[16];

		assert_string_equal(part->matrix.dev[i].name, all->matrix.dev[i].name);
		for (int j = 0; j < part->matrix.nsmi; j++) {
			gf_link_format(gf_matrix_at(&part->matrix, i, j), a, sizeof(a));
			gf_link_format(gf_matrix_at(&all->matrix, i, j), b, sizeof(b));
			assert_string_equal(a, b);
		}
	}
	for (int i = 0; i < part->npaths; i++) {
		const struct gf_path *p = &part->paths[i];

		if (p->kind == GF_PATH_GPU_NVME)
			fail_msg("a GPU-NVMe path without disks");
		assert_true(p->gb_per_s ==
			    path(all, p->kind, p->from >= 0 ? part->matrix.dev[p->from].name : NULL,
				 part->matrix.dev[p->to].name)->gb_per_s);
	}
	/* What needs the cores refuses the partial model rather than guess. */
	{
		struct gf_cpuset set;
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_int_equal(gf_emit_reserved_cpus(part, 1, &set), -EINVAL);
		assert_non_null(strstr(gf_last_error(), "without CPU detail"));
		assert_int_equal(gf_emit_reserved_cpus(all, 1, &set), 0);
		assert_int_equal(gf_emit_slurm(part, NULL, f), -EINVAL);
		assert_int_equal(gf_emit_kubelet(part, NULL, f), -EINVAL);
		assert_int_equal(gf_emit_labels(part, NULL, f), -EINVAL);
		assert_int_equal(gf_topo_write_json(part, f), 0);
		fclose(f);
		assert_non_null(strstr(text, "\"omitted\": [\n    \"cpu_detail\",\n    \"storage\"\n  ]"));
		free(text);
	}
	gf_topo_free(part);

	/* Unknown bits are refused; a caller built before `omit` existed
	 * (a shorter struct_size) gets the whole model whatever follows. */
	o.omit = 1u << 7;
	assert_int_equal(gf_topo_discover(&o, &part), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "omit"));
	o.omit = GF_TOPO_OMIT_CPU_DETAIL;
	o.struct_size = offsetof(struct gf_topo_options, omit);
	assert_int_equal(gf_topo_discover(&o, &part), 0);
	assert_int_equal(part->omitted, 0);
	assert_int_equal(part->cpus.ncores, all->cpus.ncores);
	gf_topo_free(part);
	gf_topo_free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dual_socket_matches_seed_table),
		cmocka_unit_test(hgx_nvswitch_all_nv18),
		cmocka_unit_test(l40s_two_two_four),
		cmocka_unit_test(h200_vm_recording),
		cmocka_unit_test(ci_machine),
		cmocka_unit_test(pci_node_of_any_device),
		cmocka_unit_test(locality_override),
		cmocka_unit_test(find_gpu_by_any_name),
		cmocka_unit_test(hidden_locality),
		cmocka_unit_test(cgroup_v2_walks_up),
		cmocka_unit_test(cgroup_v1_container),
		cmocka_unit_test(mig_instances),
		cmocka_unit_test(usb_netdev_is_not_a_nic),
		cmocka_unit_test(numa_online_bounded),
		cmocka_unit_test(nvlinks_down),
		cmocka_unit_test(slow_drive_limits_path),
		cmocka_unit_test(port_type_from_config_space),
		cmocka_unit_test(locality_override_to_missing_node),
		cmocka_unit_test(nvml_require),
		cmocka_unit_test(report_groups_gpus),
		cmocka_unit_test(nearest_nic),
		cmocka_unit_test(sanitize_text),
		cmocka_unit_test(topo_options_versioned),
		cmocka_unit_test(omit_parts),
		cmocka_unit_test(locality_override_chain),
	};

	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
