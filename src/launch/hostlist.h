/* Slurm hostlists, as far as a launcher needs them: the rendezvous host of
 * SLURM_STEP_NODELIST. */
#ifndef GF_LAUNCH_HOSTLIST_H
#define GF_LAUNCH_HOSTLIST_H

#include <stddef.h>

/* The first host of a Slurm hostlist: "gpu[07-09,12],login1" -> "gpu07".
 * -EINVAL for a malformed list (or hostlist or out NULL), -ENAMETOOLONG
 * when out is too small. */
int gf_launch_first_host(const char *hostlist, char *out, size_t size);

#endif
