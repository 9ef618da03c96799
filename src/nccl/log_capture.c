/* gf_nccl_log_capture: NCCL's own log written where the analysis reads it.
 * NCCL reads NCCL_DEBUG* once, at its first initialisation in the process,
 * so this is called before any communicator exists. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include <gpufeed/nccl.h>
#include "core/env_export.h"
#include "core/error.h"

GF_API int gf_nccl_log_capture(const char *dir)
{
	char file[PATH_MAX];
	int rc;

	if (!dir)
		return gf_error(-EINVAL, "gf_nccl_log_capture: dir is NULL");
	if (!dir[0])
		return gf_error(-EINVAL, "gf_nccl_log_capture: dir is empty");
	/* %h and %p: NCCL puts the host and pid in each process's file name */
	if ((size_t)snprintf(file, sizeof(file), "%s/nccl.%%h.%%p.log", dir) >= sizeof(file))
		return gf_error(-ENAMETOOLONG, "gf_nccl_log_capture: '%.40s...' is too long for a path", dir);
	if ((rc = gf_env_export("NCCL_DEBUG", "INFO")) ||
	    (rc = gf_env_export("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,ENV,NET,P2P,SHM")) ||
	    (rc = gf_env_export("NCCL_DEBUG_FILE", file)))
		return rc;
	return 0;
}
