/* The GPUs' figures from NVML (gpu_nvml.c), behind gpu.c. */
#ifndef GF_MONITOR_GPU_NVML_H
#define GF_MONITOR_GPU_NVML_H

#include <stddef.h>

struct gf_monitor;
struct gf_mon_gpu;

/* Loads and initialises NVML and matches its devices to m->s.gpus by PCI
 * address.  NVML absent or failing is not an error: m->s.gpu_why says it
 * and m->gpu stays NULL.  0, or -ENOMEM. */
int gf_mon_nvml_open(struct gf_monitor *m);
int gf_mon_nvml_sample(struct gf_monitor *m);
void gf_mon_nvml_close(struct gf_monitor *m);
/* Every figure of g unknown (NAN, GF_MON_NONE, 0). */
void gf_mon_gpu_unknown(struct gf_mon_gpu *g);
/* The active reasons of a nvmlClocksEventReasons mask by name, comma
 * separated ("sw_power_cap,hw_slowdown"), "" for none. */
void gf_mon_throttle_names(unsigned long long mask, char *buf, size_t size);

#endif
