/* Errors: functions return 0 or -errno; this says what and where. */
#ifndef GPUFEED_ERROR_H
#define GPUFEED_ERROR_H

#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last failing call in this thread, e.g.
 * "/sys/bus/pci/devices/0000:1b:00.0/numa_node: not an integer: 'abc'".
 * Never NULL; "" when no call has failed yet. */
GF_API const char *gf_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
