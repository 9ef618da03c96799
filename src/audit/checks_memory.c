/* Memory and OS checks (seed 000 ch. 3; shared/research/host-audit-tuning.md
 * §7 "OS / memory"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_internal.h"

/* Swap in use lets the kernel page out a data loader's pinned staging or a
 * trainer's host memory: every fault then stalls the GPU. */
static void run_swap(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char *data = NULL;
	size_t len;
	int devices = 0;

	if (audit_read(c, r, "/proc/swaps", &data, &len))
		return;
	/* Header line, then one line per active swap area. */
	for (char *p = strchr(data, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		devices++;
	free(data);
	audit_observed(r, devices ? "%d swap area%s active" : "no swap", devices, devices == 1 ? "" : "s");
	audit_expected(r, "no swap");
	if (devices) {
		audit_status(r, GF_CHECK_FAIL);
		audit_fix(r, "swapoff -a");
		audit_persist(r, "remove swap lines from /etc/fstab; systemctl mask the *.swap units");
		r->fix_class = GF_FIX_ADVICE;
	}
}

static void run_swappiness(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/vm/swappiness", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, "<= 10");
	if (v > 10) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "vm.swappiness", "10");
	}
}

const struct gf_check_def gf_checks_memory[] = {
	{ { "mem.swap", "memory", "no swap is active",
	    "seed 000 ch. 3 (swap stalls the GPU's feeder); Azure ND H100 health checks expect 0 kB swap",
	    "/proc/swaps", "no swap area", "no swap area", "swapoff -a; remove swap from /etc/fstab", 0 },
	  run_swap },
	{ { "mem.swappiness", "memory", "vm.swappiness is low",
	    "seed 000 ch. 3; TuneD throughput-/accelerator-performance set vm.swappiness=10",
	    "/proc/sys/vm/swappiness", "<= 10", "<= 10", "sysctl -w vm.swappiness=10 (safe)", 0 },
	  run_swappiness },
	GF_CHECK_END,
};
