/* gpufeed exporter (<gpufeed/exporter.h>): a sampler thread renders the
 * page every interval; the HTTP server hands out copies of the latest one
 * and the text file is rewritten from it.  Sampling on a clock of its own
 * rather than on each scrape keeps the rates' interval fixed whoever
 * scrapes and how often (DCGM exporter's collect interval works the same
 * way), bounds the cost of many scrapers to a copy each, and keeps NVML
 * and the checks off the server's thread, so a slow sample never stalls a
 * scrape and a slow client never stalls a sample. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/exporter.h>
#include <gpufeed/gpufeed.h>
#include "core/atomic.h"
#include "core/error.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/prom.h"
#include "exporter/http.h"

struct gf_exporter {
	struct gf_exporter_opts o;
	struct gf_topo_options machine;	/* the model's */
	struct gf_topo_options live;	/* the figures' and the checks': root NULL, or a recording */
	struct gf_topo *topo;		/* discovered here, or NULL */
	const struct gf_topo *model;	/* topo, or the monitor's */
	struct gf_monitor *mon;
	struct gf_http *http;
	int wake[2];			/* gf_exporter_stop writes, everyone polls */
	pthread_t sampler;
	bool sampler_started;

	/* The sampler thread's own. */
	char *checks;			/* the audit's metrics, rendered when it ran */
	size_t checks_len;
	double checks_due;		/* CLOCK_MONOTONIC */
	double sample_seconds, checks_seconds;
	unsigned long long sample_errors, textfile_errors;

	pthread_mutex_t lock;		/* guards page */
	char *page;
	size_t page_len;
};

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The audit's results, kept as text: gf_audit_write_prom stamps the time it
 * writes, which must stay the time the checks ran. */
static int run_checks(struct gf_exporter *e)
{
	struct gf_audit_options ao = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = NULL;
	char *text = NULL;
	size_t len = 0;
	double t0 = monotonic();
	FILE *f;
	int ret;

	ao.machine = &e->live;
	ao.model = e->model;
	ao.profile = e->o.profile;
	if ((ret = gf_audit_run(&ao, &a)))
		return ret;
	if (!(f = open_memstream(&text, &len))) {
		gf_audit_free(a);
		return gf_error(-ENOMEM, "the checks' metrics: out of memory");
	}
	ret = gf_audit_write_prom(a, f);
	ret = fclose(f) && !ret ? -EIO : ret;
	gf_audit_free(a);
	if (ret) {
		free(text);
		return ret;
	}
	free(e->checks);
	e->checks = text;
	e->checks_len = len;
	e->checks_seconds = monotonic() - t0;
	return 0;
}

static void write_self(struct gf_exporter *e, const struct gf_mon_sample *s, FILE *f)
{
	const char *const version[] = { "version", gf_version(), NULL };

	gf_prom_family(f, "gpufeed_exporter_build_info", "gauge", "1, with gpufeed's version.");
	gf_prom_sample(f, "gpufeed_exporter_build_info", version, 1);
	gf_prom_family(f, "gpufeed_exporter_interval_seconds", "gauge",
		       "The time between two samples (--interval); rates are over the last one.");
	gf_prom_sample(f, "gpufeed_exporter_interval_seconds", NULL, e->o.interval_s);
	gf_prom_family(f, "gpufeed_exporter_sample_timestamp_seconds", "gauge", "When the figures were sampled.");
	gf_prom_sample(f, "gpufeed_exporter_sample_timestamp_seconds", NULL, s->t);
	gf_prom_family(f, "gpufeed_exporter_sample_duration_seconds", "gauge", "What taking the last sample took.");
	gf_prom_sample(f, "gpufeed_exporter_sample_duration_seconds", NULL, e->sample_seconds);
	if (e->checks) {
		gf_prom_family(f, "gpufeed_exporter_checks_duration_seconds", "gauge",
			       "What the last run of the checks took.");
		gf_prom_sample(f, "gpufeed_exporter_checks_duration_seconds", NULL, e->checks_seconds);
	}
	gf_prom_family(f, "gpufeed_exporter_sample_errors_total", "counter",
		       "Samples that failed (the previous page was kept).");
	gf_prom_sample(f, "gpufeed_exporter_sample_errors_total", NULL, (double)e->sample_errors);
}

/* Samples, renders and publishes one page; with a text file, writes it. */
static int take_sample(struct gf_exporter *e)
{
	const struct gf_mon_sample *s;
	char *text = NULL;
	size_t len = 0;
	double t0 = monotonic();
	FILE *f;
	int ret;

	if (e->o.checks_interval_s > 0 && t0 >= e->checks_due && e->checks_due > 0) {
		e->checks_due = t0 + e->o.checks_interval_s;
		if ((ret = run_checks(e)))
			GF_WARN(GF_LOG_CORE, "exporter: the checks failed (their last results are kept): %s",
				gf_last_error());
	}
	if ((ret = gf_monitor_sample(e->mon, &s))) {
		e->sample_errors++;
		return ret;
	}
	e->sample_seconds = monotonic() - t0;
	if (!(f = open_memstream(&text, &len)))
		return gf_error(-ENOMEM, "the exporter's page: out of memory");
	ret = gf_exporter_write_prom(s, e->model, NULL, f);
	if (!ret && e->checks && fwrite(e->checks, 1, e->checks_len, f) != e->checks_len)
		ret = -EIO;
	write_self(e, s, f);
	if (fclose(f) && !ret)
		ret = gf_error(-EIO, "the exporter's page: out of memory");
	if (ret) {
		free(text);
		return ret;
	}
	pthread_mutex_lock(&e->lock);
	free(e->page);
	e->page = text;
	e->page_len = len;
	pthread_mutex_unlock(&e->lock);
	return 0;
}

static int write_page(FILE *f, void *arg)
{
	struct gf_exporter *e = arg;

	/* Only the sampler thread (or open, before it) writes the page: no
	 * lock needed to read it here, on that same thread. */
	return fwrite(e->page, 1, e->page_len, f) == e->page_len ? 0 : -EIO;
}

static int write_textfile(struct gf_exporter *e)
{
	return e->o.textfile ? gf_atomic_write(e->o.textfile, write_page, e) : 0;
}

static bool stopped(struct gf_exporter *e, int timeout_ms)
{
	struct pollfd p = { .fd = e->wake[0], .events = POLLIN };

	return poll(&p, 1, timeout_ms) > 0;
}

static void *sampler_main(void *arg)
{
	struct gf_exporter *e = arg;
	double next = monotonic() + e->o.interval_s;

	for (;;) {
		double wait = next - monotonic();

		if (stopped(e, wait > 0 ? (int)(wait * 1000) + 1 : 0))
			return NULL;
		next += e->o.interval_s;
		/* A sample that took longer than the interval: the next one is
		 * an interval after it, not a burst to catch up. */
		if (next < monotonic())
			next = monotonic() + e->o.interval_s;
		if (take_sample(e)) {
			GF_WARN(GF_LOG_CORE, "exporter: sampling failed (the last page is kept): %s", gf_last_error());
			continue;
		}
		if (write_textfile(e)) {
			e->textfile_errors++;
			GF_WARN(GF_LOG_CORE, "exporter: %s", gf_last_error());
		}
	}
}

static int serve_copy(void *arg, char **body, size_t *len)
{
	struct gf_exporter *e = arg;
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	if (!e->page || !(*body = malloc(e->page_len ? e->page_len : 1)))
		ret = -ENOMEM;
	else
		memcpy(*body, e->page, *len = e->page_len);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

static int check_opts(const struct gf_exporter_opts *o, bool recording)
{
	if (!(o->interval_s > 0) || o->interval_s > 86400)
		return gf_arg_error("gf_exporter_open", "interval_s %g is not in (0, 86400] seconds", o->interval_s);
	if (isnan(o->checks_interval_s))
		return gf_arg_error("gf_exporter_open", "checks_interval_s is NaN");
	if (!o->listen && !o->textfile)
		return gf_arg_error("gf_exporter_open", "neither listen nor textfile: nothing to serve");
	if (o->once && o->listen)
		return gf_arg_error("gf_exporter_open", "once writes the text file and returns: it serves nothing");
	if (o->once && !o->textfile)
		return gf_arg_error("gf_exporter_open", "once needs a textfile to write");
	if (recording && !o->once)
		return gf_arg_error("gf_exporter_open",
				    "a recording has no counters to sample again: only once (its levels, no rates)");
	if (o->profile != GF_PROFILE_TRAINING && o->profile != GF_PROFILE_INFERENCE)
		return gf_arg_error("gf_exporter_open", "profile %d is not a gf_profile", (int)o->profile);
	if (o->parts & ~(unsigned)GF_MON_ALL)
		return gf_arg_error("gf_exporter_open", "parts 0x%x has bits outside GF_MON_ALL", o->parts);
	return 0;
}

/* A sample over one interval (the first only primes the counters), unless
 * a recording, which has no second. */
static int first_page(struct gf_exporter *e, bool recording)
{
	int ret;

	if ((ret = take_sample(e)))
		return ret;
	if (!e->o.once || recording)
		return 0;
	if (stopped(e, (int)(e->o.interval_s * 1000)))
		return 0;
	return take_sample(e);
}

/* The model and the monitor.  Live figures: the model from the machine's
 * options (a recording's may stand for this machine's), handed to the
 * monitor, which then reads this machine.  A recording's figures: the
 * monitor reads the recording and its model. */
static int open_monitor(struct gf_exporter *e)
{
	struct gf_monitor_opts mo = GF_MONITOR_OPTS_INIT;
	int ret;

	mo.parts = e->o.parts;
	if (e->live.root) {
		mo.root = e->live.root;
		if ((ret = gf_monitor_open(&mo, &e->mon)))
			return ret;
		e->model = gf_monitor_topo(e->mon);
		return 0;
	}
	if ((ret = gf_topo_discover(&e->machine, &e->topo)))
		return ret;
	mo.topo = e->model = e->topo;
	return gf_monitor_open(&mo, &e->mon);
}

int gf_exporter_open(const struct gf_exporter_opts *opts, struct gf_exporter **out)
{
	struct gf_exporter_opts o = GF_EXPORTER_OPTS_INIT;
	struct gf_exporter *e;
	bool recording;
	int ret;

	if (!opts || !out)
		return GF_NULL_ARG(!opts ? "opts" : "out");
	*out = NULL;
	if ((ret = gf_opts_check(opts->struct_size, sizeof(o), "gf_exporter_open", "GF_EXPORTER_OPTS_INIT")))
		return ret;
	gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	if (!(e = calloc(1, sizeof(*e))))
		return gf_error(-ENOMEM, "gf_exporter_open: out of memory");
	e->wake[0] = e->wake[1] = -1;
	pthread_mutex_init(&e->lock, NULL);
	e->o = o;
	recording = o.sample_root && o.sample_root[0];
	if ((ret = gf_topo_options_copy(o.machine, &e->machine)))
		goto fail;
	e->live = e->machine;
	e->live.root = recording ? o.sample_root : NULL;
	if ((ret = check_opts(&o, recording)))
		goto fail;
	if (o.textfile) {
		char real[4096];
		enum gf_outfile_mode mode;

		if ((ret = gf_outfile_check(o.textfile, real, sizeof(real), &mode)))
			goto fail;
	}
	if (pipe2(e->wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = gf_error(-errno, "gf_exporter_open: pipe: %s", strerror(errno));
		goto fail;
	}
	if (o.listen && (ret = gf_http_open(o.listen, serve_copy, e, &e->http)))
		goto fail;
	if ((ret = open_monitor(e)))
		goto fail;
	if (o.checks_interval_s >= 0 && (ret = run_checks(e)))
		goto fail;
	e->checks_due = o.checks_interval_s > 0 ? monotonic() + o.checks_interval_s : 0;
	if ((ret = first_page(e, recording)) || (ret = write_textfile(e)))
		goto fail;
	*out = e;
	return 0;
fail:
	gf_exporter_close(e);
	return ret;
}

int gf_exporter_check_listen(const char *spec)
{
	if (!spec)
		return GF_NULL_ARG("spec");
	return gf_http_check_spec(spec);
}

int gf_exporter_address(const struct gf_exporter *e, char *buf, size_t size)
{
	if (!e || !buf)
		return GF_NULL_ARG(!e ? "e" : "buf");
	if (!e->http)
		return gf_arg_error(__func__, "the exporter has no listener (listen was NULL)");
	return gf_http_address(e->http, buf, size);
}

int gf_exporter_run(struct gf_exporter *e)
{
	sigset_t all, old;
	int ret;

	if (!e)
		return GF_NULL_ARG("e");
	if (e->o.once)
		return 0;	/* open took the sample and wrote the file */
	/* Signals are the caller's main thread's: the sampler takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&e->sampler, NULL, sampler_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return gf_error(-ret, "gf_exporter_run: the sampler thread: %s", strerror(ret));
	e->sampler_started = true;
	ret = e->http ? gf_http_serve(e->http, e->wake[0]) : 0;
	while (!e->http && !stopped(e, -1))
		;
	gf_exporter_stop(e);
	pthread_join(e->sampler, NULL);
	e->sampler_started = false;
	return ret;
}

void gf_exporter_stop(struct gf_exporter *e)
{
	if (e && e->wake[1] >= 0) {
		ssize_t n = write(e->wake[1], "x", 1);

		(void)n;	/* a full pipe is already a stop */
	}
}

void gf_exporter_close(struct gf_exporter *e)
{
	if (!e)
		return;
	if (e->sampler_started) {
		gf_exporter_stop(e);
		pthread_join(e->sampler, NULL);
	}
	gf_http_close(e->http);
	gf_monitor_close(e->mon);
	gf_topo_free(e->topo);
	if (e->wake[0] >= 0)
		close(e->wake[0]);
	if (e->wake[1] >= 0)
		close(e->wake[1]);
	free(e->checks);
	free(e->page);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
