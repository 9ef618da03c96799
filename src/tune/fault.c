/* The test seam of fault.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include "core/error.h"
#include "tune/fault.h"

struct gf_tune_fault gf_tune_fault;
unsigned gf_tune_steps;
bool gf_tune_fault_fired;

int tune_fault_begin(void)
{
	const char *spec = gf_env_str(GF_ENV_TUNE_FAULT);
	char *end;
	unsigned long n;

	gf_tune_steps = 0;
	gf_tune_fault_fired = false;
	if (!spec)
		return 0;
	errno = 0;
	n = strtoul(spec, &end, 10);
	if (errno || end == spec || n == 0 || n > 1000000 || (*end && strcmp(end, ":kill") && strcmp(end, ":fail")))
		return gf_error(-EINVAL, "GPUFEED_TUNE_FAULT: '%s' is not STEP, STEP:fail or STEP:kill", spec);
	gf_tune_fault.step = (unsigned)n;
	gf_tune_fault.kill = !strcmp(end, ":kill");
	return 0;
}

int tune_step(const char *what)
{
	if (++gf_tune_steps != gf_tune_fault.step || !gf_tune_fault.step)
		return 0;
	gf_tune_fault_fired = true;
	if (gf_tune_fault.kill)
		raise(SIGKILL);
	return gf_error(-EIO, "injected fault at step %u (%s)", gf_tune_steps, what);
}
