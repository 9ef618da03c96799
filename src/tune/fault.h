/* A seam for the tests: stop a tune or a revert at its Nth durable step
 * (journal append, fsync, value write, rename, ...), as a crash would.
 *
 * Unit tests set gf_tune_fault directly; the CLI tests set
 * GPUFEED_TUNE_FAULT=N (fail: the step answers EIO and the run stops) or
 * N:kill (the process sends itself SIGKILL at the step: a real kill -9). */
#ifndef GF_TUNE_FAULT_H
#define GF_TUNE_FAULT_H

#include <stdbool.h>

struct gf_tune_fault {
	unsigned step;		/* 1-based step to stop at; 0: none */
	bool kill;		/* SIGKILL instead of failing */
};
extern struct gf_tune_fault gf_tune_fault;
/* Steps taken since the run began, and whether the fault fired. */
extern unsigned gf_tune_steps;
extern bool gf_tune_fault_fired;

/* Loads GPUFEED_TUNE_FAULT (when set, it replaces gf_tune_fault) and
 * restarts the step count: 0 or -EINVAL with a message. */
int tune_fault_begin(void);
/* Called before each durable step: 0, or -EIO when the fault fires. */
int tune_step(const char *what);

#endif
