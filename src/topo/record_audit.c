/* Files the host audit (check/tune, a later issue) reads, recorded now so a
 * recording made once serves every later feature.  Sources: the checklist in
 * shared/research/host-audit-tuning.md §7.  Missing paths are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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


	/* ---- IRQ and storage checks (checks_irq.c, checks_storage.c) ---- */
	/* The mark that process names were looked at (irq.balance); the
	 * irqbalance process itself is copied by copy_irqs. */
	{ "/proc/1/comm", 0 },

	/* ---- network and PCIe checks (checks_network.c, checks_pcie.c) ---- */


	/* ---- GPU checks (checks_gpu.c) ---- */


	/* ---- container and NCCL checks (checks_container.c, checks_nccl.c) ---- */


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

/* irq.balance sees irqbalance by its process name: only that process's
 * comm is copied, not the machine's process list. */
static void copy_irqbalance(struct gf_recorder *rec, const struct gf_fs *fs)
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
		if (!gf_fs_read_str(&plain, path, comm, sizeof(comm)) && !strcmp(comm, "irqbalance"))
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
	copy_irqbalance(rec, fs);
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
}

void gf_record_audit_files(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t)
{
	for (size_t i = 0; i < sizeof(audit_paths) / sizeof(audit_paths[0]); i++)
		gf_rec_copy_tree(rec, fs, audit_paths[i].path, audit_paths[i].depth);
	copy_cpufreq(rec, fs, t);
	copy_irqs(rec, fs);
	copy_devices(rec, fs, t);
}
