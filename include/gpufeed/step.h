/* Step markers: how a job tells `gpufeed diagnose` where its steps end
 * (docs/diagnose.md, "Step markers").
 *
 *     for (;;) {
 *             ... one training step ...
 *             gf_step();
 *     }
 *
 * The markers cost one clock read and a few atomic adds.  They go nowhere
 * unless the process runs under `gpufeed diagnose`, which sets
 * GPUFEED_DIAGNOSE=DIR for the job: then the first call creates
 * DIR/step-PID.gfs, a small file shared with diagnose by mmap, and every
 * call updates its counters (steps, the last step's end, the sum and the
 * longest of the step times).  gpufeed's loader publishes there too: the
 * time its consumer waited in gf_loader_next, its batches and bytes.
 * Python: gpufeed.step(). */
#ifndef GPUFEED_STEP_H
#define GPUFEED_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the end of one step; call it at the same point of every step, from
 * one thread (the training loop's).  0; 0 and nothing when GPUFEED_DIAGNOSE
 * is unset; -errno with a message naming the file when the channel cannot
 * be created (the first call that failed says why; later calls return the
 * same code without trying again). */
GF_API int gf_step(void);
/* For a job with a loader of its own: the consumer waited wait_ns for a
 * batch of `bytes` bytes (what gf_loader_next publishes for gpufeed's
 * loader).  Return values as gf_step. */
GF_API int gf_step_input_wait(uint64_t wait_ns, uint64_t bytes);
/* Whether this process publishes step markers (GPUFEED_DIAGNOSE is set and
 * the channel is open). */
GF_API bool gf_step_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
