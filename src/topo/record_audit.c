/* Files the host audit (check/tune) and the config emitters read beyond
 * what discovery reads, recorded so a recording made once serves every
 * command (docs/checks.md lists what each check reads).  Missing paths are
 * skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/recorder.h"
#include "core/strutil.h"
#include "topo/topo_internal.h"
#include "topo/record_audit.h"

/* { path, depth }: depth 0 = the file itself, n = a directory n levels. */
static const struct {
	const char *path;
	int depth;
} audit_paths[] = {
	{ "/proc/cmdline", 0 },
	{ "/proc/meminfo", 0 },
	{ "/proc/swaps", 0 },
	{ "/proc/mounts", 0 },
	{ "/proc/self/mountinfo", 0 },
	{ "/proc/self/limits", 0 },
	{ "/proc/interrupts", 0 },
	{ "/proc/sys/vm", 1 },
	{ "/proc/sys/kernel/numa_balancing", 0 },
	{ "/proc/sys/kernel/sched_autogroup_enabled", 0 },
	{ "/proc/sys/kernel/perf_event_paranoid", 0 },
	{ "/proc/sys/fs/file-max", 0 },
	{ "/proc/sys/fs/nr_open", 0 },
	{ "/proc/sys/net/core/rmem_max", 0 },
	{ "/proc/sys/net/core/wmem_max", 0 },
	{ "/proc/sys/net/core/somaxconn", 0 },
	{ "/proc/sys/net/core/netdev_max_backlog", 0 },
	{ "/proc/sys/net/ipv4/ip_local_port_range", 0 },
	{ "/proc/sys/net/ipv4/ip_local_reserved_ports", 0 },
	{ "/proc/sys/net/ipv4/tcp_rmem", 0 },
	{ "/proc/sys/net/ipv4/tcp_wmem", 0 },
	{ "/proc/sys/net/ipv4/tcp_slow_start_after_idle", 0 },
	{ "/proc/driver/nvidia", 3 },
	{ "/proc/driver/nvidia-fs/stats", 0 },
	{ "/sys/kernel/mm/transparent_hugepage", 1 },
	{ "/sys/kernel/mm/hugepages", 2 },
	{ "/sys/devices/system/cpu/isolated", 0 },
	{ "/sys/devices/system/cpu/nohz_full", 0 },
	{ "/sys/devices/system/cpu/smt", 1 },
	{ "/sys/devices/system/cpu/vulnerabilities", 1 },
	{ "/sys/devices/system/cpu/intel_pstate", 1 },
	{ "/sys/devices/system/cpu/cpufreq", 2 },
	{ "/sys/devices/system/cpu/cpuidle", 1 },
	{ "/sys/devices/system/cpu/cpu0/cpuidle", 2 },
	{ "/sys/devices/system/edac/mc", 2 },
	{ "/sys/module/nvidia_peermem", 1 },
	{ "/sys/module/nv_peer_mem", 1 },
	{ "/sys/module/nvidia_fs", 1 },
	{ "/sys/module/nouveau", 1 },
	{ "/sys/module/nvidia/parameters", 1 },
	{ "/etc/nccl.conf", 0 },
	{ "/etc/systemd/logind.conf", 0 },
	{ "/etc/default/irqbalance", 0 },
	{ "/etc/sysconfig/irqbalance", 0 },
	{ "/.dockerenv", 0 },
	{ "/run/.containerenv", 0 },
	{ "/proc/1/cgroup", 0 },
	{ "/proc/self/cgroup", 0 },

	/* ---- memory and CPU checks (checks_memory.c, checks_cpu.c) ---- */
	{ "/proc/1/comm", 0 },			/* mem.removeipc: is PID 1 systemd */
	{ "/proc/sys/kernel/osrelease", 0 },	/* mem.init-on-alloc: /boot/config-<release> */
	{ "/proc/sys/kernel/nmi_watchdog", 0 },
	{ "/usr/lib/systemd/logind.conf", 0 },
	{ "/etc/systemd/logind.conf.d", 1 },
	{ "/run/systemd/logind.conf.d", 1 },
	{ "/usr/lib/systemd/logind.conf.d", 1 },

	/* ---- IRQ and storage checks (checks_irq.c, checks_storage.c) ---- */
	/* The mark that process names were looked at (irq.balance); the
	 * irqbalance process itself is copied by copy_irqs. */
	{ "/proc/1/comm", 0 },

	/* ---- network and PCIe checks (checks_network.c, checks_pcie.c) ---- */
	{ "/etc/cufile.json", 0 },		/* GDS configured (net.nvidia-fs) */
	{ "/var/lib/kubelet/config.yaml", 0 },	/* a Kubernetes node (net.port-range) */

	/* ---- GPU checks (checks_gpu.c) ---- */
	{ "/usr/local/cuda/version.json", 0 },
	{ "/usr/local/cuda/version.txt", 0 },

	/* ---- container and NCCL checks (checks_container.c, checks_nccl.c) ---- */
	{ "/var/run/nvidia-topologyd/virtualTopology.xml", 0 },
	{ "/proc/self/status", 0 },


	/* ---- end of the check blocks ---- */
};

/* Per online CPU: frequency governor and driver. */
static void copy_cpufreq(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	static const char *files[] = { "scaling_governor", "scaling_driver", "energy_performance_preference",
				       "scaling_min_freq", "scaling_max_freq", "cpuinfo_max_freq" };

	for (int i = 0; i < t->cpus.ncpu; i++)
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/%s",
				 t->cpus.cpu[i].id, files[f]);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
}

/* The running kernel's build config: its init_on_alloc default. */
static void copy_kernel_config(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	char path[160];

	if (!t->machine.kernel[0] || strchr(t->machine.kernel, '/'))
		return;
	snprintf(path, sizeof(path), "/boot/config-%s", t->machine.kernel);
	gf_rec_copy_tree(rec, fs, path, 0);
}

/* Checks see daemons by their process names (irq.balance: irqbalance; the
 * GPU checks: the MPS control daemon, Fabric Manager, nvidia-persistenced):
 * only those processes' comm files are copied, not the process list.  comm
 * holds 15 characters: the names are cut as the kernel cuts them. */
static const char *const daemons[] = { "irqbalance", "nvidia-cuda-mps", "nv-fabricmanage", "nvidia-persiste", NULL };

static bool is_daemon(const char *comm)
{
	for (const char *const *d = daemons; *d; d++)
		if (!strncmp(comm, *d, strlen(*d)))
			return true;
	return false;
}

static void copy_daemons(struct gf_recorder *rec, const struct gf_fs *fs)
{
	struct gf_fs plain = *fs;
	char **names, comm[32], path[64];
	int n;

	plain.rec = NULL;
	if (gf_fs_list(&plain, "/proc", &names, &n))
		return;
	for (int i = 0; i < n; i++) {
		if (names[i][0] < '0' || names[i][0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", names[i]);
		if (!gf_fs_read_str(&plain, path, comm, sizeof(comm)) && is_daemon(comm))
			gf_rec_copy_tree(rec, fs, path, 0);
	}
	gf_strv_free(names, n);
}

/* IRQ affinity (NIC/GPU interrupts on local CPUs) and each IRQ's node. */
static void copy_irqs(struct gf_recorder *rec, const struct gf_fs *fs)
{
	struct gf_fs plain = *fs;	/* list without tapping every entry */
	char **names;
	int n;

	plain.rec = NULL;
	if (gf_fs_list(&plain, "/proc/irq", &names, &n))
		return;
	for (int i = 0; i < n; i++) {
		static const char *files[] = { "smp_affinity_list", "effective_affinity_list", "node" };

		if (names[i][0] < '0' || names[i][0] > '9')
			continue;
		for (int f = 0; f < 3; f++) {
			char path[128];

			snprintf(path, sizeof(path), "/proc/irq/%s/%s", names[i], files[f]);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
	}
	gf_strv_free(names, n);
}

/* Every port of every RDMA device (the model reads port 1 only), the card
 * model that net.ib-port compares rates within, and the IOMMU group type of
 * GPUs and NICs (pcie.iommu). */
static void copy_netpci(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	struct gf_fs plain = *fs;
	char path[512];

	plain.rec = NULL;
	for (int i = 0; i < t->nnics; i++) {
		char **ports;
		int n;

		if (!t->nics[i].rdma[0])
			continue;
		for (const char **a = (const char *[]){ "board_id", "hca_type", NULL }; *a; a++) {
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s", t->nics[i].rdma, *a);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", t->nics[i].rdma);
		if (gf_fs_list(&plain, path, &ports, &n))
			continue;
		for (int k = 0; k < n; k++)
			for (const char **a = (const char *[]){ "state", "phys_state", "rate", "link_layer", NULL }; *a;
			     a++) {
				snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/%s", t->nics[i].rdma,
					 ports[k], *a);
				gf_rec_copy_tree(rec, fs, path, 0);
			}
		gf_strv_free(ports, n);
	}
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].kind == GF_PCI_GPU || t->pci[i].kind == GF_PCI_NIC) {
			snprintf(path, sizeof(path), "%s/iommu_group/type", t->pci[i].path);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
}

/* Queue settings of every disk, and our cgroup's limits. */
static void copy_devices(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	char path[512];

	for (int i = 0; i < t->nblocks; i++) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/queue", t->blocks[i].name);
		gf_rec_copy_tree(rec, fs, path, 1);
		/* The hardware queue depth storage.nr-requests compares with. */
		snprintf(path, sizeof(path), "/sys/class/block/%s/mq/0/nr_tags", t->blocks[i].name);
		gf_rec_copy_tree(rec, fs, path, 0);
	}
	for (int i = 0; i < t->nnics; i++) {
		char *save = NULL, nd[128];

		gf_strlcpy(nd, t->nics[i].netdevs, sizeof(nd));
		for (char *tok = strtok_r(nd, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", tok);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
	}
	for (int i = 0; i < t->npci; i++) {
		enum gf_pci_kind k = t->pci[i].kind;

		if (k != GF_PCI_GPU && k != GF_PCI_NIC && k != GF_PCI_NVME)
			continue;
		snprintf(path, sizeof(path), "%s/msi_irqs", t->pci[i].path);
		gf_rec_copy_tree(rec, fs, path, 1);
		for (const char **a = (const char *[]){ "aer_dev_correctable", "aer_dev_fatal",
							 "aer_dev_nonfatal", NULL }; *a; a++) {
			snprintf(path, sizeof(path), "%s/%s", t->pci[i].path, *a);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
	}
	if (t->cpus.cgroup_version) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s%s",
			 t->cpus.cgroup_version == 1 ? "/cpuset" : "",
			 strcmp(t->cpus.cgroup_path, "/") ? t->cpus.cgroup_path : "");
		gf_rec_copy_tree(rec, fs, path, 1);
	}
	copy_netpci(rec, fs, t);
}

/* A variable of the environment the audit examines (NCCL's, not one of
 * gpufeed's own settings, which go through the registry in core/env.c). */
static const char *audited_env(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* Container and NCCL checks: the memory and pids limit files of our cgroup
 * and its ancestors (v1: each controller's own hierarchy), and the files
 * NCCL_CONF_FILE / NCCL_TOPO_FILE name (live only: the variables are this
 * process's). */
static void copy_ctr_nccl(struct gf_recorder *rec, const struct gf_fs *fs)
{
	static const char *const files[] = { "memory.max", "memory.high", "memory.limit_in_bytes", "pids.max",
					     "cgroup.controllers", "cgroup.clone_children" };
	char *data = NULL, *save = NULL, path[600];
	size_t len;

	for (const char **v = (const char *[]){ "NCCL_CONF_FILE", "NCCL_TOPO_FILE", NULL }; gf_fs_live(fs) && *v; v++) {
		const char *file = audited_env(*v);

		if (file && file[0] == '/')
			gf_rec_copy_tree(rec, fs, file, 0);
	}
	if (gf_fs_read(fs, "/proc/self/cgroup", &data, &len))
		return;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, cg[400], base[64];

		if (!c2)
			continue;
		*c2 = '\0';
		if (!strcmp(c1 + 1, ""))
			snprintf(base, sizeof(base), "/sys/fs/cgroup");
		else if (!strcmp(c1 + 1, "memory") || !strcmp(c1 + 1, "pids"))
			snprintf(base, sizeof(base), "/sys/fs/cgroup/%s", c1 + 1);
		else
			continue;
		gf_strlcpy(cg, c2 + 1, sizeof(cg));
		for (;;) {
			for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
				snprintf(path, sizeof(path), "%s%s/%s", base, strcmp(cg, "/") ? cg : "", files[f]);
				gf_rec_copy_tree(rec, fs, path, 0);
			}
			char *slash = strrchr(cg, '/');
			if (!slash || slash == cg)
				break;
			*slash = '\0';
		}
		if (strcmp(cg, "/")) {
			gf_strlcpy(cg, "/", sizeof(cg));
			for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
				snprintf(path, sizeof(path), "%s/%s", base, files[f]);
				gf_rec_copy_tree(rec, fs, path, 0);
			}
		}
	}
	free(data);
}

/* gpu.driver-cuda reads the CUDA runtime's version from libcudart's file
 * names: keep the names (links as links, files empty), never the
 * libraries themselves. */
static void copy_cuda_names(struct gf_recorder *rec, const struct gf_fs *fs)
{
	static const struct {
		const char *dir, *prefix;
	} libs[] = { { "/usr/local/cuda/lib64", "libcudart.so." }, { "/usr/lib/x86_64-linux-gnu", "libcudart.so." },
		     { "/usr/lib/aarch64-linux-gnu", "libcudart.so." }, { "/usr/lib64", "libcudart.so." },
		     { "/usr/local/cuda/compat", "libcuda.so." } };
	struct gf_fs plain = *fs;

	plain.rec = NULL;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		char **names, path[512], target[512];
		int n;

		if (gf_fs_list(&plain, libs[i].dir, &names, &n))
			continue;
		for (int j = 0; j < n; j++) {
			if (!gf_starts_with(names[j], libs[i].prefix))
				continue;
			snprintf(path, sizeof(path), "%s/%s", libs[i].dir, names[j]);
			if (gf_fs_readlink(&plain, path, target, sizeof(target)) != -EINVAL)
				gf_rec_dir(rec, fs, libs[i].dir, &names[j], 1);
			else
				gf_rec_file(rec, fs, path, "", 0);
		}
		gf_strv_free(names, n);
	}
}

/* What the config emitters read beyond the model (src/emit): each modelled
 * PCI device's subsystem ids, which `config nccl-topo` writes (NCCL tells
 * Broadcom switches by them).  Without them its XML from a recording lost
 * two attributes the live machine's had. */
static void copy_emitter_files(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	char path[512];

	for (int i = 0; i < t->npci; i++)
		for (const char **a = (const char *[]){ "subsystem_vendor", "subsystem_device", NULL }; *a; a++) {
			snprintf(path, sizeof(path), "%s/%s", t->pci[i].path, *a);
			gf_rec_copy_tree(rec, fs, path, 0);
		}
}

void gf_record_audit_files(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	for (size_t i = 0; i < sizeof(audit_paths) / sizeof(audit_paths[0]); i++)
		gf_rec_copy_tree(rec, fs, audit_paths[i].path, audit_paths[i].depth);
	copy_cpufreq(rec, fs, t);
	copy_kernel_config(rec, fs, t);
	copy_irqs(rec, fs);
	copy_daemons(rec, fs);
	copy_devices(rec, fs, t);
	copy_ctr_nccl(rec, fs);
	copy_cuda_names(rec, fs);
	copy_emitter_files(rec, fs, t);
}
