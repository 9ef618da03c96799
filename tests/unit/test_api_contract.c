/* The public API's contract: every function src/libgpufeed.map exports has a
 * row here that calls it with NULL pointers, enums out of range, options
 * structs not made with their INIT macro (struct_size 0), negative counts
 * and positions past the end, and checks the documented answer:
 *
 *   int (and ssize_t) functions   -EINVAL, gf_last_error() naming the
 *                                 function and the argument
 *                                 ("gf_topo_print: f is NULL")
 *   name functions                "?" for a value out of range
 *   free, zero, close, interrupt  nothing on NULL
 *   predicates                    false
 *   pointer functions             NULL, with a message when it is a refusal
 *
 * A crash is what this test exists to find (the sanitizer build runs it).
 * every_export_has_a_row reads the map through GPUFEED_SRC and fails naming
 * each exported function that has no row, so a new function gets one. */
#include "helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include <gpufeed/nccl_hang.h>
#include "core/error.h"

/* ---- what the rows check ---- */

static const char *row;		/* the function the running row tries */

#define SENTINEL "(no message from this call)"

/* A message no call writes, so that a refusal's own message is seen. */
static void sentinel(void)
{
	gf_error(-EINVAL, SENTINEL);
}

/* rc is want; the call set a message; with `needle`, the message holds
 * needle, and with `named` the row's function too. */
static void refused(long long rc, long long want, const char *needle, bool named, const char *call, int line)
{
	const char *msg = gf_last_error();

	if (rc != want)
		fail_msg("line %d: %s returned %lld, want %lld (message: %s)", line, call, rc, want, msg);
	if (!strcmp(msg, SENTINEL))
		fail_msg("line %d: %s returned %lld without a message", line, call, rc);
	if (needle && ((named && !strstr(msg, row)) || !strstr(msg, needle)))
		fail_msg("line %d: %s: message \"%s\" should name %s and '%s'", line, call, msg, row, needle);
}

/* The message of a NULL argument: "<function>: <arg> is NULL". */
static const char *null_msg(const char *arg)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s: %s is NULL", row, arg);
	return buf;
}

#define REFUSED(call, want, needle, named)                                             \
	do {                                                                           \
		sentinel();                                                            \
		refused((long long)(call), (want), (needle), (named), #call, __LINE__); \
	} while (0)
/* A NULL pointer argument: -EINVAL, "<function>: <arg> is NULL". */
#define NULL_ARG(call, arg) REFUSED(call, -EINVAL, null_msg(arg), true)
/* A value out of range: -EINVAL naming the function and the argument. */
#define BAD_ARG(call, arg) REFUSED(call, -EINVAL, arg, true)
/* An options struct of struct_size 0: -EINVAL naming the INIT macro (and
 * the function that read it, which for options inside options, the
 * machine's in gf_bind_gpu's, is the one they were handed to). */
#define UNINIT(call, macro) REFUSED(call, -EINVAL, macro, false)
/* A field out of range in a struct handed on to another call: -EINVAL
 * naming the field (the message names the call that read it). */
#define BAD_FIELD(call, field) REFUSED(call, -EINVAL, field, false)
/* Fails with want and some message of the subsystem's own. */
#define FAILS(call, want) REFUSED(call, want, NULL, false)

/* A pointer function refusing a NULL argument: NULL and the message. */
#define NO_PTR(call, arg)                                                              \
	do {                                                                           \
		sentinel();                                                            \
		if ((call) != NULL)                                                    \
			fail_msg("line %d: %s is not NULL", __LINE__, #call);          \
		if (!strstr(gf_last_error(), null_msg(arg)))                           \
			fail_msg("line %d: %s: message \"%s\", want \"%s\"", __LINE__, #call, \
				 gf_last_error(), null_msg(arg));                      \
	} while (0)
/* A pointer function past its end or finding nothing: NULL. */
#define NONE(call)                                                                     \
	do {                                                                           \
		if ((call) != NULL)                                                    \
			fail_msg("line %d: %s is not NULL", __LINE__, #call);          \
	} while (0)
#define NAME_Q(call) assert_string_equal((call), "?")

/* Garbage for enums and counts. */
#define BAD_ENUM 1000
#define NEG_ENUM (-7)

/* ---- what the rows call with: valid objects, made once ---- */

static struct {
	char *dir;			/* a scratch directory */
	char path[PATH_MAX];		/* a file in it */
	FILE *out;			/* /dev/null */
	struct gf_topo_options machine;	/* the hgx-h100-8gpu recording, NVML off */
	struct gf_topo *t;		/* its model */
	struct gf_audit *a;
	struct gf_tune_report *tune;
	struct gf_verify *v;
	struct gf_plan *plan;
	struct gf_launch_plan *lp;
	struct gf_binding binding;
	struct gf_bench *bench;
	struct gf_io *io;
	struct gf_file *file;
	struct gf_buf *buf;
	struct gf_devbuf *dev;
	struct gf_xfer *xfer;
	uint64_t xdev;			/* 4096 bytes on xfer's GPU */
	struct gf_cpuset set;		/* CPUs 0-3 */
} w;

static char *launch_argv[] = { "true", NULL };


static int setup(void **state)
{
	struct gf_topo_options mo = GF_TOPO_OPTS_INIT;
	struct gf_audit_options ao = GF_AUDIT_OPTS_INIT;
	struct gf_tune_options to = GF_TUNE_OPTS_INIT;
	struct gf_verify_options vo = GF_VERIFY_OPTS_INIT;
	struct gf_plan_options po = GF_PLAN_OPTS_INIT;
	struct gf_launch_job_options lo = GF_LAUNCH_JOB_OPTS_INIT;
	struct gf_bind_options bo = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { .gpu = 0, .mig = -1 };
	struct gf_io_opts io = GF_IO_OPTS_INIT;
	struct gf_buf_opts b = GF_BUF_OPTS_INIT;
	struct gf_xfer_opts xo = GF_XFER_OPTS_INIT;

	(void)state;
	t_use_fakes();
	w.dir = t_mkdtemp();
	snprintf(w.path, sizeof(w.path), "%s/file", w.dir);
	assert_non_null(w.out = fopen("/dev/null", "w"));
	mo.root = t_fixture_root("hgx-h100-8gpu");
	mo.nvml = GF_NVML_AUTO;
	w.machine = mo;
	assert_int_equal(gf_topo_discover(&w.machine, &w.t), 0);
	ao.machine = &w.machine;
	ao.model = w.t;
	assert_int_equal(gf_audit_run(&ao, &w.a), 0);
	to.machine = &w.machine;
	to.state_dir = w.dir;
	assert_int_equal(gf_tune_revert(&to, &w.tune), 0);
	vo.machine = &w.machine;
	assert_int_equal(gf_verify_run(&vo, 0, &w.v), 0);
	po.ngpus = 2;
	assert_int_equal(gf_plan_compute(w.t, &po, &w.plan), 0);
	lo.argv = launch_argv;
	lo.no_bind = true;
	lo.nproc = 2;
	assert_int_equal(gf_launch_plan_new(NULL, &lo, &w.lp), 0);
	bo.allowed_from_model = true;
	assert_int_equal(gf_bind_compute(w.t, &tg, 1, &bo, &w.binding), 0);
	assert_int_equal(gf_bench_new("h2d", &w.bench), 0);
	io.backend = GF_IO_PSYNC;
	assert_int_equal(gf_io_open(&io, &w.io), 0);
	assert_int_equal(gf_file_open(w.io, w.path, GF_FILE_WRITE | GF_FILE_CREATE, 0644, &w.file), 0);
	b.size = 4096;
	assert_int_equal(gf_buf_alloc(&b, &w.buf), 0);
	assert_int_equal(gf_devbuf_alloc(0, 4096, &w.dev), 0);
	assert_int_equal(gf_xfer_open(&xo, &w.xfer), 0);
	assert_int_equal(gf_xfer_dev_alloc(w.xfer, 4096, &w.xdev), 0);
	assert_int_equal(gf_cpuset_parse_list(&w.set, "0-3"), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gf_xfer_dev_free(w.xfer, w.xdev);
	gf_xfer_close(w.xfer);
	gf_devbuf_free(w.dev);
	gf_buf_free(w.buf);
	gf_file_close(w.file);
	gf_io_close(w.io, GF_IO_DRAIN);
	gf_bench_free(w.bench);
	gf_launch_plan_free(w.lp);
	gf_plan_free(w.plan);
	gf_verify_free(w.v);
	gf_tune_report_free(w.tune);
	gf_audit_free(w.a);
	gf_topo_free(w.t);
	fclose(w.out);
	t_rmtree(w.dir);
	free(w.dir);
	return 0;
}

/* ---- error.h, gpufeed.h, log.h, env.h, parse.h ---- */

static void row_gf_last_error(void)
{
	assert_non_null(gf_last_error());
}

static void row_gf_version(void)
{
	assert_string_equal(gf_version(), GF_VERSION_STRING);
}

static void row_gf_log_set_callback(void)
{
	gf_log_set_callback(NULL, NULL);	/* documented: messages go nowhere */
}

static void row_gf_log_stderr(void)
{
	gf_log_stderr(GF_LOG_WARN, GF_LOG_IO, NULL, NULL);	/* no message: nothing */
}

static void row_gf_log_set_level(void)
{
	enum gf_log_level before = gf_log_level_of(GF_LOG_IO);

	gf_log_set_level(BAD_ENUM, GF_LOG_DEBUG);
	gf_log_set_level(NEG_ENUM, GF_LOG_DEBUG);
	gf_log_set_level(GF_LOG_IO, BAD_ENUM);
	gf_log_set_level(GF_LOG_IO, NEG_ENUM);
	assert_int_equal(gf_log_level_of(GF_LOG_IO), before);
}

static void row_gf_log_level_of(void)
{
	assert_int_equal(gf_log_level_of(BAD_ENUM), GF_LOG_NONE);
	assert_int_equal(gf_log_level_of(NEG_ENUM), GF_LOG_NONE);
	assert_int_equal(gf_log_level_of(GF_LOG_NSUBSYS), GF_LOG_NONE);
}

static void row_gf_log_parse(void)
{
	NULL_ARG(gf_log_parse(NULL), "spec");
	FAILS(gf_log_parse("io:loud"), -EINVAL);
}

static void row_gf_log_level_name(void)
{
	NAME_Q(gf_log_level_name(BAD_ENUM));
	NAME_Q(gf_log_level_name(NEG_ENUM));
}

static void row_gf_log_subsys_name(void)
{
	NAME_Q(gf_log_subsys_name(BAD_ENUM));
	NAME_Q(gf_log_subsys_name(NEG_ENUM));
	NAME_Q(gf_log_subsys_name(GF_LOG_NSUBSYS));
}

static void row_gf_env_name(void)
{
	NAME_Q(gf_env_name(BAD_ENUM));
	NAME_Q(gf_env_name(NEG_ENUM));
}

static void row_gf_env_str(void)
{
	NONE(gf_env_str(BAD_ENUM));
	NONE(gf_env_str(NEG_ENUM));
}

static void row_gf_env_int(void)
{
	long long v = 0;

	BAD_ARG(gf_env_int(BAD_ENUM, &v), "var");
	BAD_ARG(gf_env_int(NEG_ENUM, &v), "var");
	NULL_ARG(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, NULL), "out");
	BAD_ARG(gf_env_int(GF_ENV_LOG, &v), "GPUFEED_LOG");	/* not an integer variable */
}

static void row_gf_env_flag(void)
{
	assert_false(gf_env_flag(BAD_ENUM));
	assert_false(gf_env_flag(NEG_ENUM));
}

static void row_gf_parse_size(void)
{
	uint64_t v;

	NULL_ARG(gf_parse_size(NULL, &v), "s");
	NULL_ARG(gf_parse_size("4K", NULL), "v");
	FAILS(gf_parse_size("-4K", &v), -EINVAL);
}

static void row_gf_parse_count(void)
{
	uint64_t v;

	NULL_ARG(gf_parse_count(NULL, 0, 10, &v), "s");
	NULL_ARG(gf_parse_count("4", 0, 10, NULL), "v");
	BAD_ARG(gf_parse_count("4", 10, 0, &v), "lo");
}

static void row_gf_parse_duration(void)
{
	double d;

	NULL_ARG(gf_parse_duration(NULL, &d), "s");
	NULL_ARG(gf_parse_duration("1s", NULL), "seconds");
	FAILS(gf_parse_duration("nan", &d), -EINVAL);
}

/* ---- cpuset.h ---- */

static void row_gf_cpuset_zero(void)
{
	gf_cpuset_zero(NULL);
}

static void row_gf_cpuset_set(void)
{
	struct gf_cpuset s;

	gf_cpuset_zero(&s);
	gf_cpuset_set(NULL, 0);
	gf_cpuset_set(&s, GF_CPUSET_MAX);
	gf_cpuset_set(&s, UINT_MAX);
	assert_true(gf_cpuset_empty(&s));
}

static void row_gf_cpuset_clear(void)
{
	struct gf_cpuset s = w.set;

	gf_cpuset_clear(NULL, 0);
	gf_cpuset_clear(&s, GF_CPUSET_MAX);
	gf_cpuset_clear(&s, UINT_MAX);
	assert_true(gf_cpuset_equal(&s, &w.set));
}

static void row_gf_cpuset_isset(void)
{
	assert_false(gf_cpuset_isset(NULL, 0));
	assert_false(gf_cpuset_isset(&w.set, GF_CPUSET_MAX));
	assert_false(gf_cpuset_isset(&w.set, UINT_MAX));
}

static void row_gf_cpuset_count(void)
{
	assert_int_equal(gf_cpuset_count(NULL), 0);
}

static void row_gf_cpuset_empty(void)
{
	assert_false(gf_cpuset_empty(NULL));
}

static void row_gf_cpuset_equal(void)
{
	assert_false(gf_cpuset_equal(NULL, &w.set));
	assert_false(gf_cpuset_equal(&w.set, NULL));
	assert_false(gf_cpuset_equal(NULL, NULL));
}

/* and, or, andnot: a NULL anywhere leaves dst as it was. */
static void binary_op(void (*op)(struct gf_cpuset *, const struct gf_cpuset *, const struct gf_cpuset *))
{
	struct gf_cpuset d = w.set, empty;

	gf_cpuset_zero(&empty);
	op(NULL, &w.set, &empty);
	op(&d, NULL, &empty);
	op(&d, &empty, NULL);
	op(&d, NULL, NULL);
	assert_true(gf_cpuset_equal(&d, &w.set));
}

static void row_gf_cpuset_and(void)
{
	binary_op(gf_cpuset_and);
}

static void row_gf_cpuset_or(void)
{
	binary_op(gf_cpuset_or);
}

static void row_gf_cpuset_andnot(void)
{
	binary_op(gf_cpuset_andnot);
}

static void row_gf_cpuset_first(void)
{
	assert_int_equal(gf_cpuset_first(NULL), -1);
}

static void row_gf_cpuset_next(void)
{
	assert_int_equal(gf_cpuset_next(NULL, -1), -1);
	assert_int_equal(gf_cpuset_next(&w.set, INT_MIN), 0);	/* every member is after it */
	assert_int_equal(gf_cpuset_next(&w.set, -100), 0);
	assert_int_equal(gf_cpuset_next(&w.set, GF_CPUSET_MAX), -1);
	assert_int_equal(gf_cpuset_next(&w.set, INT_MAX), -1);
}

static void row_gf_cpuset_parse_list(void)
{
	struct gf_cpuset s;

	NULL_ARG(gf_cpuset_parse_list(NULL, "0-3"), "s");
	NULL_ARG(gf_cpuset_parse_list(&s, NULL), "text");
	FAILS(gf_cpuset_parse_list(&s, "3-1"), -EINVAL);
	FAILS(gf_cpuset_parse_list(&s, "0-99999"), -ERANGE);
}

static void row_gf_cpuset_parse_mask(void)
{
	struct gf_cpuset s;

	NULL_ARG(gf_cpuset_parse_mask(NULL, "ff"), "s");
	NULL_ARG(gf_cpuset_parse_mask(&s, NULL), "text");
	FAILS(gf_cpuset_parse_mask(&s, "xyz"), -EINVAL);
}

static void row_gf_cpuset_format_list(void)
{
	char buf[16] = "junk";

	assert_int_equal(gf_cpuset_format_list(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(gf_cpuset_format_list(&w.set, NULL, 0), 3);	/* "0-3": the length it needs */
	assert_int_equal(gf_cpuset_format_list(&w.set, NULL, sizeof(buf)), 3);
	assert_int_equal(gf_cpuset_format_list(NULL, NULL, 0), 0);
}

/* ---- topo.h ---- */

static void row_gf_source_name(void)
{
	NAME_Q(gf_source_name(BAD_ENUM));
	NAME_Q(gf_source_name(NEG_ENUM));
}

static void row_gf_pci_kind_name(void)
{
	NAME_Q(gf_pci_kind_name(BAD_ENUM));
	NAME_Q(gf_pci_kind_name(NEG_ENUM));
}

static void row_gf_link_type_name(void)
{
	NAME_Q(gf_link_type_name(BAD_ENUM));
	NAME_Q(gf_link_type_name(NEG_ENUM));
}

static void row_gf_severity_name(void)
{
	NAME_Q(gf_severity_name(BAD_ENUM));
	NAME_Q(gf_severity_name(NEG_ENUM));
}

static void row_gf_matrix_at(void)
{
	const struct gf_matrix *m = &w.t->matrix;

	NO_PTR(gf_matrix_at(NULL, 0, 0), "m");
	NONE(gf_matrix_at(m, -1, 0));
	NONE(gf_matrix_at(m, 0, -1));
	NONE(gf_matrix_at(m, m->n, 0));
	NONE(gf_matrix_at(m, 0, m->n));
}

static void row_gf_link_format(void)
{
	struct gf_link l = { .type = BAD_ENUM, .pcie = NEG_ENUM };
	char buf[16];

	NULL_ARG(gf_link_format(NULL, buf, sizeof(buf)), "l");
	assert_int_equal(gf_link_format(&l, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "?");
	l.type = GF_LINK_NV;
	l.nvlinks = -3;
	assert_true(gf_link_format(&l, NULL, 0) > 0);	/* snprintf's: the length */
	assert_true(gf_link_format(&l, NULL, sizeof(buf)) > 0);
}

static void row_gf_topo_options_copy(void)
{
	struct gf_topo_options in = GF_TOPO_OPTS_INIT, out;

	NULL_ARG(gf_topo_options_copy(&in, NULL), "out");
	in.struct_size = 0;
	UNINIT(gf_topo_options_copy(&in, &out), "GF_TOPO_OPTS_INIT");
	in = (struct gf_topo_options)GF_TOPO_OPTS_INIT;
	in.nvml = BAD_ENUM;
	BAD_ARG(gf_topo_options_copy(&in, &out), "nvml");
}

static void row_gf_topo_discover(void)
{
	struct gf_topo_options o = w.machine;
	struct gf_topo *t = (struct gf_topo *)&t;

	NULL_ARG(gf_topo_discover(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_topo_discover(&o, &t), "GF_TOPO_OPTS_INIT");
	assert_null(t);
	o = w.machine;
	o.nvml = BAD_ENUM;
	BAD_ARG(gf_topo_discover(&o, &t), "nvml");
	o = w.machine;
	o.omit = 1u << 30;
	BAD_ARG(gf_topo_discover(&o, &t), "omit");
	o = w.machine;
	o.pci_locality = "garbage";
	FAILS(gf_topo_discover(&o, &t), -EINVAL);
}

static void row_gf_pci_locality_check(void)
{
	NULL_ARG(gf_pci_locality_check(NULL), "spec");
	FAILS(gf_pci_locality_check("0000:00:06.0=x"), -EINVAL);
}

static void row_gf_topo_free(void)
{
	gf_topo_free(NULL);
}

static void row_gf_topo_finding_count(void)
{
	NULL_ARG(gf_topo_finding_count(NULL, GF_SEV_WARN), "t");
	BAD_ARG(gf_topo_finding_count(w.t, BAD_ENUM), "min");
	BAD_ARG(gf_topo_finding_count(w.t, NEG_ENUM), "min");
}

static void row_gf_topo_find_gpu(void)
{
	NULL_ARG(gf_topo_find_gpu(NULL, "0"), "t");
	NULL_ARG(gf_topo_find_gpu(w.t, NULL), "spec");
	FAILS(gf_topo_find_gpu(w.t, "GPU-nonesuch"), -ENOENT);
}

static void row_gf_topo_pci_node(void)
{
	NULL_ARG(gf_topo_pci_node(NULL, "0000:00:00.0"), "t");
	NULL_ARG(gf_topo_pci_node(w.t, NULL), "pci");
	BAD_ARG(gf_topo_pci_node(w.t, "GPU-3"), "pci");
	FAILS(gf_topo_pci_node(w.t, "0000:fe:1f.7"), -ENOENT);
}

static void row_gf_topo_print(void)
{
	NULL_ARG(gf_topo_print(NULL, w.out, 0), "t");
	NULL_ARG(gf_topo_print(w.t, NULL, 0), "f");
}

static void row_gf_topo_write_json(void)
{
	NULL_ARG(gf_topo_write_json(NULL, w.out), "t");
	NULL_ARG(gf_topo_write_json(w.t, NULL), "f");
}

static void row_gf_topo_print_matrix(void)
{
	NULL_ARG(gf_topo_print_matrix(NULL, w.out), "t");
	NULL_ARG(gf_topo_print_matrix(w.t, NULL), "f");
}

static void row_gf_topo_write_matrix_json(void)
{
	NULL_ARG(gf_topo_write_matrix_json(NULL, w.out), "t");
	NULL_ARG(gf_topo_write_matrix_json(w.t, NULL), "f");
}

/* The calls that take a GPU's position in t->gpus. */
static void gpu_calls(int (*fn)(const struct gf_topo *, int, FILE *))
{
	NULL_ARG(fn(NULL, 0, w.out), "t");
	NULL_ARG(fn(w.t, 0, NULL), "f");
	BAD_ARG(fn(w.t, -1, w.out), "gpu");
	BAD_ARG(fn(w.t, w.t->ngpus, w.out), "gpu");
}

static void row_gf_topo_print_gpu(void)
{
	gpu_calls(gf_topo_print_gpu);
}

static void row_gf_topo_write_gpu_json(void)
{
	gpu_calls(gf_topo_write_gpu_json);
}

static void row_gf_topo_nearest_nic(void)
{
	NULL_ARG(gf_topo_nearest_nic(NULL, 0), "t");
	BAD_ARG(gf_topo_nearest_nic(w.t, -1), "gpu");
	BAD_ARG(gf_topo_nearest_nic(w.t, w.t->ngpus), "gpu");
}

static void row_gf_topo_print_nearest_nic(void)
{
	gpu_calls(gf_topo_print_nearest_nic);
}

static void row_gf_topo_write_nearest_nic_json(void)
{
	gpu_calls(gf_topo_write_nearest_nic_json);
}

/* ---- record.h, report.h ---- */

static void row_gf_record(void)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	char target[PATH_MAX + 8];

	snprintf(target, sizeof(target), "%s/rec", w.dir);
	o.machine = &w.machine;
	NULL_ARG(gf_record(NULL, &o, NULL), "dir");
	o.struct_size = 0;
	UNINIT(gf_record(target, &o, NULL), "GF_RECORD_OPTS_INIT");
	o = (struct gf_record_options)GF_RECORD_OPTS_INIT;
	o.machine = &w.machine;
	o.format = BAD_ENUM;
	BAD_ARG(gf_record(target, &o, NULL), "format");
	assert_int_equal(access(target, F_OK), -1);
}

static void row_gf_record_write_json(void)
{
	struct gf_record_stats st = { .files = 1 };

	NULL_ARG(gf_record_write_json(NULL, "dir", &st), "f");
	NULL_ARG(gf_record_write_json(w.out, NULL, &st), "dir");
	NULL_ARG(gf_record_write_json(w.out, "dir", NULL), "stats");
}

static void row_gf_report_print_with_audit(void)
{
	NULL_ARG(gf_report_print_with_audit(NULL, w.a, w.out, 0), "t");
	NULL_ARG(gf_report_print_with_audit(w.t, w.a, NULL, 0), "f");
}

static void row_gf_report_write_json_with_audit(void)
{
	NULL_ARG(gf_report_write_json_with_audit(NULL, w.a, w.out), "t");
	NULL_ARG(gf_report_write_json_with_audit(w.t, w.a, NULL), "f");
}

/* ---- audit.h ---- */

static void row_gf_check_status_name(void)
{
	NAME_Q(gf_check_status_name(BAD_ENUM));
	NAME_Q(gf_check_status_name(NEG_ENUM));
	NAME_Q(gf_check_status_name(GF_CHECK_NSTATUS));
}

static void row_gf_profile_name(void)
{
	NAME_Q(gf_profile_name(BAD_ENUM));
	NAME_Q(gf_profile_name(NEG_ENUM));
}

static void row_gf_profile_parse(void)
{
	enum gf_profile p;

	NULL_ARG(gf_profile_parse(NULL, &p), "word");
	NULL_ARG(gf_profile_parse("training", NULL), "out");
	FAILS(gf_profile_parse("racing", &p), -EINVAL);
}

static void row_gf_fix_class_name(void)
{
	NAME_Q(gf_fix_class_name(BAD_ENUM));
	NAME_Q(gf_fix_class_name(NEG_ENUM));
}

static void row_gf_check_count(void)
{
	assert_true(gf_check_count() > 0);
}

static void row_gf_check_info_at(void)
{
	NONE(gf_check_info_at(-1));
	NONE(gf_check_info_at(INT_MIN));
	NONE(gf_check_info_at(gf_check_count()));
}

static void row_gf_checks_write_markdown(void)
{
	NULL_ARG(gf_checks_write_markdown(NULL), "f");
}

static void row_gf_checks_write_json(void)
{
	NULL_ARG(gf_checks_write_json(NULL), "f");
}

static void row_gf_audit_run(void)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = (struct gf_audit *)&a;

	o.machine = &w.machine;
	o.model = w.t;
	NULL_ARG(gf_audit_run(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_audit_run(&o, &a), "GF_AUDIT_OPTS_INIT");
	assert_null(a);
	o = (struct gf_audit_options)GF_AUDIT_OPTS_INIT;
	o.machine = &w.machine;
	o.model = w.t;
	o.profile = BAD_ENUM;
	BAD_ARG(gf_audit_run(&o, &a), "profile");
}

static void row_gf_audit_free(void)
{
	gf_audit_free(NULL);
}

static void row_gf_audit_count_at_least(void)
{
	NULL_ARG(gf_audit_count_at_least(NULL, GF_CHECK_WARN), "a");
	BAD_ARG(gf_audit_count_at_least(w.a, BAD_ENUM), "level");
	BAD_ARG(gf_audit_count_at_least(w.a, NEG_ENUM), "level");
}

static void row_gf_audit_print(void)
{
	NULL_ARG(gf_audit_print(NULL, w.out, 0), "a");
	NULL_ARG(gf_audit_print(w.a, NULL, 0), "f");
}

static void row_gf_audit_write_json(void)
{
	NULL_ARG(gf_audit_write_json(NULL, w.out), "a");
	NULL_ARG(gf_audit_write_json(w.a, NULL), "f");
}

static void row_gf_audit_write_prom(void)
{
	NULL_ARG(gf_audit_write_prom(NULL, w.out), "a");
	NULL_ARG(gf_audit_write_prom(w.a, NULL), "f");
}

static void row_gf_audit_save_prom(void)
{
	NULL_ARG(gf_audit_save_prom(NULL, w.path), "a");
	NULL_ARG(gf_audit_save_prom(w.a, NULL), "path");
}

static void row_gf_audit_print_summary(void)
{
	NULL_ARG(gf_audit_print_summary(NULL, w.out, 3, 0), "a");
	NULL_ARG(gf_audit_print_summary(w.a, NULL, 3, 0), "f");
	BAD_ARG(gf_audit_print_summary(w.a, w.out, -1, 0), "max");
}

/* ---- tune.h ---- */

static void row_gf_tune_action_name(void)
{
	NAME_Q(gf_tune_action_name(BAD_ENUM));
	NAME_Q(gf_tune_action_name(NEG_ENUM));
	NAME_Q(gf_tune_action_name(GF_TUNE_NACTIONS));
}

static void row_gf_tune_action_undone(void)
{
	assert_false(gf_tune_action_undone(BAD_ENUM));
	assert_false(gf_tune_action_undone(NEG_ENUM));
}

/* tune and revert: on the recording, dry, with a journal in the scratch
 * directory, so nothing of this machine is touched even by a bug. */
static struct gf_tune_options tune_opts(void)
{
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;

	o.machine = &w.machine;
	o.state_dir = w.dir;
	o.dry_run = true;
	return o;
}

static void row_gf_tune_run(void)
{
	struct gf_tune_options o = tune_opts();
	struct gf_tune_report *r = (struct gf_tune_report *)&r;

	NULL_ARG(gf_tune_run(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_tune_run(&o, &r), "GF_TUNE_OPTS_INIT");
	assert_null(r);
	o = tune_opts();
	o.profile = BAD_ENUM;
	BAD_ARG(gf_tune_run(&o, &r), "profile");
	assert_null(r);
}

static void row_gf_tune_revert(void)
{
	struct gf_tune_options o = tune_opts();
	struct gf_tune_report *r = (struct gf_tune_report *)&r;

	o.dry_run = false;
	NULL_ARG(gf_tune_revert(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_tune_revert(&o, &r), "GF_TUNE_OPTS_INIT");
	assert_null(r);
}

static void row_gf_tune_report_free(void)
{
	gf_tune_report_free(NULL);
}

static void row_gf_tune_undone(void)
{
	NULL_ARG(gf_tune_undone(NULL), "r");
}

static void row_gf_tune_print(void)
{
	NULL_ARG(gf_tune_print(NULL, w.out, false), "r");
	NULL_ARG(gf_tune_print(w.tune, NULL, false), "f");
}

/* ---- bind.h ---- */

static void row_gf_bind_cpu_mode_name(void)
{
	NAME_Q(gf_bind_cpu_mode_name(BAD_ENUM));
	NAME_Q(gf_bind_cpu_mode_name(NEG_ENUM));
}

static void row_gf_bind_mem_policy_name(void)
{
	NAME_Q(gf_bind_mem_policy_name(BAD_ENUM));
	NAME_Q(gf_bind_mem_policy_name(NEG_ENUM));
}

static void row_gf_bind_cpu_mode_parse(void)
{
	enum gf_bind_cpu_mode m;

	NULL_ARG(gf_bind_cpu_mode_parse(NULL, &m), "s");
	NULL_ARG(gf_bind_cpu_mode_parse("node", NULL), "out");
	FAILS(gf_bind_cpu_mode_parse("nodes", &m), -EINVAL);
}

static void row_gf_bind_mem_policy_parse(void)
{
	enum gf_bind_mem_policy p;

	NULL_ARG(gf_bind_mem_policy_parse(NULL, &p), "s");
	NULL_ARG(gf_bind_mem_policy_parse("bind", NULL), "out");
	FAILS(gf_bind_mem_policy_parse("glue", &p), -EINVAL);
}

static void row_gf_bind_parse_targets(void)
{
	struct gf_bind_target tg[4];

	NULL_ARG(gf_bind_parse_targets(NULL, "0", tg, 4), "t");
	NULL_ARG(gf_bind_parse_targets(w.t, NULL, tg, 4), "list");
	NULL_ARG(gf_bind_parse_targets(w.t, "0", NULL, 4), "out");
	BAD_ARG(gf_bind_parse_targets(w.t, "0", tg, -1), "max");
	BAD_ARG(gf_bind_parse_targets(w.t, "0", tg, 0), "max");
}

static void row_gf_bind_compute(void)
{
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { .gpu = 0, .mig = -1 }, bad;
	struct gf_binding b;
	int sharing[2] = { 0, 99 };

	o.allowed_from_model = true;
	NULL_ARG(gf_bind_compute(NULL, &tg, 1, &o, &b), "t");
	NULL_ARG(gf_bind_compute(w.t, NULL, 1, &o, &b), "targets");
	NULL_ARG(gf_bind_compute(w.t, &tg, 1, &o, NULL), "out");
	BAD_ARG(gf_bind_compute(w.t, &tg, 0, &o, &b), "ntargets");
	BAD_ARG(gf_bind_compute(w.t, &tg, -1, &o, &b), "ntargets");
	BAD_ARG(gf_bind_compute(w.t, &tg, GF_BIND_MAX_TARGETS + 1, &o, &b), "ntargets");
	bad = (struct gf_bind_target){ .gpu = w.t->ngpus, .mig = -1 };
	BAD_ARG(gf_bind_compute(w.t, &bad, 1, &o, &b), "gpu");
	bad = (struct gf_bind_target){ .gpu = -1, .mig = -1 };
	BAD_ARG(gf_bind_compute(w.t, &bad, 1, &o, &b), "gpu");
	bad = (struct gf_bind_target){ .gpu = 0, .mig = 99 };
	BAD_ARG(gf_bind_compute(w.t, &bad, 1, &o, &b), "mig");
	o.struct_size = 0;
	UNINIT(gf_bind_compute(w.t, &tg, 1, &o, &b), "GF_BIND_OPTS_INIT");
	o = (struct gf_bind_options)GF_BIND_OPTS_INIT;
	o.allowed_from_model = true;
	o.cpu = BAD_ENUM;
	BAD_ARG(gf_bind_compute(w.t, &tg, 1, &o, &b), "cpu");
	o.cpu = GF_BIND_CPU_NODE;
	o.mem = NEG_ENUM;
	BAD_ARG(gf_bind_compute(w.t, &tg, 1, &o, &b), "mem");
	o.mem = GF_BIND_MEM_BIND;
	o.cpu = GF_BIND_CPU_EXCLUSIVE;
	o.sharing = sharing;
	o.nsharing = -1;
	BAD_ARG(gf_bind_compute(w.t, &tg, 1, &o, &b), "nsharing");
	o.nsharing = 2;
	BAD_ARG(gf_bind_compute(w.t, &tg, 1, &o, &b), "sharing");
}

/* A binding that is not one gf_bind_compute made. */
static struct gf_binding bad_binding(int ntargets, int gpu)
{
	struct gf_binding b = w.binding;

	b.ntargets = ntargets;
	b.target[0].gpu = gpu;
	return b;
}

static void row_gf_bind_apply(void)
{
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_binding b = w.binding;

	NULL_ARG(gf_bind_apply(NULL, &o), "b");
	o.struct_size = 0;
	UNINIT(gf_bind_apply(&b, &o), "GF_BIND_OPTS_INIT");
	o = (struct gf_bind_options)GF_BIND_OPTS_INIT;
	b.cpu_mode = BAD_ENUM;
	BAD_ARG(gf_bind_apply(&b, &o), "cpu_mode");
	b = w.binding;
	b.mem_policy = NEG_ENUM;
	BAD_ARG(gf_bind_apply(&b, &o), "mem_policy");
}

static void row_gf_bind_setenv(void)
{
	struct gf_binding b = bad_binding(-1, 0);

	NULL_ARG(gf_bind_setenv(NULL, 0), "b");
	BAD_ARG(gf_bind_setenv(&b, 0), "ntargets");
}

static void row_gf_bind_gpu(void)
{
	struct gf_topo_options m = w.machine;
	struct gf_bind_options o = GF_BIND_OPTS_INIT;

	NULL_ARG(gf_bind_gpu(NULL, &m, &o), "list");
	m.struct_size = 0;
	UNINIT(gf_bind_gpu("0", &m, &o), "GF_TOPO_OPTS_INIT");
	m = w.machine;
	o.struct_size = 0;
	UNINIT(gf_bind_gpu("0", &m, &o), "GF_BIND_OPTS_INIT");
	o = (struct gf_bind_options)GF_BIND_OPTS_INIT;
	o.cpu = BAD_ENUM;
	BAD_ARG(gf_bind_gpu("0", &m, &o), "cpu");
}

static void binding_writers(int (*print)(const struct gf_topo *, const struct gf_binding *, unsigned, FILE *),
			    int (*json)(const struct gf_topo *, const struct gf_binding *, unsigned, char *const *,
					FILE *))
{
	struct gf_binding b;

	if (print) {
		NULL_ARG(print(NULL, &w.binding, 0, w.out), "t");
		NULL_ARG(print(w.t, NULL, 0, w.out), "b");
		NULL_ARG(print(w.t, &w.binding, 0, NULL), "f");
		b = bad_binding(-1, 0);
		BAD_ARG(print(w.t, &b, 0, w.out), "ntargets");
		b = bad_binding(GF_BIND_MAX_TARGETS + 1, 0);
		BAD_ARG(print(w.t, &b, 0, w.out), "ntargets");
		b = bad_binding(1, w.t->ngpus);
		BAD_ARG(print(w.t, &b, 0, w.out), "gpu");
	} else {
		NULL_ARG(json(NULL, &w.binding, 0, NULL, w.out), "t");
		NULL_ARG(json(w.t, NULL, 0, NULL, w.out), "b");
		NULL_ARG(json(w.t, &w.binding, 0, NULL, NULL), "f");
		b = bad_binding(-1, 0);
		BAD_ARG(json(w.t, &b, 0, NULL, w.out), "ntargets");
		b = bad_binding(1, -5);
		BAD_ARG(json(w.t, &b, 0, NULL, w.out), "gpu");
	}
}

static void row_gf_bind_print(void)
{
	binding_writers(gf_bind_print, NULL);
}

static void row_gf_bind_write_json(void)
{
	binding_writers(NULL, gf_bind_write_json);
}

/* ---- launch.h ---- */

/* Valid options for /bin/true, so garbage that slips through runs nothing
 * harmful. */
static struct gf_launch_options launch_opts(void)
{
	struct gf_launch_options o = GF_LAUNCH_OPTS_INIT;

	o.nproc = 1;
	o.argv = launch_argv;
	o.quiet = true;
	return o;
}

static void row_gf_launch_run(void)
{
	struct gf_launch_options o = launch_opts();
	struct gf_launch_result r;

	NULL_ARG(gf_launch_run(NULL, &r), "opts");
	NULL_ARG(gf_launch_run(&o, NULL), "res");
	o.struct_size = 0;
	UNINIT(gf_launch_run(&o, &r), "GF_LAUNCH_OPTS_INIT");
	o = launch_opts();
	o.nproc = 0;
	BAD_ARG(gf_launch_run(&o, &r), "nproc");
	o.nproc = -1;
	BAD_ARG(gf_launch_run(&o, &r), "nproc");
	o.nproc = GF_LAUNCH_MAX_PROCS + 1;
	BAD_ARG(gf_launch_run(&o, &r), "nproc");
	o = launch_opts();
	o.argv = NULL;
	NULL_ARG(gf_launch_run(&o, &r), "argv");
	o.argv = (char *const[]){ NULL };
	BAD_ARG(gf_launch_run(&o, &r), "argv");
	o = launch_opts();
	o.grace_s = -1;
	BAD_ARG(gf_launch_run(&o, &r), "grace");
	o.grace_s = NAN;
	BAD_ARG(gf_launch_run(&o, &r), "grace");
	o = launch_opts();
	o.max_restarts = -1;
	BAD_ARG(gf_launch_run(&o, &r), "restarts");
	o = launch_opts();
	o.out_fd = -1;
	BAD_ARG(gf_launch_run(&o, &r), "out_fd");
}

static void row_gf_launch_world_resolve(void)
{
	struct gf_launch_world wd = GF_LAUNCH_WORLD_INIT;

	NULL_ARG(gf_launch_world_resolve(NULL), "w");
	wd.nnodes = -5;
	BAD_ARG(gf_launch_world_resolve(&wd), "nnodes");
	wd = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	wd.node_rank = -5;
	BAD_ARG(gf_launch_world_resolve(&wd), "node");
	wd = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	wd.master_port = 70000;
	BAD_ARG(gf_launch_world_resolve(&wd), "port");
}

static void row_gf_launch_world_env(void)
{
	const struct gf_launch_world *wd = gf_launch_plan_world(w.lp);
	struct gf_launch_env env[GF_LAUNCH_NENV];

	NULL_ARG(gf_launch_world_env(NULL, 0, env), "w");
	NULL_ARG(gf_launch_world_env(wd, 0, NULL), "out");
	BAD_ARG(gf_launch_world_env(wd, -1, env), "local rank");
	BAD_ARG(gf_launch_world_env(wd, wd->nproc, env), "local rank");
}

static void row_gf_launch_world_setenv(void)
{
	const struct gf_launch_world *wd = gf_launch_plan_world(w.lp);

	NULL_ARG(gf_launch_world_setenv(NULL, 0), "w");
	BAD_ARG(gf_launch_world_setenv(wd, -1), "local rank");
	BAD_ARG(gf_launch_world_setenv(wd, wd->nproc), "local rank");
}

static struct gf_launch_job_options job_opts(void)
{
	struct gf_launch_job_options o = GF_LAUNCH_JOB_OPTS_INIT;

	o.argv = launch_argv;
	o.no_bind = true;
	o.nproc = 1;
	o.quiet = true;
	o.machine = &w.machine;
	return o;
}

static void row_gf_launch_plan_new(void)
{
	struct gf_launch_job_options o = job_opts();
	struct gf_bind_options bo = GF_BIND_OPTS_INIT;
	struct gf_launch_world wd = GF_LAUNCH_WORLD_INIT;
	struct gf_launch_plan *p = (struct gf_launch_plan *)&p;

	NULL_ARG(gf_launch_plan_new(NULL, &o, NULL), "out");
	NULL_ARG(gf_launch_plan_new(NULL, NULL, &p), "o");
	assert_null(p);
	o.struct_size = 0;
	UNINIT(gf_launch_plan_new(NULL, &o, &p), "GF_LAUNCH_JOB_OPTS_INIT");
	o = job_opts();
	o.nproc = -1;
	BAD_ARG(gf_launch_plan_new(NULL, &o, &p), "nproc");
	o = job_opts();
	o.no_bind = false;
	NULL_ARG(gf_launch_plan_new(NULL, &o, &p), "t");
	bo.struct_size = 0;
	o.bind = &bo;
	UNINIT(gf_launch_plan_new(w.t, &o, &p), "GF_BIND_OPTS_INIT");
	o = job_opts();
	wd.nnodes = -9;
	o.world = &wd;
	BAD_FIELD(gf_launch_plan_new(NULL, &o, &p), "nnodes");
	o = job_opts();
	o.grace_s = -2;
	BAD_ARG(gf_launch_plan_new(NULL, &o, &p), "grace");
}

static void row_gf_launch_plan_free(void)
{
	gf_launch_plan_free(NULL);
}

static void row_gf_launch_plan_world(void)
{
	NO_PTR(gf_launch_plan_world(NULL), "p");
}

static void row_gf_launch_plan_print(void)
{
	NULL_ARG(gf_launch_plan_print(NULL, w.out), "p");
	NULL_ARG(gf_launch_plan_print(w.lp, NULL), "f");
}

static void row_gf_launch_plan_write_json(void)
{
	NULL_ARG(gf_launch_plan_write_json(NULL, w.out), "p");
	NULL_ARG(gf_launch_plan_write_json(w.lp, NULL), "f");
}

static void row_gf_launch_plan_run(void)
{
	struct gf_launch_result r;

	NULL_ARG(gf_launch_plan_run(NULL, &r), "p");
	NULL_ARG(gf_launch_plan_run(w.lp, NULL), "res");
}

static void row_gf_launch_job(void)
{
	struct gf_launch_job_options o = job_opts();
	struct gf_launch_result r;

	NULL_ARG(gf_launch_job(NULL, &r), "o");
	NULL_ARG(gf_launch_job(&o, NULL), "res");
	o.struct_size = 0;
	UNINIT(gf_launch_job(&o, &r), "GF_LAUNCH_JOB_OPTS_INIT");
	o = job_opts();
	o.argv = NULL;
	NULL_ARG(gf_launch_job(&o, &r), "argv");
}

/* ---- verify.h ---- */

static void row_gf_verify_gpu_source_name(void)
{
	NAME_Q(gf_verify_gpu_source_name(BAD_ENUM));
	NAME_Q(gf_verify_gpu_source_name(NEG_ENUM));
}

static void row_gf_verify_run(void)
{
	struct gf_verify_options o = GF_VERIFY_OPTS_INIT;
	struct gf_verify *v = (struct gf_verify *)&v;

	o.machine = &w.machine;
	NULL_ARG(gf_verify_run(&o, 0, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_verify_run(&o, 0, &v), "GF_VERIFY_OPTS_INIT");
	assert_null(v);
	o = (struct gf_verify_options)GF_VERIFY_OPTS_INIT;
	o.machine = &w.machine;
	o.max_off_node_pct = -1;
	BAD_ARG(gf_verify_run(&o, 0, &v), "max_off_node_pct");
	o.max_off_node_pct = NAN;
	BAD_ARG(gf_verify_run(&o, 0, &v), "max_off_node_pct");
}

static void row_gf_verify_free(void)
{
	gf_verify_free(NULL);
}

static void row_gf_verify_finding_count(void)
{
	NULL_ARG(gf_verify_finding_count(NULL, GF_SEV_WARN), "v");
	BAD_ARG(gf_verify_finding_count(w.v, BAD_ENUM), "min");
}

static void row_gf_verify_no_gpu(void)
{
	assert_false(gf_verify_no_gpu(NULL));
}

static void row_gf_verify_print(void)
{
	NULL_ARG(gf_verify_print(NULL, w.out, 0), "v");
	NULL_ARG(gf_verify_print(w.v, NULL, 0), "f");
}

static void row_gf_verify_write_json(void)
{
	NULL_ARG(gf_verify_write_json(NULL, w.out), "v");
	NULL_ARG(gf_verify_write_json(w.v, NULL), "f");
}

/* ---- place.h ---- */

static void row_gf_plan_part_name(void)
{
	NAME_Q(gf_plan_part_name(BAD_ENUM));
	NAME_Q(gf_plan_part_name(NEG_ENUM));
	NAME_Q(gf_plan_part_name(GF_PLAN_NPARTS));
}

static void row_gf_plan_compute(void)
{
	struct gf_plan_options o = GF_PLAN_OPTS_INIT;
	struct gf_plan *p = (struct gf_plan *)&p;
	int free_gpus[2] = { 0, 99 };

	NULL_ARG(gf_plan_compute(NULL, &o, &p), "t");
	NULL_ARG(gf_plan_compute(w.t, &o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_plan_compute(w.t, &o, &p), "GF_PLAN_OPTS_INIT");
	assert_null(p);
	o = (struct gf_plan_options)GF_PLAN_OPTS_INIT;
	o.ngpus = 0;
	BAD_ARG(gf_plan_compute(w.t, &o, &p), "ngpus");
	o.ngpus = -3;
	BAD_ARG(gf_plan_compute(w.t, &o, &p), "ngpus");
	o.ngpus = 1;
	o.free = free_gpus;
	o.nfree = -1;
	BAD_ARG(gf_plan_compute(w.t, &o, &p), "nfree");
	o.nfree = 2;
	BAD_ARG(gf_plan_compute(w.t, &o, &p), "free");
}

static void row_gf_plan_free(void)
{
	gf_plan_free(NULL);
}

static void row_gf_plan_format_parse(void)
{
	enum gf_plan_format f;

	NULL_ARG(gf_plan_format_parse(NULL, &f), "s");
	NULL_ARG(gf_plan_format_parse("json", NULL), "out");
	FAILS(gf_plan_format_parse("yaml", &f), -EINVAL);
}

static void row_gf_plan_write(void)
{
	struct gf_plan_write_options o = GF_PLAN_WRITE_OPTS_INIT;

	NULL_ARG(gf_plan_write(NULL, w.plan, GF_PLAN_TEXT, &o, w.out), "t");
	NULL_ARG(gf_plan_write(w.t, NULL, GF_PLAN_TEXT, &o, w.out), "p");
	NULL_ARG(gf_plan_write(w.t, w.plan, GF_PLAN_TEXT, &o, NULL), "f");
	BAD_ARG(gf_plan_write(w.t, w.plan, BAD_ENUM, &o, w.out), "fmt");
	BAD_ARG(gf_plan_write(w.t, w.plan, NEG_ENUM, &o, w.out), "fmt");
	o.struct_size = 0;
	UNINIT(gf_plan_write(w.t, w.plan, GF_PLAN_TEXT, &o, w.out), "GF_PLAN_WRITE_OPTS_INIT");
}

/* ---- emit.h ---- */

static void emitter(int (*fn)(const struct gf_topo *, const struct gf_emit_options *, FILE *))
{
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;

	NULL_ARG(fn(NULL, &o, w.out), "t");
	NULL_ARG(fn(w.t, &o, NULL), "f");
	o.struct_size = 0;
	UNINIT(fn(w.t, &o, w.out), "GF_EMIT_OPTS_INIT");
	o = (struct gf_emit_options)GF_EMIT_OPTS_INIT;
	o.reserve_cores = -1;
	BAD_ARG(fn(w.t, &o, w.out), "reserve_cores");
	o = (struct gf_emit_options)GF_EMIT_OPTS_INIT;
	o.label_format = BAD_ENUM;
	BAD_ARG(fn(w.t, &o, w.out), "label_format");
}

static void row_gf_emit_kubelet(void)
{
	emitter(gf_emit_kubelet);
}

static void row_gf_emit_slurm(void)
{
	emitter(gf_emit_slurm);
}

static void row_gf_emit_nccl_topo(void)
{
	emitter(gf_emit_nccl_topo);
}

static void row_gf_emit_labels(void)
{
	emitter(gf_emit_labels);
}

static void row_gf_emit_allocatable(void)
{
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	struct gf_emit_allocatable a;

	NULL_ARG(gf_emit_allocatable(NULL, &o, &a), "t");
	NULL_ARG(gf_emit_allocatable(w.t, &o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_emit_allocatable(w.t, &o, &a), "GF_EMIT_OPTS_INIT");
}

/* ---- buf.h, dlpack.h ---- */

static void row_gf_buf_alloc(void)
{
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_buf *b = (struct gf_buf *)&b;

	o.size = 4096;
	NULL_ARG(gf_buf_alloc(NULL, &b), "opts");
	NULL_ARG(gf_buf_alloc(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_buf_alloc(&o, &b), "GF_BUF_OPTS_INIT");
	assert_null(b);
	o = (struct gf_buf_opts)GF_BUF_OPTS_INIT;
	BAD_ARG(gf_buf_alloc(&o, &b), "size");		/* 0 */
	o.size = 4096;
	o.align = 3;
	BAD_ARG(gf_buf_alloc(&o, &b), "align");
	o.align = 0;
	o.numa_node = -5;
	BAD_ARG(gf_buf_alloc(&o, &b), "numa_node");
	o.numa_node = -1;
	o.flags = 1u << 30;
	BAD_ARG(gf_buf_alloc(&o, &b), "flags");
	o.flags = 0;
	o.size = SIZE_MAX;
	FAILS(gf_buf_alloc(&o, &b), -ENOMEM);
}

static void row_gf_buf_free(void)
{
	gf_buf_free(NULL);
}

static void row_gf_devbuf_alloc(void)
{
	struct gf_devbuf *d = (struct gf_devbuf *)&d;

	NULL_ARG(gf_devbuf_alloc(0, 4096, NULL), "out");
	BAD_ARG(gf_devbuf_alloc(0, 0, &d), "size");
	assert_null(d);
	FAILS(gf_devbuf_alloc(999, 4096, &d), -ENODEV);
}

static void row_gf_devbuf_free(void)
{
	gf_devbuf_free(NULL);
}

static void row_gf_mem_node_of(void)
{
	NULL_ARG(gf_mem_node_of(NULL), "addr");
}

/* gf_buf_dlpack and gf_devbuf_dlpack refuse the same shapes. */
#define DLPACK_GARBAGE(fn, obj, arg)                                                                        \
	do {                                                                                             \
		struct gf_dl_managed_tensor *t = (struct gf_dl_managed_tensor *)&t;                        \
		struct gf_dl_dtype f32 = GF_DL_DTYPE(GF_DL_FLOAT, 32);                                     \
		int64_t shape[GF_DL_NDIM_MAX + 1] = { 4, 4, 4, 4, 4, 4, 4, 4, 4 }, zero[1] = { 0 },        \
			neg[1] = { -4 }, huge[2] = { INT64_MAX, INT64_MAX };                               \
		NULL_ARG(fn(NULL, 0, f32, 1, shape, &t), arg);                                             \
		NULL_ARG(fn(obj, 0, f32, 1, shape, NULL), "out");                                          \
		NULL_ARG(fn(obj, 0, f32, 1, NULL, &t), "shape");                                           \
		assert_null(t);                                                                            \
		BAD_ARG(fn(obj, 0, f32, 0, shape, &t), "ndim");                                            \
		BAD_ARG(fn(obj, 0, f32, -1, shape, &t), "ndim");                                           \
		BAD_ARG(fn(obj, 0, f32, GF_DL_NDIM_MAX + 1, shape, &t), "ndim");                           \
		FAILS(fn(obj, 0, f32, 1, zero, &t), -EINVAL);                                              \
		FAILS(fn(obj, 0, f32, 1, neg, &t), -EINVAL);                                               \
		FAILS(fn(obj, 0, f32, 2, huge, &t), -EINVAL);                                              \
		FAILS(fn(obj, SIZE_MAX - 3, f32, 1, shape, &t), -EINVAL);                                  \
		FAILS(fn(obj, 0, GF_DL_DTYPE(GF_DL_FLOAT, 0), 1, shape, &t), -EINVAL);                     \
		FAILS(fn(obj, 0, GF_DL_DTYPE(GF_DL_FLOAT, 12), 1, shape, &t), -EINVAL);                    \
		FAILS(fn(obj, 0, ((struct gf_dl_dtype){ GF_DL_FLOAT, 32, 0 }), 1, shape, &t), -EINVAL);    \
	} while (0)

static void row_gf_buf_dlpack(void)
{
	DLPACK_GARBAGE(gf_buf_dlpack, w.buf, "b");
}

static void row_gf_devbuf_dlpack(void)
{
	DLPACK_GARBAGE(gf_devbuf_dlpack, w.dev, "d");
}

/* ---- io.h, outfile.h ---- */

static void row_gf_io_backend_name(void)
{
	NAME_Q(gf_io_backend_name(BAD_ENUM));
	NAME_Q(gf_io_backend_name(NEG_ENUM));
}

static void row_gf_io_open(void)
{
	struct gf_io_opts o = GF_IO_OPTS_INIT;
	struct gf_io *io = (struct gf_io *)&io;

	NULL_ARG(gf_io_open(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_io_open(&o, &io), "GF_IO_OPTS_INIT");
	assert_null(io);
	o = (struct gf_io_opts)GF_IO_OPTS_INIT;
	o.backend = BAD_ENUM;
	BAD_ARG(gf_io_open(&o, &io), "backend");
	o.backend = NEG_ENUM;
	BAD_ARG(gf_io_open(&o, &io), "backend");
	o = (struct gf_io_opts)GF_IO_OPTS_INIT;
	o.flags = 1u << 30;
	BAD_ARG(gf_io_open(&o, &io), "flags");
}

static void row_gf_io_backend_of(void)
{
	assert_int_equal(gf_io_backend_of(NULL), GF_IO_AUTO);
}

static void row_gf_io_fallback_error(void)
{
	NULL_ARG(gf_io_fallback_error(NULL), "io");
}

static void row_gf_io_async_error(void)
{
	NULL_ARG(gf_io_async_error(NULL), "io");
}

static void row_gf_io_close(void)
{
	assert_int_equal(gf_io_close(NULL, GF_IO_DRAIN), 0);	/* nothing to close */
	assert_int_equal(gf_io_close(NULL, BAD_ENUM), 0);
}

static void row_gf_io_register_buf(void)
{
	NULL_ARG(gf_io_register_buf(NULL, w.buf), "io");
	NULL_ARG(gf_io_register_buf(w.io, NULL), "b");
}

static void row_gf_io_unregister_buf(void)
{
	NULL_ARG(gf_io_unregister_buf(NULL, w.buf), "io");
	NULL_ARG(gf_io_unregister_buf(w.io, NULL), "b");
}

static void row_gf_file_open(void)
{
	struct gf_file *f = (struct gf_file *)&f;

	NULL_ARG(gf_file_open(NULL, w.path, 0, 0, &f), "io");
	NULL_ARG(gf_file_open(w.io, NULL, 0, 0, &f), "path");
	NULL_ARG(gf_file_open(w.io, w.path, 0, 0, NULL), "out");
	assert_null(f);
	BAD_ARG(gf_file_open(w.io, w.path, 1u << 30, 0, &f), "flags");
}

static void row_gf_file_from_fd(void)
{
	struct gf_file *f = (struct gf_file *)&f;

	NULL_ARG(gf_file_from_fd(NULL, 0, 0, &f), "io");
	NULL_ARG(gf_file_from_fd(w.io, 0, 0, NULL), "out");
	assert_null(f);
	FAILS(gf_file_from_fd(w.io, -1, 0, &f), -EBADF);
	BAD_ARG(gf_file_from_fd(w.io, 0, 1u << 30, &f), "flags");
}

static void row_gf_file_info(void)
{
	NO_PTR(gf_file_info(NULL), "f");
}

static void row_gf_file_fd(void)
{
	NULL_ARG(gf_file_fd(NULL), "f");
}

static void row_gf_file_close(void)
{
	assert_int_equal(gf_file_close(NULL), 0);	/* nothing to close */
}

static void row_gf_io_submit(void)
{
	char data[16];
	struct gf_io_req ok = { .op = GF_IO_WRITE, .file = w.file, .buf = data, .len = sizeof(data) };
	struct gf_io_req bad = ok, *reqs[1] = { &bad }, *none[1] = { NULL };

	(void)ok;
	NULL_ARG(gf_io_submit(NULL, reqs, 1), "io");
	NULL_ARG(gf_io_submit(w.io, NULL, 1), "reqs");
	BAD_ARG(gf_io_submit(w.io, none, 1), "reqs[0] is NULL");
	bad.op = BAD_ENUM;
	BAD_ARG(gf_io_submit(w.io, reqs, 1), "reqs[0]->op");
	bad = ok;
	bad.file = NULL;
	BAD_ARG(gf_io_submit(w.io, reqs, 1), "reqs[0]->file is NULL");
	bad = ok;
	bad.buf = NULL;
	BAD_ARG(gf_io_submit(w.io, reqs, 1), "reqs[0]->buf is NULL");
	assert_int_equal(gf_io_inflight(w.io), 0);
}

static void row_gf_io_poll(void)
{
	NULL_ARG(gf_io_poll(NULL), "io");
}

static void row_gf_io_wait(void)
{
	NULL_ARG(gf_io_wait(NULL, 1, 0), "io");
}

static void row_gf_io_cancel(void)
{
	struct gf_io_req r = { .op = GF_IO_READ };

	NULL_ARG(gf_io_cancel(NULL, &r), "io");
	NULL_ARG(gf_io_cancel(w.io, NULL), "req");
	FAILS(gf_io_cancel(w.io, &r), -ENOENT);
}

static void row_gf_io_inflight(void)
{
	assert_int_equal(gf_io_inflight(NULL), 0);
}

static void row_gf_io_interrupt(void)
{
	gf_io_interrupt(NULL);
}

static void row_gf_io_interrupt_clear(void)
{
	gf_io_interrupt_clear(NULL);
}

static void row_gf_io_read(void)
{
	char data[16];

	NULL_ARG(gf_io_read(NULL, w.file, data, sizeof(data), 0), "io");
	NULL_ARG(gf_io_read(w.io, NULL, data, sizeof(data), 0), "f");
	NULL_ARG(gf_io_read(w.io, w.file, NULL, sizeof(data), 0), "buf");
	BAD_ARG(gf_io_read(w.io, w.file, data, SIZE_MAX, 0), "len");
}

static void row_gf_io_write(void)
{
	char data[16] = { 0 };

	NULL_ARG(gf_io_write(NULL, w.file, data, sizeof(data), 0), "io");
	NULL_ARG(gf_io_write(w.io, NULL, data, sizeof(data), 0), "f");
	NULL_ARG(gf_io_write(w.io, w.file, NULL, sizeof(data), 0), "buf");
	BAD_ARG(gf_io_write(w.io, w.file, data, SIZE_MAX, 0), "len");
}

static void row_gf_io_read_ranges(void)
{
	char data[16];
	struct gf_io_range r[2] = { { .off = 0, .len = sizeof(data), .buf = data }, { .off = 0, .len = 8 } };

	NULL_ARG(gf_io_read_ranges(NULL, w.file, r, 1), "io");
	NULL_ARG(gf_io_read_ranges(w.io, NULL, r, 1), "f");
	NULL_ARG(gf_io_read_ranges(w.io, w.file, NULL, 1), "r");
	/* A range without a buffer: refused, the others read (every range has its res). */
	FAILS(gf_io_read_ranges(w.io, w.file, r, 2), -EINVAL);
	assert_int_equal(r[1].res, -EINVAL);
}

static void row_gf_io_read_file(void)
{
	struct gf_buf *b = (struct gf_buf *)&b;
	size_t len;

	NULL_ARG(gf_io_read_file(NULL, w.path, 0, -1, 0, &b, &len), "io");
	NULL_ARG(gf_io_read_file(w.io, NULL, 0, -1, 0, &b, &len), "path");
	NULL_ARG(gf_io_read_file(w.io, w.path, 0, -1, 0, NULL, &len), "out");
	NULL_ARG(gf_io_read_file(w.io, w.path, 0, -1, 0, &b, NULL), "len");
	BAD_ARG(gf_io_read_file(w.io, w.path, 0, -5, 0, &b, &len), "numa_node");
	BAD_ARG(gf_io_read_file(w.io, w.path, 1u << 30, -1, 0, &b, &len), "flags");
	assert_null(b);
}

static void row_gf_ckpt_open(void)
{
	struct gf_ckpt_opts o = GF_CKPT_OPTS_INIT;
	struct gf_ckpt *c = (struct gf_ckpt *)&c;

	NULL_ARG(gf_ckpt_open(NULL, w.path, &o, &c), "io");
	NULL_ARG(gf_ckpt_open(w.io, NULL, &o, &c), "path");
	NULL_ARG(gf_ckpt_open(w.io, w.path, &o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_ckpt_open(w.io, w.path, &o, &c), "GF_CKPT_OPTS_INIT");
	assert_null(c);
}

static void row_gf_ckpt_write(void)
{
	NULL_ARG(gf_ckpt_write(NULL, "x", 1), "c");
}

static void row_gf_ckpt_commit(void)
{
	NULL_ARG(gf_ckpt_commit(NULL), "c");
}

static void row_gf_ckpt_abort(void)
{
	gf_ckpt_abort(NULL);
}

static void row_gf_io_write_file_atomic(void)
{
	struct gf_ckpt_opts o = GF_CKPT_OPTS_INIT;

	NULL_ARG(gf_io_write_file_atomic(NULL, w.path, "x", 1, &o), "io");
	NULL_ARG(gf_io_write_file_atomic(w.io, NULL, "x", 1, &o), "path");
	NULL_ARG(gf_io_write_file_atomic(w.io, w.path, NULL, 1, &o), "data");
	o.struct_size = 0;
	UNINIT(gf_io_write_file_atomic(w.io, w.path, "x", 1, &o), "GF_CKPT_OPTS_INIT");
}

static void row_gf_outfile_check(void)
{
	char real[PATH_MAX];
	enum gf_outfile_mode m;

	NULL_ARG(gf_outfile_check(NULL, real, sizeof(real), &m), "path");
	NULL_ARG(gf_outfile_check(w.path, NULL, sizeof(real), &m), "real");
	NULL_ARG(gf_outfile_check(w.path, real, sizeof(real), NULL), "mode");
	BAD_ARG(gf_outfile_check(w.path, real, 0, &m), "size");
}

static void row_gf_outfile_rename(void)
{
	NULL_ARG(gf_outfile_rename(NULL, w.path), "tmp");
	NULL_ARG(gf_outfile_rename(w.path, NULL), "real");
}

/* ---- xfer.h ---- */

static void row_gf_xfer_path_name(void)
{
	NAME_Q(gf_xfer_path_name(BAD_ENUM));
	NAME_Q(gf_xfer_path_name(NEG_ENUM));
}

static void row_gf_xfer_path_parse(void)
{
	enum gf_xfer_path p;

	NULL_ARG(gf_xfer_path_parse(NULL, &p), "name");
	NULL_ARG(gf_xfer_path_parse("gds", NULL), "p");
	FAILS(gf_xfer_path_parse("carrier-pigeon", &p), -EINVAL);
}

static void row_gf_xfer_open(void)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer *x = (struct gf_xfer *)&x;

	NULL_ARG(gf_xfer_open(NULL, &x), "opts");
	NULL_ARG(gf_xfer_open(&o, NULL), "out");
	assert_null(x);
	o.struct_size = 0;
	UNINIT(gf_xfer_open(&o, &x), "GF_XFER_OPTS_INIT");
	o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	o.path = BAD_ENUM;
	BAD_ARG(gf_xfer_open(&o, &x), "path");
	o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	o.chunk = 1000;
	BAD_ARG(gf_xfer_open(&o, &x), "chunk");
	o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	o.depth = GF_XFER_DEPTH_MAX + 1;
	BAD_ARG(gf_xfer_open(&o, &x), "depth");
	o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	o.gpu = -1;
	NULL_ARG(gf_xfer_open(&o, &x), "pci");
	o.gpu = -5;
	BAD_ARG(gf_xfer_open(&o, &x), "gpu");
	o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	o.numa_node = -5;
	BAD_ARG(gf_xfer_open(&o, &x), "numa_node");
}

static void row_gf_xfer_close(void)
{
	gf_xfer_close(NULL);
}

static void row_gf_xfer_read(void)
{
	NULL_ARG(gf_xfer_read(NULL, w.path, 0, 1, w.xdev, NULL), "x");
	NULL_ARG(gf_xfer_read(w.xfer, NULL, 0, 1, w.xdev, NULL), "path");
}

static void row_gf_xfer_read_fd(void)
{
	NULL_ARG(gf_xfer_read_fd(NULL, 0, "stdin", 0, 1, w.xdev, NULL), "x");
	FAILS(gf_xfer_read_fd(w.xfer, -1, "nothing", 0, 1, w.xdev, NULL), -EBADF);
}

static void row_gf_xfer_copy_to_gpu(void)
{
	NULL_ARG(gf_xfer_copy_to_gpu(NULL, "x", 1, w.xdev), "x");
	NULL_ARG(gf_xfer_copy_to_gpu(w.xfer, NULL, 1, w.xdev), "src");
}

static void row_gf_xfer_copy_from_gpu(void)
{
	char back[4];

	NULL_ARG(gf_xfer_copy_from_gpu(NULL, w.xdev, back, 1), "x");
	NULL_ARG(gf_xfer_copy_from_gpu(w.xfer, w.xdev, NULL, 1), "dst");
}

static void row_gf_xfer_dev_alloc(void)
{
	uint64_t d;

	NULL_ARG(gf_xfer_dev_alloc(NULL, 1, &d), "x");
	NULL_ARG(gf_xfer_dev_alloc(w.xfer, 1, NULL), "dev");
	BAD_ARG(gf_xfer_dev_alloc(w.xfer, 0, &d), "len");
}

static void row_gf_xfer_dev_free(void)
{
	NULL_ARG(gf_xfer_dev_free(NULL, w.xdev), "x");
}

static void row_gf_xfer_dtoh(void)
{
	char back[4];

	NULL_ARG(gf_xfer_dtoh(NULL, back, w.xdev, 1), "x");
	NULL_ARG(gf_xfer_dtoh(w.xfer, NULL, w.xdev, 1), "dst");
}

static void row_gf_xfer_dev_clear(void)
{
	NULL_ARG(gf_xfer_dev_clear(NULL, w.xdev, 1), "x");
}

static void row_gf_xfer_gpu_pci(void)
{
	NO_PTR(gf_xfer_gpu_pci(NULL), "x");
}

static void row_gf_xfer_numa_node(void)
{
	NULL_ARG(gf_xfer_numa_node(NULL), "x");
}

/* ---- bench.h ---- */

static void row_gf_bench_target_at(void)
{
	NONE(gf_bench_target_at(UINT_MAX));
	NONE(gf_bench_target_at(1000));
}

static void row_gf_bench_target_find(void)
{
	NO_PTR(gf_bench_target_find(NULL), "name");
	NONE(gf_bench_target_find("no-such-target"));
}

static void row_gf_bench_option_at(void)
{
	NO_PTR(gf_bench_option_at(NULL, 0), "t");
	NONE(gf_bench_option_at(gf_bench_target_of(w.bench), UINT_MAX));
}

static void row_gf_bench_new(void)
{
	struct gf_bench *b = (struct gf_bench *)&b;

	NULL_ARG(gf_bench_new(NULL, &b), "target");
	assert_null(b);
	NULL_ARG(gf_bench_new("h2d", NULL), "out");
	FAILS(gf_bench_new("no-such-target", &b), -ENOENT);
}

static void row_gf_bench_target_of(void)
{
	NO_PTR(gf_bench_target_of(NULL), "b");
}

static void row_gf_bench_set(void)
{
	NULL_ARG(gf_bench_set(NULL, "quick", NULL), "b");
	NULL_ARG(gf_bench_set(w.bench, NULL, "1"), "option");
	FAILS(gf_bench_set(w.bench, "no-such-option", "1"), -ENOENT);
	FAILS(gf_bench_set(w.bench, "repeats", "-1"), -ERANGE);
}

static void row_gf_bench_set_operand(void)
{
	NULL_ARG(gf_bench_set_operand(NULL, "x"), "b");
	NULL_ARG(gf_bench_set_operand(w.bench, NULL), "value");
}

static void row_gf_bench_check(void)
{
	NULL_ARG(gf_bench_check(NULL), "b");
}

static void row_gf_bench_run(void)
{
	struct gf_bench_run_opts o = GF_BENCH_RUN_OPTS_INIT;

	NULL_ARG(gf_bench_run(NULL, &o), "b");
	o.struct_size = 0;
	UNINIT(gf_bench_run(w.bench, &o), "GF_BENCH_RUN_OPTS_INIT");
	o = (struct gf_bench_run_opts)GF_BENCH_RUN_OPTS_INIT;
	o.status_interval_s = -1;
	BAD_ARG(gf_bench_run(w.bench, &o), "status_interval_s");
	o.status_interval_s = NAN;
	BAD_ARG(gf_bench_run(w.bench, &o), "status_interval_s");
	assert_false(gf_bench_has_results(w.bench));
}

static void row_gf_bench_has_results(void)
{
	assert_false(gf_bench_has_results(NULL));
}

static void row_gf_bench_outcome(void)
{
	/* Nothing ran: the run is incomplete. */
	assert_int_equal(gf_bench_outcome(NULL), GF_BENCH_FAILED);
}

static void row_gf_bench_findings(void)
{
	assert_int_equal(gf_bench_findings(NULL), 0);
}

static void row_gf_bench_problem(void)
{
	NO_PTR(gf_bench_problem(NULL), "b");
}

static void row_gf_bench_print(void)
{
	NULL_ARG(gf_bench_print(NULL, w.out), "b");
	NULL_ARG(gf_bench_print(w.bench, NULL), "f");
}

static void row_gf_bench_write_json(void)
{
	NULL_ARG(gf_bench_write_json(NULL, w.out), "b");
	NULL_ARG(gf_bench_write_json(w.bench, NULL), "f");
}

static void row_gf_bench_free(void)
{
	gf_bench_free(NULL);
}

/* ---- dataset.h ---- */

static void row_gf_checksum_name(void)
{
	NAME_Q(gf_checksum_name((enum gf_checksum)BAD_ENUM));
	NAME_Q(gf_checksum_name((enum gf_checksum)NEG_ENUM));
}

static void row_gf_checksum_parse(void)
{
	enum gf_checksum c;

	NULL_ARG(gf_checksum_parse(NULL, &c), "name");
	NULL_ARG(gf_checksum_parse("xxh3", NULL), "out");
	BAD_ARG(gf_checksum_parse("md5", &c), "md5");
}

static void row_gf_checksum_of(void)
{
	assert_true(gf_checksum_of(GF_CHECKSUM_XXH3, NULL, 10) == 0);
	assert_true(gf_checksum_of((enum gf_checksum)BAD_ENUM, "x", 1) == 0);
}

static void row_gf_pack_input_name(void)
{
	NAME_Q(gf_pack_input_name((enum gf_pack_input)BAD_ENUM));
	NAME_Q(gf_pack_input_name((enum gf_pack_input)NEG_ENUM));
}

static void row_gf_pack_input_parse(void)
{
	enum gf_pack_input k;

	NULL_ARG(gf_pack_input_parse(NULL, &k), "name");
	NULL_ARG(gf_pack_input_parse("files", NULL), "out");
	BAD_ARG(gf_pack_input_parse("zip", &k), "zip");
}

static void row_gf_pack(void)
{
	struct gf_pack_opts o = GF_PACK_OPTS_INIT;
	const char *in[] = { w.path }, *none[] = { NULL };
	char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s/pack-out", w.dir);
	NULL_ARG(gf_pack(NULL, 1, out, &o, NULL), "inputs");
	NULL_ARG(gf_pack(in, 1, NULL, &o, NULL), "outdir");
	NULL_ARG(gf_pack(in, 1, out, NULL, NULL), "opts");
	BAD_ARG(gf_pack(in, 0, out, &o, NULL), "ninputs");
	BAD_ARG(gf_pack(none, 1, out, &o, NULL), "inputs[0]");
	o.input = (enum gf_pack_input)BAD_ENUM;
	BAD_ARG(gf_pack(in, 1, out, &o, NULL), "input");
	o.input = GF_PACK_RECORDS;
	BAD_ARG(gf_pack(in, 1, out, &o, NULL), "record_size");
	o.record_size = 1;
	o.checksum = (enum gf_checksum)NEG_ENUM;
	BAD_ARG(gf_pack(in, 1, out, &o, NULL), "checksum");
	o.checksum = GF_CHECKSUM_XXH3;
	o.align = 3;
	BAD_ARG(gf_pack(in, 1, out, &o, NULL), "align");
	o.align = 0;
	o.struct_size = 0;
	UNINIT(gf_pack(in, 1, out, &o, NULL), "GF_PACK_OPTS_INIT");
}

static void row_gf_dataset_kind_name(void)
{
	NAME_Q(gf_dataset_kind_name((enum gf_dataset_kind)BAD_ENUM));
	NAME_Q(gf_dataset_kind_name((enum gf_dataset_kind)NEG_ENUM));
}

/* A dataset of 3 records of 8 bytes, packed into the scratch directory. */
static struct gf_dataset *contract_ds(void)
{
	struct gf_pack_opts o = GF_PACK_OPTS_INIT;
	char in[PATH_MAX], out[PATH_MAX];
	const char *inputs[] = { in };
	struct gf_dataset *d;

	snprintf(in, sizeof(in), "%s/records", w.dir);
	snprintf(out, sizeof(out), "%s/ds", w.dir);
	if (access(out, F_OK)) {
		t_write(w.dir, "records", "aaaaaaaabbbbbbbbcccccccc");
		o.record_size = 8;
		assert_int_equal(gf_pack(inputs, 1, out, &o, NULL), 0);
	}
	assert_int_equal(gf_dataset_open(out, &d), 0);
	return d;
}

static void row_gf_dataset_open(void)
{
	struct gf_dataset *d;

	NULL_ARG(gf_dataset_open(NULL, &d), "path");
	NULL_ARG(gf_dataset_open(w.dir, NULL), "out");
	BAD_ARG(gf_dataset_open("", &d), "path");
}

static void row_gf_dataset_close(void)
{
	gf_dataset_close(NULL);
}

static void row_gf_dataset_info(void)
{
	struct gf_dataset *d = contract_ds();
	struct gf_dataset_info info;

	NULL_ARG(gf_dataset_info(NULL, &info), "d");
	NULL_ARG(gf_dataset_info(d, NULL), "out");
	gf_dataset_close(d);
}

static void row_gf_dataset_shard(void)
{
	struct gf_dataset *d = contract_ds();
	struct gf_shard_info sh;

	NULL_ARG(gf_dataset_shard(NULL, 0, &sh), "d");
	NULL_ARG(gf_dataset_shard(d, 0, NULL), "out");
	BAD_ARG(gf_dataset_shard(d, 1, &sh), "shard 1");
	BAD_ARG(gf_dataset_shard(d, UINT_MAX, &sh), "past the end");
	gf_dataset_close(d);
}

static void row_gf_dataset_sample(void)
{
	struct gf_dataset *d = contract_ds();
	struct gf_sample_loc at;

	NULL_ARG(gf_dataset_sample(NULL, 0, &at), "d");
	NULL_ARG(gf_dataset_sample(d, 0, NULL), "out");
	BAD_ARG(gf_dataset_sample(d, 3, &at), "sample 3");
	BAD_ARG(gf_dataset_sample(d, UINT64_MAX, &at), "past the end");
	gf_dataset_close(d);
}

static void row_gf_dataset_key(void)
{
	struct gf_dataset *d = contract_ds();
	const char *key;
	size_t len;

	NULL_ARG(gf_dataset_key(NULL, 0, &key, &len), "d");
	NULL_ARG(gf_dataset_key(d, 0, NULL, &len), "key");
	NULL_ARG(gf_dataset_key(d, 0, &key, NULL), "len");
	BAD_ARG(gf_dataset_key(d, 3, &key, &len), "sample 3");
	gf_dataset_close(d);
}

static void row_gf_dataset_check_sample(void)
{
	struct gf_dataset *d = contract_ds();

	NULL_ARG(gf_dataset_check_sample(NULL, 0, "aaaaaaaa", 8), "d");
	NULL_ARG(gf_dataset_check_sample(d, 0, NULL, 8), "data");
	BAD_ARG(gf_dataset_check_sample(d, 3, "aaaaaaaa", 8), "sample 3");
	gf_dataset_close(d);
}

static void row_gf_dataset_verify(void)
{
	NULL_ARG(gf_dataset_verify(NULL, NULL, NULL), "d");
}

/* ---- loader.h ---- */

/* contract_ds's dataset, packed if it is not yet. */
static const char *contract_ds_path(void)
{
	static char ds[PATH_MAX];

	gf_dataset_close(contract_ds());
	snprintf(ds, sizeof(ds), "%s/ds", w.dir);
	return ds;
}

/* A loader over it, host memory. */
static struct gf_loader *contract_loader(void)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;

	o.batch_size = 2;
	assert_int_equal(gf_loader_open(contract_ds_path(), &o, &l), 0);
	return l;
}

static void row_gf_loader_uneven_name(void)
{
	NAME_Q(gf_loader_uneven_name((enum gf_loader_uneven)BAD_ENUM));
	NAME_Q(gf_loader_uneven_name((enum gf_loader_uneven)NEG_ENUM));
}

static void row_gf_loader_open(void)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	const char *ds = contract_ds_path();
	struct gf_loader *l;

	o.batch_size = 2;
	NULL_ARG(gf_loader_open(NULL, &o, &l), "dataset");
	NULL_ARG(gf_loader_open(ds, NULL, &l), "opts");
	NULL_ARG(gf_loader_open(ds, &o, NULL), "out");
	o.batch_size = 0;
	BAD_ARG(gf_loader_open(ds, &o, &l), "batch_size");
	o.batch_size = 2;
	o.rank = 3;
	o.world_size = 2;
	BAD_ARG(gf_loader_open(ds, &o, &l), "rank");
	o.rank = 0;
	o.slots = 1;
	BAD_ARG(gf_loader_open(ds, &o, &l), "slots");
	o.slots = 0;
	o.uneven = (enum gf_loader_uneven)BAD_ENUM;
	BAD_ARG(gf_loader_open(ds, &o, &l), "uneven");
	o.uneven = (enum gf_loader_uneven)NEG_ENUM;
	BAD_ARG(gf_loader_open(ds, &o, &l), "uneven");
	o.uneven = GF_LOADER_PAD;
	o.gpu = -2;
	BAD_ARG(gf_loader_open(ds, &o, &l), "gpu");
	o.gpu = -1;
	o.numa_node = -2;
	BAD_ARG(gf_loader_open(ds, &o, &l), "numa_node");
	o.numa_node = -1;
	o.struct_size = 0;
	UNINIT(gf_loader_open(ds, &o, &l), "GF_LOADER_OPTS_INIT");
}

static void row_gf_loader_close(void)
{
	gf_loader_close(NULL);
}

static void row_gf_loader_next(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_batch *b;

	NULL_ARG(gf_loader_next(NULL, &b), "l");
	NULL_ARG(gf_loader_next(l, NULL), "out");
	gf_loader_close(l);
}

static void row_gf_loader_release(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_batch *b, garbage = { 0 };

	NULL_ARG(gf_loader_release(NULL, &garbage), "l");
	NULL_ARG(gf_loader_release(l, NULL), "b");
	BAD_ARG(gf_loader_release(l, &garbage), "b");
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_loader_release(l, b), 0);
	BAD_ARG(gf_loader_release(l, b), "b");
	gf_loader_close(l);
}

static void row_gf_batch_wait_stream(void)
{
	struct gf_batch garbage = { 0 };

	NULL_ARG(gf_batch_wait_stream(NULL, NULL), "b");
	BAD_ARG(gf_batch_wait_stream(&garbage, NULL), "b");
}

static void row_gf_batch_dlpack(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_dl_managed_tensor *t;
	struct gf_batch *b, garbage = { 0 };

	NULL_ARG(gf_batch_dlpack(NULL, &t, NULL), "b");
	BAD_ARG(gf_batch_dlpack(&garbage, &t, NULL), "b");
	assert_int_equal(gf_loader_next(l, &b), 0);
	NULL_ARG(gf_batch_dlpack(b, NULL, NULL), "data_out");
	gf_loader_release(l, b);
	gf_loader_close(l);
}

static void row_gf_loader_set_epoch(void)
{
	NULL_ARG(gf_loader_set_epoch(NULL, 1), "l");
}

static void row_gf_loader_batches(void)
{
	assert_int_equal(gf_loader_batches(NULL), 0);
}

static void row_gf_loader_samples(void)
{
	assert_int_equal(gf_loader_samples(NULL), 0);
}

static void row_gf_loader_state(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_loader_state st;

	NULL_ARG(gf_loader_state(NULL, &st), "l");
	NULL_ARG(gf_loader_state(l, NULL), "out");
	gf_loader_close(l);
}

static void row_gf_loader_load_state(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_loader_state st = { .seed = 99 };

	NULL_ARG(gf_loader_load_state(NULL, &st), "l");
	NULL_ARG(gf_loader_load_state(l, NULL), "state");
	BAD_ARG(gf_loader_load_state(l, &st), "seed");
	gf_loader_close(l);
}

static void row_gf_loader_counters(void)
{
	struct gf_loader *l = contract_loader();
	struct gf_loader_counters c;

	NULL_ARG(gf_loader_counters(NULL, &c), "l");
	NULL_ARG(gf_loader_counters(l, NULL), "out");
	gf_loader_close(l);
}

static void row_gf_loader_shuffle_quality(void)
{
	struct gf_loader *l = contract_loader();
	double s, f;

	NULL_ARG(gf_loader_shuffle_quality(NULL, &s, &f), "l");
	NULL_ARG(gf_loader_shuffle_quality(l, NULL, &f), "score");
	NULL_ARG(gf_loader_shuffle_quality(l, &s, NULL), "full");
	gf_loader_close(l);
}

/* ---- nccl.h ---- */

static struct gf_nccl_log *contract_nccl_log(void)
{
	struct gf_nccl_log *l = NULL;

	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	return l;
}

static void row_gf_nccl_log_new(void)
{
	struct gf_nccl_log_options o = GF_NCCL_LOG_OPTS_INIT;
	struct gf_nccl_log *l;

	NULL_ARG(gf_nccl_log_new(NULL, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_nccl_log_new(&o, &l), "GF_NCCL_LOG_OPTS_INIT");
	o = (struct gf_nccl_log_options)GF_NCCL_LOG_OPTS_INIT;
	o.many_inits = -1;
	BAD_ARG(gf_nccl_log_new(&o, &l), "many_inits");
}

static void row_gf_nccl_log_feed_line(void)
{
	struct gf_nccl_log *l = contract_nccl_log();

	NULL_ARG(gf_nccl_log_feed_line(NULL, "s", "x", 1), "l");
	NULL_ARG(gf_nccl_log_feed_line(l, NULL, "x", 1), "source");
	NULL_ARG(gf_nccl_log_feed_line(l, "s", NULL, 1), "line");
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_feed_file(void)
{
	struct gf_nccl_log *l = contract_nccl_log();

	NULL_ARG(gf_nccl_log_feed_file(NULL, "s", stdin), "l");
	NULL_ARG(gf_nccl_log_feed_file(l, NULL, stdin), "source");
	NULL_ARG(gf_nccl_log_feed_file(l, "s", NULL), "f");
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_analyse(void)
{
	NULL_ARG(gf_nccl_log_analyse(NULL, NULL), "l");
}

static void row_gf_nccl_log_findings(void)
{
	struct gf_nccl_log *l = contract_nccl_log();
	const struct gf_nccl_finding *f;

	NULL_ARG(gf_nccl_log_findings(NULL, &f), "l");
	NULL_ARG(gf_nccl_log_findings(l, NULL), "out");
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_clean(void)
{
	struct gf_nccl_log *l = contract_nccl_log();

	assert_false(gf_nccl_log_clean(NULL));
	assert_false(gf_nccl_log_clean(l));	/* not analysed */
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_write_text(void)
{
	struct gf_nccl_log *l = contract_nccl_log();

	NULL_ARG(gf_nccl_log_write_text(NULL, stdout), "l");
	NULL_ARG(gf_nccl_log_write_text(l, NULL), "f");
	BAD_ARG(gf_nccl_log_write_text(l, stdout), "not analysed");
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_write_json(void)
{
	struct gf_nccl_log *l = contract_nccl_log();

	NULL_ARG(gf_nccl_log_write_json(NULL, stdout), "l");
	NULL_ARG(gf_nccl_log_write_json(l, NULL), "f");
	BAD_ARG(gf_nccl_log_write_json(l, stdout), "not analysed");
	gf_nccl_log_free(l);
}

static void row_gf_nccl_log_free(void)
{
	gf_nccl_log_free(NULL);
}

static void row_gf_nccl_log_capture(void)
{
	char longdir[5000];

	NULL_ARG(gf_nccl_log_capture(NULL), "dir");
	BAD_ARG(gf_nccl_log_capture(""), "dir");
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = 0;
	assert_int_equal(gf_nccl_log_capture(longdir), -ENAMETOOLONG);
}

/* nccl_hang.h */

static struct gf_nccl_fr *contract_fr(void)
{
	char dir[PATH_MAX];
	const char *p[1] = { dir };
	struct gf_nccl_fr *fr = NULL;

	snprintf(dir, sizeof(dir), "%s", t_src_path("tests/fixtures/nccl/h200x2/flight-recorder"));
	assert_int_equal(gf_nccl_fr_load(p, 1, &fr), 0);
	return fr;
}

static void row_gf_nccl_fr_load(void)
{
	const char *p[2] = { "x", NULL };
	struct gf_nccl_fr *fr;

	NULL_ARG(gf_nccl_fr_load(p, 1, NULL), "out");
	NULL_ARG(gf_nccl_fr_load(NULL, 1, &fr), "paths");
	BAD_ARG(gf_nccl_fr_load(p, 0, &fr), "npaths");
	BAD_ARG(gf_nccl_fr_load(p, 2, &fr), "paths[1]");
}

static void row_gf_nccl_fr_free(void)
{
	gf_nccl_fr_free(NULL);
}

static void row_gf_nccl_fr_finding_count(void)
{
	NULL_ARG(gf_nccl_fr_finding_count(NULL), "fr");
}

static void row_gf_nccl_fr_missing_ranks(void)
{
	struct gf_nccl_fr *fr = contract_fr();
	int r;

	NULL_ARG(gf_nccl_fr_missing_ranks(NULL, &r, 1), "fr");
	BAD_ARG(gf_nccl_fr_missing_ranks(fr, NULL, 1), "ranks");
	BAD_ARG(gf_nccl_fr_missing_ranks(fr, &r, -1), "max");
	gf_nccl_fr_free(fr);
}

static void row_gf_nccl_fr_print(void)
{
	struct gf_nccl_fr *fr = contract_fr();

	NULL_ARG(gf_nccl_fr_print(NULL, w.out), "fr");
	NULL_ARG(gf_nccl_fr_print(fr, NULL), "f");
	gf_nccl_fr_free(fr);
}

static void row_gf_nccl_fr_write_json(void)
{
	struct gf_nccl_fr *fr = contract_fr();

	NULL_ARG(gf_nccl_fr_write_json(NULL, w.out), "fr");
	NULL_ARG(gf_nccl_fr_write_json(fr, NULL), "f");
	gf_nccl_fr_free(fr);
}

static struct gf_nccl_ras *contract_ras(void)
{
	struct gf_nccl_ras *r = NULL;

	assert_int_equal(gf_nccl_ras_parse("NCCL version 2.28.9\n", 20, "t", &r), 0);
	return r;
}

static void row_gf_nccl_ras_parse(void)
{
	struct gf_nccl_ras *r;

	NULL_ARG(gf_nccl_ras_parse("", 0, "t", NULL), "out");
	NULL_ARG(gf_nccl_ras_parse(NULL, 0, "t", &r), "text");
}

static void row_gf_nccl_ras_read(void)
{
	struct gf_nccl_ras *r;

	NULL_ARG(gf_nccl_ras_read("x", NULL), "out");
	NULL_ARG(gf_nccl_ras_read(NULL, &r), "path");
}

static void row_gf_nccl_ras_query(void)
{
	struct gf_nccl_ras *r;

	NULL_ARG(gf_nccl_ras_query("localhost:1", 5, NULL), "out");
	BAD_ARG(gf_nccl_ras_query("localhost:1", 0, &r), "timeout_s");
	BAD_ARG(gf_nccl_ras_query("localhost:1", 3601, &r), "timeout_s");
}

static void row_gf_nccl_ras_free(void)
{
	gf_nccl_ras_free(NULL);
}

static void row_gf_nccl_ras_finding_count(void)
{
	NULL_ARG(gf_nccl_ras_finding_count(NULL), "r");
}

static void row_gf_nccl_ras_missing_ranks(void)
{
	struct gf_nccl_ras *r = contract_ras();
	int x;

	NULL_ARG(gf_nccl_ras_missing_ranks(NULL, &x, 1), "r");
	BAD_ARG(gf_nccl_ras_missing_ranks(r, NULL, 1), "ranks");
	BAD_ARG(gf_nccl_ras_missing_ranks(r, &x, -1), "max");
	gf_nccl_ras_free(r);
}

static void row_gf_nccl_ras_print(void)
{
	struct gf_nccl_ras *r = contract_ras();

	NULL_ARG(gf_nccl_ras_print(NULL, w.out), "r");
	NULL_ARG(gf_nccl_ras_print(r, NULL), "f");
	gf_nccl_ras_free(r);
}

static void row_gf_nccl_ras_write_json(void)
{
	struct gf_nccl_ras *r = contract_ras();

	NULL_ARG(gf_nccl_ras_write_json(NULL, w.out), "r");
	NULL_ARG(gf_nccl_ras_write_json(r, NULL), "f");
	gf_nccl_ras_free(r);
}

/* ---- monitor.h ---- */

static void row_gf_monitor_open(void)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_monitor *m;

	o.root = w.machine.root;
	NULL_ARG(gf_monitor_open(NULL, &m), "opts");
	NULL_ARG(gf_monitor_open(&o, NULL), "out");
	o.struct_size = 0;
	UNINIT(gf_monitor_open(&o, &m), "GF_MONITOR_OPTS_INIT");
	o = (struct gf_monitor_opts)GF_MONITOR_OPTS_INIT;
	o.root = w.machine.root;
	o.parts = 1u << 20;
	BAD_ARG(gf_monitor_open(&o, &m), "parts");
	o.parts = GF_MON_ALL;
	o.pid = -1;
	BAD_ARG(gf_monitor_open(&o, &m), "pid");
	o.pid = 0;
	o.children = true;
	BAD_ARG(gf_monitor_open(&o, &m), "children");
}

static void row_gf_monitor_sample(void)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s = (const void *)&o;
	struct gf_monitor *m;

	o.root = w.machine.root;
	NULL_ARG(gf_monitor_sample(NULL, &s), "m");
	assert_null(s);
	assert_int_equal(gf_monitor_open(&o, &m), 0);
	NULL_ARG(gf_monitor_sample(m, NULL), "out");
	gf_monitor_close(m);
}

static void row_gf_monitor_topo(void)
{
	NO_PTR(gf_monitor_topo(NULL), "m");
}

static void row_gf_monitor_close(void)
{
	gf_monitor_close(NULL);
}

/* ---- exporter.h ---- */

static void row_gf_exporter_check_listen(void)
{
	NULL_ARG(gf_exporter_check_listen(NULL), "spec");
	REFUSED(gf_exporter_check_listen("no-port"), -EINVAL, "no-port", false);
}

static void row_gf_exporter_open(void)
{
	struct gf_exporter_opts o = GF_EXPORTER_OPTS_INIT, bad = GF_EXPORTER_OPTS_INIT;
	struct gf_exporter *e = NULL;

	o.textfile = w.path;
	NULL_ARG(gf_exporter_open(NULL, &e), "opts");
	NULL_ARG(gf_exporter_open(&o, NULL), "out");
	bad.struct_size = 0;
	UNINIT(gf_exporter_open(&bad, &e), "GF_EXPORTER_OPTS_INIT");
	bad = o;
	bad.interval_s = 0;
	BAD_ARG(gf_exporter_open(&bad, &e), "interval_s");
	bad = o;
	bad.textfile = NULL;
	BAD_ARG(gf_exporter_open(&bad, &e), "nothing to serve");
	bad = o;
	bad.profile = (enum gf_profile)7;
	BAD_ARG(gf_exporter_open(&bad, &e), "profile");
	bad = o;
	bad.sample_root = w.machine.root;	/* a recording's figures, and not once */
	BAD_ARG(gf_exporter_open(&bad, &e), "recording");
	assert_null(e);
}

static void row_gf_exporter_address(void)
{
	char buf[64];

	NULL_ARG(gf_exporter_address(NULL, buf, sizeof(buf)), "e");
}

static void row_gf_exporter_run(void)
{
	NULL_ARG(gf_exporter_run(NULL), "e");
}

static void row_gf_exporter_stop(void)
{
	gf_exporter_stop(NULL);
}

static void row_gf_exporter_close(void)
{
	gf_exporter_close(NULL);
}

static void row_gf_exporter_write_prom(void)
{
	struct gf_mon_sample s = { .hostname = "h" };

	NULL_ARG(gf_exporter_write_prom(NULL, NULL, NULL, w.out), "s");
	NULL_ARG(gf_exporter_write_prom(&s, NULL, NULL, NULL), "f");
}

/* ---- nccl.h: what NCCL chose (bench coll's algorithm column) ---- */

static void row_gf_nccl_choice_parse(void)
{
	struct gf_nccl_choice c;

	NULL_ARG(gf_nccl_choice_parse(NULL, 0, &c), "line");
	NULL_ARG(gf_nccl_choice_parse("x", 1, NULL), "out");
}

static void row_gf_nccl_tuning_begin(void)
{
	NULL_ARG(gf_nccl_tuning_begin(NULL, NULL), "out");
}

static void row_gf_nccl_tuning_end(void)
{
	assert_int_equal(gf_nccl_tuning_end(NULL, NULL, 0), 0);
}

/* ---- monitor_output.h ---- */

static void row_gf_mon_sample_print(void)
{
	struct gf_mon_sample s = { .interval_s = 0 };

	NULL_ARG(gf_mon_sample_print(NULL, w.out, 0), "s");
	NULL_ARG(gf_mon_sample_print(&s, NULL, 0), "f");
	BAD_ARG(gf_mon_sample_print(&s, w.out, 0x80000000u), "flags");
}

static void row_gf_mon_sample_write_json(void)
{
	struct gf_mon_sample s = { .interval_s = 0 };

	NULL_ARG(gf_mon_sample_write_json(NULL, w.out), "s");
	NULL_ARG(gf_mon_sample_write_json(&s, NULL), "f");
}

static void row_gf_mon_sample_write_csv(void)
{
	struct gf_mon_sample s = { .interval_s = 0 };

	NULL_ARG(gf_mon_sample_write_csv(NULL, w.out, 0), "s");
	NULL_ARG(gf_mon_sample_write_csv(&s, NULL, 0), "f");
	BAD_ARG(gf_mon_sample_write_csv(&s, w.out, 0x80000000u), "flags");
}

/* ---- topo.h, report.h: the picture and the page ---- */

static void row_gf_topo_write_svg(void)
{
	NULL_ARG(gf_topo_write_svg(NULL, w.out), "t");
	NULL_ARG(gf_topo_write_svg(w.t, NULL), "f");
}

static void row_gf_topo_write_dot(void)
{
	NULL_ARG(gf_topo_write_dot(NULL, w.out), "t");
	NULL_ARG(gf_topo_write_dot(w.t, NULL), "f");
}

static void row_gf_report_write_html(void)
{
	const char *missing[] = { "/nonexistent/bench.json" };

	NULL_ARG(gf_report_write_html(NULL, w.a, NULL, 0, w.out), "t");
	NULL_ARG(gf_report_write_html(w.t, w.a, NULL, 0, NULL), "f");
	BAD_ARG(gf_report_write_html(w.t, w.a, NULL, 1, w.out), "bench");
	BAD_ARG(gf_report_write_html(w.t, w.a, missing, -1, w.out), "nbench");
	REFUSED(gf_report_write_html(w.t, w.a, missing, 1, w.out), -ENOENT, "/nonexistent/bench.json", false);
}

/* ---- tune.h, text width ---- */
static void row_gf_tune_print_width(void)
{
	NULL_ARG(gf_tune_print_width(NULL, w.out, false, 80), "r");
	NULL_ARG(gf_tune_print_width(w.tune, NULL, false, 80), "f");
	BAD_ARG(gf_tune_print_width(w.tune, w.out, false, -1), "width -1 is negative");
}

/* ---- the table ---- */

/* step.h: off in the test (no GPUFEED_DIAGNOSE), so each is a no-op that
 * says so. */
static void row_gf_step(void)
{
	assert_int_equal(gf_step(), 0);
}

static void row_gf_step_input_wait(void)
{
	assert_int_equal(gf_step_input_wait(0, 0), 0);
}

static void row_gf_step_enabled(void)
{
	assert_false(gf_step_enabled());
}

/* diagnose.h */
static void row_gf_diagnose_run(void)
{
	struct gf_diagnose_opts o = GF_DIAGNOSE_OPTS_INIT, bad = { 0 };
	char *argv[] = { "true", NULL };
	struct gf_diagnosis *d;

	NULL_ARG(gf_diagnose_run(&o, NULL), "out");
	NULL_ARG(gf_diagnose_run(NULL, &d), "opts");
	UNINIT(gf_diagnose_run(&bad, &d), "GF_DIAGNOSE_OPTS_INIT");
	BAD_ARG(gf_diagnose_run(&o, &d), "a pid to attach to");
	o.argv = argv;
	o.pid = 1;
	BAD_ARG(gf_diagnose_run(&o, &d), "a pid to attach to");
	o.pid = 0;
	o.interval_s = 0;
	BAD_ARG(gf_diagnose_run(&o, &d), "interval_s");
	assert_null(d);
}

static void row_gf_diagnose_replay(void)
{
	struct gf_diagnosis *d;

	NULL_ARG(gf_diagnose_replay("x", NULL), "out");
	NULL_ARG(gf_diagnose_replay(NULL, &d), "samples");
}

static void row_gf_diagnose_job_status(void)
{
	assert_int_equal(gf_diagnose_job_status(NULL), -1);
}

static void row_gf_diagnose_known(void)
{
	assert_false(gf_diagnose_known(NULL));
}

static void row_gf_diagnose_print(void)
{
	NULL_ARG(gf_diagnose_print(NULL, stdout), "d");
}

static void row_gf_diagnose_write_json(void)
{
	NULL_ARG(gf_diagnose_write_json(NULL, stdout), "d");
}

static void row_gf_diagnose_save(void)
{
	NULL_ARG(gf_diagnose_save(NULL, "x", false), "d");
}

static void row_gf_diagnose_free(void)
{
	gf_diagnose_free(NULL);
}

struct row {
	const char *name;
	void (*fn)(void);
};

#define ROW(name) { #name, row_##name }

static const struct row rows[] = {
	ROW(gf_last_error), ROW(gf_version),
	/* log.h */
	ROW(gf_log_set_callback), ROW(gf_log_stderr), ROW(gf_log_set_level), ROW(gf_log_level_of),
	ROW(gf_log_parse), ROW(gf_log_level_name), ROW(gf_log_subsys_name),
	/* env.h */
	ROW(gf_env_name), ROW(gf_env_str), ROW(gf_env_int), ROW(gf_env_flag),
	/* parse.h */
	ROW(gf_parse_size), ROW(gf_parse_count), ROW(gf_parse_duration),
	/* cpuset.h */
	ROW(gf_cpuset_zero), ROW(gf_cpuset_set), ROW(gf_cpuset_clear), ROW(gf_cpuset_isset),
	ROW(gf_cpuset_count), ROW(gf_cpuset_empty), ROW(gf_cpuset_equal), ROW(gf_cpuset_and),
	ROW(gf_cpuset_or), ROW(gf_cpuset_andnot), ROW(gf_cpuset_first), ROW(gf_cpuset_next),
	ROW(gf_cpuset_parse_list), ROW(gf_cpuset_parse_mask), ROW(gf_cpuset_format_list),
	/* topo.h */
	ROW(gf_source_name), ROW(gf_pci_kind_name), ROW(gf_link_type_name), ROW(gf_severity_name),
	ROW(gf_matrix_at), ROW(gf_link_format), ROW(gf_topo_options_copy), ROW(gf_topo_discover),
	ROW(gf_pci_locality_check), ROW(gf_topo_free), ROW(gf_topo_finding_count), ROW(gf_topo_find_gpu), ROW(gf_topo_pci_node),
	ROW(gf_topo_print), ROW(gf_topo_write_json), ROW(gf_topo_print_matrix),
	ROW(gf_topo_write_matrix_json), ROW(gf_topo_print_gpu), ROW(gf_topo_write_gpu_json),
	ROW(gf_topo_nearest_nic), ROW(gf_topo_print_nearest_nic), ROW(gf_topo_write_nearest_nic_json),
	/* record.h, report.h */
	ROW(gf_record), ROW(gf_record_write_json), ROW(gf_report_print_with_audit),
	ROW(gf_report_write_json_with_audit),
	/* audit.h */
	ROW(gf_check_status_name), ROW(gf_profile_name), ROW(gf_profile_parse), ROW(gf_fix_class_name),
	ROW(gf_check_count), ROW(gf_check_info_at), ROW(gf_checks_write_markdown), ROW(gf_checks_write_json),
	ROW(gf_audit_run), ROW(gf_audit_free), ROW(gf_audit_count_at_least), ROW(gf_audit_print),
	ROW(gf_audit_write_json), ROW(gf_audit_write_prom), ROW(gf_audit_save_prom), ROW(gf_audit_print_summary),
	/* tune.h */
	ROW(gf_tune_action_name), ROW(gf_tune_action_undone), ROW(gf_tune_run), ROW(gf_tune_revert),
	ROW(gf_tune_report_free), ROW(gf_tune_undone), ROW(gf_tune_print),
	/* bind.h */
	ROW(gf_bind_cpu_mode_name), ROW(gf_bind_mem_policy_name), ROW(gf_bind_cpu_mode_parse),
	ROW(gf_bind_mem_policy_parse), ROW(gf_bind_parse_targets), ROW(gf_bind_compute), ROW(gf_bind_apply),
	ROW(gf_bind_setenv), ROW(gf_bind_gpu), ROW(gf_bind_print), ROW(gf_bind_write_json),
	/* launch.h */
	ROW(gf_launch_run), ROW(gf_launch_world_resolve), ROW(gf_launch_world_env),
	ROW(gf_launch_world_setenv), ROW(gf_launch_plan_new), ROW(gf_launch_plan_free),
	ROW(gf_launch_plan_world), ROW(gf_launch_plan_print), ROW(gf_launch_plan_write_json),
	ROW(gf_launch_plan_run), ROW(gf_launch_job),
	/* verify.h */
	ROW(gf_verify_gpu_source_name), ROW(gf_verify_run), ROW(gf_verify_free), ROW(gf_verify_finding_count),
	ROW(gf_verify_no_gpu), ROW(gf_verify_print), ROW(gf_verify_write_json),
	/* place.h */
	ROW(gf_plan_part_name), ROW(gf_plan_compute), ROW(gf_plan_free), ROW(gf_plan_format_parse),
	ROW(gf_plan_write),
	/* emit.h */
	ROW(gf_emit_kubelet), ROW(gf_emit_slurm), ROW(gf_emit_nccl_topo), ROW(gf_emit_labels),
	ROW(gf_emit_allocatable),
	/* buf.h, dlpack.h */
	ROW(gf_buf_alloc), ROW(gf_buf_free), ROW(gf_devbuf_alloc), ROW(gf_devbuf_free), ROW(gf_mem_node_of),
	ROW(gf_buf_dlpack), ROW(gf_devbuf_dlpack),
	/* io.h, outfile.h */
	ROW(gf_io_backend_name), ROW(gf_io_open), ROW(gf_io_backend_of), ROW(gf_io_fallback_error),
	ROW(gf_io_async_error), ROW(gf_io_close), ROW(gf_io_register_buf), ROW(gf_io_unregister_buf),
	ROW(gf_file_open), ROW(gf_file_from_fd), ROW(gf_file_info), ROW(gf_file_fd), ROW(gf_file_close),
	ROW(gf_io_submit), ROW(gf_io_poll), ROW(gf_io_wait), ROW(gf_io_cancel), ROW(gf_io_inflight),
	ROW(gf_io_interrupt), ROW(gf_io_interrupt_clear), ROW(gf_io_read), ROW(gf_io_write),
	ROW(gf_io_read_ranges), ROW(gf_io_read_file), ROW(gf_ckpt_open), ROW(gf_ckpt_write),
	ROW(gf_ckpt_commit), ROW(gf_ckpt_abort), ROW(gf_io_write_file_atomic), ROW(gf_outfile_check),
	ROW(gf_outfile_rename),
	/* xfer.h */
	ROW(gf_xfer_path_name), ROW(gf_xfer_path_parse), ROW(gf_xfer_open), ROW(gf_xfer_close),
	ROW(gf_xfer_read), ROW(gf_xfer_read_fd), ROW(gf_xfer_copy_to_gpu), ROW(gf_xfer_copy_from_gpu),
	ROW(gf_xfer_dev_alloc), ROW(gf_xfer_dev_free), ROW(gf_xfer_dtoh), ROW(gf_xfer_dev_clear),
	ROW(gf_xfer_gpu_pci), ROW(gf_xfer_numa_node),
	/* bench.h */
	ROW(gf_bench_target_at), ROW(gf_bench_target_find), ROW(gf_bench_option_at), ROW(gf_bench_new),
	ROW(gf_bench_target_of), ROW(gf_bench_set), ROW(gf_bench_set_operand), ROW(gf_bench_check),
	ROW(gf_bench_run), ROW(gf_bench_has_results), ROW(gf_bench_outcome), ROW(gf_bench_findings),
	ROW(gf_bench_problem), ROW(gf_bench_print), ROW(gf_bench_write_json), ROW(gf_bench_free),
	/* dataset.h */
	ROW(gf_checksum_name), ROW(gf_checksum_parse), ROW(gf_checksum_of), ROW(gf_pack_input_name),
	ROW(gf_pack_input_parse), ROW(gf_pack), ROW(gf_dataset_kind_name), ROW(gf_dataset_open),
	ROW(gf_dataset_close), ROW(gf_dataset_info), ROW(gf_dataset_shard), ROW(gf_dataset_sample),
	ROW(gf_dataset_key), ROW(gf_dataset_check_sample), ROW(gf_dataset_verify),
	/* loader.h */
	ROW(gf_loader_uneven_name), ROW(gf_loader_open), ROW(gf_loader_close), ROW(gf_loader_next),
	ROW(gf_loader_release), ROW(gf_batch_wait_stream), ROW(gf_batch_dlpack), ROW(gf_loader_set_epoch),
	ROW(gf_loader_batches), ROW(gf_loader_samples), ROW(gf_loader_state), ROW(gf_loader_load_state),
	ROW(gf_loader_counters), ROW(gf_loader_shuffle_quality),
	/* nccl.h */
	ROW(gf_nccl_log_new), ROW(gf_nccl_log_feed_line), ROW(gf_nccl_log_feed_file), ROW(gf_nccl_log_analyse),
	ROW(gf_nccl_log_findings), ROW(gf_nccl_log_clean), ROW(gf_nccl_log_write_text), ROW(gf_nccl_log_write_json),
	ROW(gf_nccl_log_free), ROW(gf_nccl_log_capture),
	/* nccl_hang.h */
	ROW(gf_nccl_fr_load), ROW(gf_nccl_fr_free), ROW(gf_nccl_fr_finding_count), ROW(gf_nccl_fr_missing_ranks),
	ROW(gf_nccl_fr_print), ROW(gf_nccl_fr_write_json), ROW(gf_nccl_ras_parse), ROW(gf_nccl_ras_read), ROW(gf_nccl_ras_query),
	ROW(gf_nccl_ras_free), ROW(gf_nccl_ras_finding_count), ROW(gf_nccl_ras_missing_ranks), ROW(gf_nccl_ras_print),
	ROW(gf_nccl_ras_write_json),
	/* step.h, diagnose.h */
	ROW(gf_step), ROW(gf_step_input_wait), ROW(gf_step_enabled), ROW(gf_diagnose_run), ROW(gf_diagnose_replay),
	ROW(gf_diagnose_job_status), ROW(gf_diagnose_known), ROW(gf_diagnose_print), ROW(gf_diagnose_write_json),
	ROW(gf_diagnose_save), ROW(gf_diagnose_free),
	/* monitor.h */
	ROW(gf_monitor_open), ROW(gf_monitor_sample), ROW(gf_monitor_topo), ROW(gf_monitor_close),
	/* exporter.h */
	ROW(gf_exporter_check_listen), ROW(gf_exporter_open), ROW(gf_exporter_address), ROW(gf_exporter_run),
	ROW(gf_exporter_stop), ROW(gf_exporter_close), ROW(gf_exporter_write_prom),
	/* nccl.h: what NCCL chose */
	ROW(gf_nccl_choice_parse), ROW(gf_nccl_tuning_begin), ROW(gf_nccl_tuning_end),
	/* monitor_output.h */
	ROW(gf_mon_sample_print), ROW(gf_mon_sample_write_json), ROW(gf_mon_sample_write_csv),
	/* topo.h, report.h: the picture and the page */
	ROW(gf_topo_write_svg), ROW(gf_topo_write_dot), ROW(gf_report_write_html),
	/* tune.h, text width */
	ROW(gf_tune_print_width),
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

static void run_row(void **state)
{
	const struct row *r = *state;

	row = r->name;
	r->fn();
}

static bool has_row(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(rows[i].name, name))
			return true;
	return false;
}

/* The names in the global: sections of src/libgpufeed.map (comments and
 * local: left out), one call of fn per name. */
static int map_names(void (*fn)(const char *name, void *arg), void *arg)
{
	char *map = t_read(t_src_path("src/libgpufeed.map")), *p, *save = NULL;
	bool global = false, comment = false;
	int n = 0;

	assert_non_null(map);
	for (p = strtok_r(map, " \t\n;", &save); p; p = strtok_r(NULL, " \t\n;", &save)) {
		if (comment) {
			comment = !strstr(p, "*/");
			continue;
		}
		if (!strncmp(p, "/*", 2)) {
			comment = !strstr(p, "*/");
			continue;
		}
		if (!strcmp(p, "global:") || !strcmp(p, "local:")) {
			global = !strcmp(p, "global:");
			continue;
		}
		if (!strcmp(p, "}") || strchr(p, '{') || !strncmp(p, "GPUFEED_", 8))
			global = false;
		else if (global) {
			fn(p, arg);
			n++;
		}
	}
	free(map);
	return n;
}

static void need_row(const char *name, void *arg)
{
	if (!has_row(name)) {
		print_error("%s is exported (src/libgpufeed.map) and has no row in %s\n", name, __FILE__);
		(*(int *)arg)++;
	}
}

struct seen {
	const char *name;
	bool found;
};

static void is_name(const char *name, void *arg)
{
	struct seen *s = arg;

	s->found |= !strcmp(name, s->name);
}

static void every_export_has_a_row(void **state)
{
	int missing = 0;

	(void)state;
	assert_true(map_names(need_row, &missing) > 100);
	if (missing)
		fail_msg("%d exported functions without a row: add one per function to rows[]", missing);
}

static void every_row_is_exported(void **state)
{
	int stale = 0;

	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		struct seen s = { rows[i].name, false };

		map_names(is_name, &s);
		if (!s.found) {
			print_error("row %s: not exported (src/libgpufeed.map): remove the row\n", rows[i].name);
			stale++;
		}
	}
	assert_int_equal(stale, 0);
}

int main(void)
{
	struct CMUnitTest tests[NROWS + 2];

	for (size_t i = 0; i < NROWS; i++)
		tests[i] = (struct CMUnitTest){ .name = rows[i].name, .test_func = run_row,
						.initial_state = (void *)&rows[i] };
	tests[NROWS] = (struct CMUnitTest){ .name = "every_export_has_a_row", .test_func = every_export_has_a_row };
	tests[NROWS + 1] = (struct CMUnitTest){ .name = "every_row_is_exported", .test_func = every_row_is_exported };
	return cmocka_run_group_tests_name("api_contract", tests, setup, teardown);
}
