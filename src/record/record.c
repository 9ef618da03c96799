/* gpufeed record DIR: run discovery and then every check with the recorder
 * attached (so every file the model and the audit read is copied, symlinks
 * kept, as record_policy.c allows), write the NVML facts and a manifest;
 * all into DIR.tmp-XXXXXX, moved into place at the end by record_place.c
 * (or packed into one .tar.gz first). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "audit/audit_record.h"
#include "core/atomic.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/recorder.h"
#include "core/rmtree.h"
#include "core/strutil.h"
#include "core/tar.h"
#include "record/record_hook.h"
#include "record/record_hwloc.h"
#include "record/record_place.h"
#include "record/record_redact.h"
#include "record/record_policy.h"
#include "topo/discover.h"
#include "vendor/nvml/nvml_facts.h"

struct gf_bytes {
	char *data;
	size_t len;
};

#define GF_RECORDING_SCHEMA "gpufeed-recording/2"
#define GF_RECORD_SUMMARY_SCHEMA "gpufeed-record/2"

void (*gf_record_before_swap)(const char *dir);

/* Device nodes cannot be copied; their names are what the audit needs. */
static json_t *dev_nodes(void)
{
	json_t *arr = json_array();
	DIR *d = opendir("/dev");
	struct dirent *de;

	if (!d)
		return arr;
	while ((de = readdir(d)))
		if (gf_starts_with(de->d_name, "nvidia"))
			json_array_append_new(arr, gf_jstr(de->d_name));
	closedir(d);
	d = opendir("/dev/infiniband");
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			char name[300];

			snprintf(name, sizeof(name), "infiniband/%s", de->d_name);
			json_array_append_new(arr, gf_jstr(name));
		}
	if (d)
		closedir(d);
	return arr;
}

/* The environment variables the audit's NCCL/CUDA checks read, and nothing
 * else: a recording is sent with bug reports, and the environment holds
 * secrets.  A name that looks like a secret (NVIDIA_API_KEY, ...) is left
 * out even under a kept prefix. */
static bool env_kept(const char *name, size_t n)
{
	static const char *const prefixes[] = { "NCCL_", "CUDA_", "NVIDIA_" };
	static const char *const names[] = { "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING",
					     "TORCH_DISTRIBUTED_DEBUG", "OMP_NUM_THREADS", "LD_LIBRARY_PATH",
					     /* gpu.env: DCGM's list beyond CUDA_* */
					     "NSIGHT_CUDA_DEBUGGER", "COMPUTE_PROFILE", "OPENCL_PROFILE" };
	static const char *const secret[] = { "KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL" };
	char buf[256];
	bool kept = false;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, name, n);
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		kept |= gf_starts_with(buf, prefixes[i]);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		kept |= !strcmp(buf, names[i]);
	for (size_t i = 0; kept && i < sizeof(secret) / sizeof(secret[0]); i++)
		kept = !strstr(buf, secret[i]);
	return kept;
}

static json_t *environ_kept(void)
{
	extern char **environ;
	json_t *obj = json_object();

	for (char **e = environ; obj && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[256];

		if (!eq || !env_kept(*e, (size_t)(eq - *e)))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		json_object_set_new(obj, name, gf_jstr(eq + 1));
	}
	return obj;
}

/* Soft and hard limit, -1 for unlimited: the audit's ctr.memlock and
 * ctr.nofile read them from here on a recording. */
static json_t *rlimit_json(int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl))
		return json_null();
	return json_pack("{s:I,s:I}", "soft", rl.rlim_cur == RLIM_INFINITY ? (json_int_t)-1 : (json_int_t)rl.rlim_cur,
			 "hard", rl.rlim_max == RLIM_INFINITY ? (json_int_t)-1 : (json_int_t)rl.rlim_max);
}

/* What the recording process itself was: its euid (the audit's needs-root
 * logic), the kept environment and its resource limits. */
static void manifest_process(json_t *m)
{
	json_t *rl = json_object();

	json_object_set_new(m, "euid", json_integer((json_int_t)geteuid()));
	json_object_set_new(m, "environ", environ_kept());
	if (rl) {
		json_object_set_new(rl, "memlock", rlimit_json(RLIMIT_MEMLOCK));
		json_object_set_new(rl, "nofile", rlimit_json(RLIMIT_NOFILE));
		json_object_set_new(m, "rlimits", rl);
	}
}

/* A recording of a recording: the facts its source's manifest holds about
 * the process that recorded the machine, so the copy replays the checks
 * that read them (device nodes, euid, environment, limits) as the source
 * does.  A source without a readable manifest has none to give. */
static void manifest_process_of(json_t *m, const struct gf_fs *src)
{
	static const char *const keys[] = { "dev_nodes", "dev_shm_bytes", "euid", "environ", "rlimits" };
	char *data = NULL;
	size_t len;
	json_t *from;

	if (gf_fs_read(src, "/" GF_RECORD_MANIFEST, &data, &len))
		return;
	from = json_loadb(data, len, 0, NULL);
	free(data);
	for (size_t i = 0; json_is_object(from) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(from, keys[i]);

		if (v)
			json_object_set(m, keys[i], v);
	}
	json_decref(from);
}

static int dump_cb(FILE *f, void *arg)
{
	if (json_dumpf(arg, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		return -EIO;
	fputc('\n', f);
	return 0;
}

static int write_manifest(const char *tmp, const struct gf_fs *src, const struct gf_topo *t,
			  const struct gf_recorder *rec, const struct gf_record_stats *st, json_t *redacted)
{
	char path[PATH_MAX];
	json_t *m = json_object();
	int ret;

	if (!m || gf_json_stamp(m, GF_RECORDING_SCHEMA)) {
		json_decref(m);
		return gf_error(-ENOMEM, "out of memory");
	}
	json_object_set_new(m, "source", gf_jstr(gf_fs_live(src) ? "live" : src->root));
	json_object_set_new(m, "hostname", gf_jstr(t->machine.hostname));
	json_object_set_new(m, "kernel", gf_jstr(t->machine.kernel));
	json_object_set_new(m, "nvml", json_boolean(st->nvml));
	if (!st->nvml)
		json_object_set_new(m, "nvml_note", gf_jstr(st->nvml_note));
	json_object_set_new(m, "files", json_integer(rec->files));
	json_object_set_new(m, "links", json_integer(rec->links));
	json_object_set_new(m, "bytes", json_integer((json_int_t)rec->bytes));
	if (redacted)
		json_object_set(m, "redacted", redacted);
	if (gf_fs_live(src)) {
		struct statvfs sv;

		json_object_set_new(m, "dev_nodes", dev_nodes());
		if (statvfs("/dev/shm", &sv) == 0)
			json_object_set_new(m, "dev_shm_bytes",
					    json_integer((json_int_t)((unsigned long long)sv.f_blocks * sv.f_frsize)));
		manifest_process(m);
	} else {
		manifest_process_of(m, src);
	}
	snprintf(path, sizeof(path), "%s/" GF_RECORD_MANIFEST, tmp);
	ret = gf_atomic_write(path, dump_cb, m);
	json_decref(m);
	return ret;
}

/* The manifest, and with redact the identities replaced in everything
 * written (the manifest's host name among them); the manifest says which
 * kinds and how many, never the values. */
static int write_manifest_redacted(const char *tmp, const struct gf_fs *src, const struct gf_topo *t,
				   const struct gf_recorder *rec, const struct gf_record_stats *st, bool redact)
{
	struct gf_redact r;
	json_t *summary = NULL;
	int ret;

	if (!redact)
		return write_manifest(tmp, src, t, rec, st, NULL);
	if ((ret = gf_redact_init(&r)))
		return ret;
	if (!(ret = gf_redact_add(&r, GF_REDACT_HOSTNAME, t->machine.hostname)) &&
	    !(ret = gf_redact_collect(&r, tmp))) {
		if (!(summary = gf_redact_summary(&r)))
			ret = gf_error(-ENOMEM, "out of memory");
		else if (!(ret = write_manifest(tmp, src, t, rec, st, summary)))
			ret = gf_redact_apply(&r, tmp);
	}
	json_decref(summary);
	gf_redact_fini(&r);
	return ret;
}

/* True when `path` names a .tar.gz (or .tgz); top gets its base name
 * without the suffix (the archive's top directory). */
static bool archive_name(const char *path, char *top, size_t size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base), cut = 0;

	if (len > 7 && !strcmp(base + len - 7, ".tar.gz"))
		cut = 7;
	else if (len > 4 && !strcmp(base + len - 4, ".tgz"))
		cut = 4;
	if (top) {
		size_t n = len - cut < size - 1 ? len - cut : size - 1;

		memcpy(top, base, n);
		top[n] = '\0';
		if (!n)
			gf_strlcpy(top, "recording", size);
	}
	return cut != 0;
}

static int place_archive(const char *tmp, const char *path, void *arg)
{
	(void)path;
	return gf_place_move(arg, tmp);
}

/* A recording's nvml.json, as read: its bytes (kept to be copied as they
 * are) and the facts parsed from them (a malformed file is an error). */
static int read_source_facts(const struct gf_fs *fs, struct gf_nvml_facts **facts, struct gf_bytes *raw)
{
	char real[PATH_MAX];
	int ret = gf_fs_read(fs, "/nvml.json", &raw->data, &raw->len);

	if (ret)
		return ret;
	gf_fs_real(fs, "/nvml.json", real, sizeof(real));
	ret = gf_nvml_facts_parse(raw->data, raw->len, real, facts);
	if (ret) {
		free(raw->data);
		raw->data = NULL;
	}
	return ret;
}

static int load_source_facts(const struct gf_fs *fs, const struct gf_topo_options *opts,
			     struct gf_nvml_facts **facts, struct gf_bytes *raw, struct gf_record_stats *st)
{
	int ret;

	*facts = NULL;
	if (opts->nvml == GF_NVML_OFF) {
		gf_strlcpy(st->nvml_note, "NVML not used (--nvml=off)", sizeof(st->nvml_note));
		GF_INFO(GF_LOG_VENDOR, "%s", st->nvml_note);
		return 0;
	}
	if (gf_fs_live(fs)) {
		char why[200] = "";

		ret = gf_nvml_collect(GF_NVML_FULL, facts, why, sizeof(why));
		if (ret)
			snprintf(st->nvml_note, sizeof(st->nvml_note), "NVML not available: %s", why);
	} else {
		ret = read_source_facts(fs, facts, raw);
		if (ret && ret != -ENOENT)
			return ret;
		if (ret)
			snprintf(st->nvml_note, sizeof(st->nvml_note), "the source recording has no nvml.json");
	}
	if (st->nvml_note[0])	/* the manifest keeps it too */
		GF_INFO(GF_LOG_VENDOR, "%s", st->nvml_note);
	if (ret && opts->nvml == GF_NVML_REQUIRE)
		return gf_error(-ENOSYS, "%s", st->nvml_note);
	return 0;
}

static int write_bytes(FILE *f, void *arg)
{
	const struct gf_bytes *b = arg;

	return fwrite(b->data, 1, b->len, f) == b->len ? 0 : -EIO;
}

/* nvml.json: what NVML answered, or a source recording's file byte for
 * byte (a recording replays what the machine said; discovery's reading of
 * it, unknowns included, is done again at replay). */
static int save_facts(const struct gf_nvml_facts *facts, struct gf_bytes *raw, const char *path)
{
	if (raw->data)
		return gf_atomic_write(path, write_bytes, raw);
	return gf_nvml_facts_save(facts, path);
}

static void pass_warnings(const struct gf_topo *t, const struct gf_record_options *opts)
{
	for (int i = 0; opts->warn && i < t->nwarnings; i++)
		opts->warn(t->warnings[i], opts->warn_arg);
}

static bool cancelled(const struct gf_record_options *opts)
{
	return opts->cancel && *opts->cancel;
}

/* The checks read beyond discovery: run every one of them under both
 * profiles (some read a file under one only: /dev/cpu_dma_latency when a
 * C-state is too deep for it), so the recording holds whatever they read. */
static int record_checks(const struct gf_fs *fs, const struct gf_topo *t, const struct gf_nvml_facts *facts,
			 const char *nvml_note)
{
	static const enum gf_profile profiles[] = { GF_PROFILE_TRAINING, GF_PROFILE_INFERENCE };

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		struct gf_audit *a = NULL;
		int ret = gf_audit_run_on(fs, t, facts, nvml_note, profiles[i], &a);

		gf_audit_free(a);
		if (ret)
			return ret;
	}
	return 0;
}

GF_API int gf_record(const char *dir_arg, const struct gf_record_options *opts,
		     struct gf_record_stats *stats)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	struct gf_topo_options machine;
	struct gf_record_stats st = { 0 };
	struct gf_recorder *rec = NULL;
	struct gf_fs fs;
	struct gf_nvml_facts *facts = NULL;
	struct gf_bytes raw_facts = { NULL, 0 };
	struct gf_topo *t = NULL;
	char dir[PATH_MAX], tmp[PATH_MAX + 16];
	struct gf_place place = { .target = dir };
	size_t len;
	int ret;

	if (!dir_arg)
		return GF_NULL_ARG("dir");
	if (opts) {
		/* Fields a caller built against an older header lacks keep
		 * their defaults. */
		if ((ret = gf_opts_check(opts->struct_size, offsetof(struct gf_record_options, format) +
					 sizeof(opts->format), "gf_record", "GF_RECORD_OPTS_INIT")))
			return ret;
		memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
		o.struct_size = sizeof(o);
	}
	opts = &o;
	if (!*dir_arg)
		return gf_error(-EINVAL, "record: no directory given");
	if ((unsigned)opts->format > GF_RECORD_TAR_GZ)
		return gf_arg_error(__func__, "format %d is not a gf_record_format", (int)opts->format);
	if ((ret = gf_topo_options_copy(opts->machine, &machine)))
		return ret;
	if (machine.pci_locality)
		return gf_error(-EINVAL, "record: a locality override (%s) is not recorded: a recording keeps what "
				"the machine says; give --pci-locality when you read it", machine.pci_locality);
	/* "rec/" names rec: its temp sibling is rec.tmp-X, not rec/.tmp-X. */
	if (gf_strlcpy(dir, dir_arg, sizeof(dir)) >= sizeof(dir))
		return gf_error(-ENAMETOOLONG, "%s: path too long", dir_arg);
	for (len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
		dir[len - 1] = '\0';
	place.force = opts->force;
	place.archive = opts->format == GF_RECORD_TAR_GZ ||
			(opts->format == GF_RECORD_AUTO && archive_name(dir, NULL, 0));
	if ((ret = gf_place_check(&place)))
		return ret;
	snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", dir);
	if ((ret = gf_fs_init(&fs, machine.root)))
		return ret;
	if (!mkdtemp(tmp)) {
		ret = gf_error_errno(-errno, dir);
		gf_fs_fini(&fs);
		return ret;
	}
	chmod(tmp, 0755);
	if (!(rec = calloc(1, sizeof(*rec)))) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = gf_rec_init(rec, tmp)))
		goto out;
	rec->cancel = opts->cancel;
	gf_record_policy_set(rec);
	if ((ret = load_source_facts(&fs, &machine, &facts, &raw_facts, &st)))
		goto out;
	st.nvml = facts != NULL;
	fs.rec = rec;
	ret = gf_topo_discover_fs(&fs, facts, st.nvml_note, &t);
	if (!ret) {
		pass_warnings(t, opts);
		st.nwarnings = t->nwarnings;
		if (!cancelled(opts))
			ret = record_checks(&fs, t, facts, st.nvml_note);
		if (!ret && !cancelled(opts))
			gf_record_hwloc(&fs);
	}
	fs.rec = NULL;
	if (ret)
		goto out;
	if (rec->error == -EINTR || cancelled(opts)) {
		ret = gf_error(-EINTR, "%s: recording interrupted, nothing kept", dir);
		goto out;
	}
	if (rec->error) {
		ret = gf_error(rec->error, "recording failed: %s", rec->error_msg);
		goto out;
	}
	if (facts) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/" GF_RECORD_NVML_FILE, tmp);
		if ((ret = save_facts(facts, &raw_facts, path)))
			goto out;
	}
	if ((ret = write_manifest_redacted(tmp, &fs, t, rec, &st, opts->redact)))
		goto out;
	if (cancelled(opts)) {
		ret = gf_error(-EINTR, "%s: recording interrupted, nothing kept", dir);
		goto out;
	}
	if (gf_record_before_swap)
		gf_record_before_swap(dir);
	if (place.archive) {
		char top[NAME_MAX + 1];

		archive_name(dir, top, sizeof(top));
		ret = gf_tar_write(tmp, top, dir, place_archive, &place);
		if (!ret)
			gf_rmtree(tmp);		/* the directory it was made from */
	} else {
		ret = gf_place_move(&place, tmp);
	}
	if (ret)
		goto out;
	st.files = rec->files;
	st.links = rec->links;
	st.dirs = rec->dirs;
	st.bytes = rec->bytes;
	st.ngpus = t->ngpus;
	st.nnics = t->nnics;
	st.nblocks = t->nblocks;
	gf_strlcpy(st.format, place.archive ? "tar.gz" : "dir", sizeof(st.format));
	if (stats)
		*stats = st;
out:
	if (ret && !place.keep_tmp)
		gf_rmtree(tmp);
	gf_topo_free(t);
	gf_nvml_facts_free(facts);
	free(raw_facts.data);
	gf_fs_fini(&fs);
	if (rec)
		gf_rec_fini(rec);
	free(rec);
	return ret;
}

static int dump_summary(FILE *f, json_t *j)
{
	if (json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF)
		return gf_error(-EIO, "writing the record summary: %s", strerror(errno ? errno : EIO));
	return 0;
}

GF_API int gf_record_write_json(FILE *f, const char *dir, const struct gf_record_stats *st)
{
	json_t *j;
	int ret;

	if (!f || !dir || !st)
		return GF_NULL_ARG(!f ? "f" : !dir ? "dir" : "stats");
	j = json_object();
	if (!j || gf_json_stamp(j, GF_RECORD_SUMMARY_SCHEMA)) {
		json_decref(j);
		return gf_error(-ENOMEM, "out of memory");
	}
	json_object_set_new(j, "dir", gf_jstr(dir));
	json_object_set_new(j, "format", gf_jstr(st->format[0] ? st->format : "dir"));
	json_object_set_new(j, "files", json_integer(st->files));
	json_object_set_new(j, "links", json_integer(st->links));
	json_object_set_new(j, "dirs", json_integer(st->dirs));
	json_object_set_new(j, "bytes", json_integer((json_int_t)st->bytes));
	json_object_set_new(j, "nvml", json_boolean(st->nvml));
	json_object_set_new(j, "nvml_note", st->nvml ? json_null() : gf_jstr(st->nvml_note));
	json_object_set_new(j, "gpus", json_integer(st->ngpus));
	json_object_set_new(j, "nics", json_integer(st->nnics));
	json_object_set_new(j, "block_devices", json_integer(st->nblocks));
	json_object_set_new(j, "warnings", json_integer(st->nwarnings));
	ret = dump_summary(f, j);
	json_decref(j);
	return ret;
}
