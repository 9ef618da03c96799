/* `gpufeed exporter`: the monitor's samples (<gpufeed/monitor.h>) and the
 * audit's results (<gpufeed/audit.h>) as Prometheus metrics, served over
 * HTTP (GET /metrics) or written as a node_exporter text file
 * (docs/exporter.md).
 *
 *   struct gf_exporter_opts o = GF_EXPORTER_OPTS_INIT;
 *   o.listen = "[::]:9400";
 *   struct gf_exporter *e;
 *   gf_exporter_open(&o, &e);      (binds, samples once, runs the checks)
 *   gf_exporter_run(e);            (until gf_exporter_stop, from a signal handler)
 *   gf_exporter_close(e);
 *
 * Samples are taken every interval_s by a thread of their own, not on each
 * scrape: every scraper (two Prometheus servers, a person's curl) sees the
 * same figures over the same interval, and a scrape never waits on NVML.
 * GPU metrics keep DCGM exporter's names, units and labels where the two
 * overlap (gpu, UUID, pci_bus_id, device, modelName, Hostname), so its
 * dashboards read them; the rest are gpufeed_*.  A figure the machine
 * cannot give (NAN, GF_MON_NONE) is left out, never written as 0. */
#ifndef GPUFEED_EXPORTER_H
#define GPUFEED_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/audit.h>
#include <gpufeed/monitor.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Versioned (include/gpufeed/common.h): start from GF_EXPORTER_OPTS_INIT. */
struct gf_exporter_opts {
	size_t struct_size;	/* sizeof(struct gf_exporter_opts), set by GF_EXPORTER_OPTS_INIT */
	const struct gf_topo_options *machine;	/* the model's options (NULL: this machine's model,
						 * the defaults); its root may be a recording whose
						 * model stands for this machine's (a VM that hides
						 * its GPUs' placement, a test with stand-in NVML) */
	const char *listen;	/* "ADDR:PORT" ("127.0.0.1:9400", "[::1]:9400", ":9400" = every
				 * address, IPv6 and IPv4; port 0: the kernel picks one); NULL: no server */
	const char *textfile;	/* written atomically each interval (<gpufeed/outfile.h>); NULL: none */
	double interval_s;	/* between samples; > 0, 15 by default */
	bool once;		/* one sample over one interval, the text file written, then
				 * gf_exporter_run returns (textfile only, no listen) */
	double checks_interval_s;	/* the audit's results renewed this often: > 0; 0: once at
					 * open; < 0: no audit */
	enum gf_profile profile;	/* the audit's profile */
	unsigned parts;		/* enum gf_mon_part bits to sample; GF_MON_ALL by default */
	const char *sample_root;	/* where the figures and the checks read: NULL or "" this
					 * machine; a recording (DIR or FILE.tar.gz): its levels and
					 * its model, only with once (a recording has no rates) */
};
#define GF_EXPORTER_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_exporter_opts), .interval_s = 15.0, .checks_interval_s = 300.0, \
	  .profile = GF_PROFILE_TRAINING, .parts = GF_MON_ALL }

struct gf_exporter;

/* 0 when spec is an address gf_exporter_open can listen on, as text
 * ("ADDR:PORT": numeric IPv4, [IPv6], or empty ADDR for every address;
 * PORT 0 to 65535); -EINVAL with a message naming it otherwise.  It says
 * nothing of whether the address is this host's or the port free. */
GF_API int gf_exporter_check_listen(const char *spec);
/* Checks the options, binds the listening socket (-EADDRINUSE, -EADDRNOTAVAIL,
 * -EINVAL for an address that is not ADDR:PORT, the message naming it),
 * checks the text file's path (-EISDIR and the rest of gf_outfile_check),
 * opens the monitor, takes the first sample and runs the checks.  A
 * sample_root without once is -EINVAL: a recording has no rates to serve. */
GF_API int gf_exporter_open(const struct gf_exporter_opts *opts, struct gf_exporter **out);
/* The address the server listens on ("127.0.0.1:41233", "[::]:9400"):
 * with port 0 the one the kernel chose.  -EINVAL without a listener. */
GF_API int gf_exporter_address(const struct gf_exporter *e, char *buf, size_t size);
/* Serves and samples until gf_exporter_stop (or, with once, until the file
 * is written).  0 when stopped; -errno when the text file could not be
 * written (the message names it) or the server failed. */
GF_API int gf_exporter_run(struct gf_exporter *e);
/* Makes gf_exporter_run return soon.  Async-signal-safe: call it from a
 * SIGTERM handler.  NULL does nothing. */
GF_API void gf_exporter_stop(struct gf_exporter *e);
/* NULL does nothing. */
GF_API void gf_exporter_close(struct gf_exporter *e);

/* One sample (and the audit's results, when a is not NULL) in the
 * Prometheus text exposition format, HELP and TYPE lines first.  t
 * (optional) gives each GPU its device label (nvidiaN).  0, -EIO when
 * writing failed, -EINVAL for s or f NULL. */
GF_API int gf_exporter_write_prom(const struct gf_mon_sample *s, const struct gf_topo *t,
				  const struct gf_audit *a, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
