/* gpufeed — keep GPUs fed.  Umbrella header of libgpufeed.
 *
 * Conventions (see docs/design.md):
 *  - every function returns 0 or a negative errno; gf_last_error() then holds
 *    a message that names the file or device involved;
 *  - a NULL pointer, an enum out of range or an options struct not made with
 *    its GF_..._OPTS_INIT is -EINVAL with a message naming the function and
 *    the argument ("gf_topo_print: f is NULL"); a name function answers "?"
 *    for a value out of range, a predicate false for NULL, and freeing or
 *    closing NULL does nothing (tests/unit/test_api_contract.c holds every
 *    exported function to this);
 *  - the library never prints, exits or aborts; the CLI does that;
 *  - every read of the machine goes through a root prefix, so a recording made
 *    with gf_record() replays exactly (struct gf_topo_options.root).
 */
#ifndef GPUFEED_GPUFEED_H
#define GPUFEED_GPUFEED_H

#define GF_VERSION_MAJOR 0
#define GF_VERSION_MINOR 1
#define GF_VERSION_PATCH 0

#include <gpufeed/common.h>
#include <gpufeed/error.h>
#include <gpufeed/log.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/parse.h>
#include <gpufeed/topo.h>
#include <gpufeed/record.h>
#include <gpufeed/report.h>
#include <gpufeed/audit.h>
#include <gpufeed/tune.h>
#include <gpufeed/buf.h>
#include <gpufeed/dlpack.h>
#include <gpufeed/io.h>
#include <gpufeed/outfile.h>
#include <gpufeed/bench.h>
#include <gpufeed/xfer.h>
#include <gpufeed/env.h>
#include <gpufeed/bind.h>
#include <gpufeed/launch.h>
#include <gpufeed/verify.h>
#include <gpufeed/place.h>
#include <gpufeed/emit.h>
#include <gpufeed/dataset.h>
#include <gpufeed/loader.h>
#include <gpufeed/nccl.h>
#include <gpufeed/nccl_hang.h>
#include <gpufeed/monitor.h>
#include <gpufeed/exporter.h>
#include <gpufeed/monitor_output.h>
#include <gpufeed/step.h>
#include <gpufeed/diagnose.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0": the version of the library actually loaded. */
GF_API const char *gf_version(void);

#ifdef __cplusplus
}
#endif
#endif
