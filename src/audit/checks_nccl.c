/* nccl checks (shared/research/host-audit-tuning.md §7). */
#include "audit/audit_internal.h"

const struct gf_check_def gf_checks_nccl[] = {
	GF_CHECK_END,
};
