/* PyTorch's Flight Recorder dumps, one per rank, matched per process group
 * by collective_seq_id: the first collective some ranks entered and others
 * did not names the straggler (include/gpufeed/nccl_hang.h).
 *
 * The dump's fields are those of torch/csrc/distributed/c10d/FlightRecorder
 * (version "2.x"): entries[] with pg_id, process_group (name, desc),
 * collective_seq_id, profiling_name, state, time_created_ns, input_sizes,
 * input_dtypes; pg_config {name: {desc, ranks}}; pg_status {name:
 * {last_enqueued_collective, last_started_collective,
 * last_completed_collective}}; comm_lib_version. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/nccl_hang.h>
#include "core/error.h"
#include "core/json_read.h"
#include "core/strutil.h"
#include "nccl/pickle.h"
#include "nccl/verdict.h"

/* A dump larger than this is not one (the default buffer of 2000 entries
 * pickles to a few MB). */
#define FR_MAX_FILE (256u << 20)
#define FR_MAX_DUMPS 4096
#define FR_NAME 128

struct fr_entry {
	char pg[FR_NAME];
	long long seq, op_id, t_created;
	char op[FR_NAME];
	char state[32];
	json_t *sizes, *dtypes;		/* borrowed from the dump's tree */
};

struct fr_dump {
	char *file;
	int rank;
	char version[32];
	char nccl[64];
	json_t *tree;
	struct fr_entry *e;
	size_t ne;
};

struct gf_nccl_fr {
	struct fr_dump *d;
	int nd;
	json_t *groups;			/* process_groups[] of the report */
	struct gf_nccl_verdict v;
};

/* Reading ---------------------------------------------------------------- */

static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, ret = 0;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = gf_error(-EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if ((size_t)st.st_size > FR_MAX_FILE) {
		ret = gf_error(-EFBIG, "%s: %lld bytes: larger than a Flight Recorder dump can be", path,
			       (long long)st.st_size);
		goto out;
	}
	if (!(*buf = malloc((size_t)st.st_size + 1))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size && (n = read(fd, *buf + got, (size_t)st.st_size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = gf_error(-errno, "%s: %s", path, strerror(errno));
			goto out;
		}
		got += (size_t)n;
	}
	(*buf)[got] = 0;
	*len = got;
out:
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

/* A pickle, or the JSON PyTorch also writes (it starts with '{'). */
static int parse_dump(const char *path, const char *buf, size_t len, json_t **tree)
{
	size_t i = 0;

	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i < len && buf[i] == '{') {
		json_error_t je;

		if (!(*tree = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je)))
			return gf_error(-EBADMSG, "%s: offset %d: not JSON: %s", path, je.position, je.text);
		return 0;
	}
	return gf_nccl_pickle_load(buf, len, path, tree);
}

/* The rank a dump's file name ends in: nccl_trace_rank_12 -> 12. */
static int rank_of(const char *path, int *rank)
{
	const char *base = strrchr(path, '/'), *end, *p;

	base = base ? base + 1 : path;
	end = base + strlen(base);
	for (p = end; p > base && isdigit((unsigned char)p[-1]); p--)
		;
	if (p == end || end - p > 7)
		return gf_error(-EINVAL, "%s: the name does not end in the rank (TORCH_FR_DUMP_TEMP_FILE<rank>)", path);
	*rank = atoi(p);
	return 0;
}

static void key_text(json_t *v, char *buf, size_t size)
{
	if (json_is_string(v))
		gf_strlcpy(buf, json_string_value(v), size);
	else if (json_is_integer(v))
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else
		buf[0] = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fr_entry *x = a, *y = b;
	int c = strcmp(x->pg, y->pg);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int read_entries(struct fr_dump *d)
{
	struct gf_jr jr = { .file = d->file };
	json_t *es = gf_jr_array(&jr, d->tree, "", "entries"), *x;
	char where[48];
	size_t i;

	if (jr.err)
		return jr.err;
	if (!es)
		return gf_error(-EBADMSG, "%s: no entries: not a Flight Recorder dump", d->file);
	if (!(d->e = calloc(json_array_size(es) + 1, sizeof(*d->e))))
		return gf_error(-ENOMEM, "out of memory");
	json_array_foreach(es, i, x) {
		struct fr_entry *e = &d->e[d->ne];
		int p2p = 0;

		snprintf(where, sizeof(where), "entries[%zu]", i);
		if (!json_is_object(x))
			return gf_error(-EBADMSG, "%s: %s: expected a dict", d->file, where);
		gf_jr_bool(&jr, x, where, "is_p2p", &p2p);
		e->seq = -1;
		gf_jr_ll(&jr, x, where, "collective_seq_id", &e->seq);
		gf_jr_ll(&jr, x, where, "op_id", &e->op_id);
		gf_jr_ll(&jr, x, where, "time_created_ns", &e->t_created);
		if (!gf_jr_str(&jr, x, where, "profiling_name", e->op, sizeof(e->op)))
			gf_strlcpy(e->op, "?", sizeof(e->op));
		gf_jr_str(&jr, x, where, "state", e->state, sizeof(e->state));
		json_t *pg = json_object_get(x, "process_group");
		if (json_is_array(pg))
			key_text(json_array_get(pg, 0), e->pg, sizeof(e->pg));
		if (!e->pg[0])
			key_text(json_object_get(x, "pg_id"), e->pg, sizeof(e->pg));
		if (jr.err)
			return jr.err;
		if (p2p || e->seq < 0 || !e->pg[0])
			continue;	/* send/recv are matched by p2p_seq_id per pair: not here */
		if (gf_starts_with(e->op, "nccl:"))
			memmove(e->op, e->op + 5, strlen(e->op + 5) + 1);
		e->sizes = json_object_get(x, "input_sizes");
		e->dtypes = json_object_get(x, "input_dtypes");
		d->ne++;
	}
	qsort(d->e, d->ne, sizeof(*d->e), cmp_entry);
	gf_jr_str(&jr, d->tree, "", "version", d->version, sizeof(d->version));
	gf_jr_str(&jr, d->tree, "", "comm_lib_version", d->nccl, sizeof(d->nccl));
	return jr.err;
}

static int load_dump(const char *path, struct fr_dump *d)
{
	char *buf;
	size_t len = 0;
	int ret;

	if (!(d->file = strdup(path)))
		return gf_error(-ENOMEM, "out of memory");
	if ((ret = rank_of(path, &d->rank)) || (ret = read_file(path, &buf, &len)))
		return ret;
	ret = parse_dump(path, buf, len, &d->tree);
	free(buf);
	if (ret)
		return ret;
	if (!json_is_object(d->tree))
		return gf_error(-EBADMSG, "%s: not a dict: not a Flight Recorder dump", path);
	return read_entries(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's dumps, or the files a TORCH_FR_DUMP_TEMP_FILE prefix
 * names (prefix + digits), sorted. */
static int expand(const char *arg, char ***list, int *n)
{
	char dir[PATH_MAX], *names[FR_MAX_DUMPS];
	const char *prefix = "";
	struct stat st;
	struct dirent *de;
	DIR *dp;
	int cnt = 0, ret = 0;

	if (!stat(arg, &st) && !S_ISDIR(st.st_mode)) {
		names[cnt++] = strdup(arg);
		goto add;
	}
	if (!stat(arg, &st)) {
		gf_strlcpy(dir, arg, sizeof(dir));
	} else {
		const char *slash = strrchr(arg, '/');

		if (slash)
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - arg + (slash == arg)), arg);
		else
			gf_strlcpy(dir, ".", sizeof(dir));
		prefix = slash ? slash + 1 : arg;
	}
	if (!(dp = opendir(dir)))
		return gf_error(-ENOENT, "%s: no such dump, directory of dumps or TORCH_FR_DUMP_TEMP_FILE prefix", arg);
	while ((de = readdir(dp))) {
		size_t pl = strlen(prefix);
		const char *rest = de->d_name + pl;
		char full[PATH_MAX];

		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, pl))
			continue;
		if (*prefix && (!*rest || strspn(rest, "0123456789") != strlen(rest)))
			continue;
		/* in a directory, only names that end in a rank: a log beside the dumps is not one */
		if (!*prefix && !isdigit((unsigned char)de->d_name[strlen(de->d_name) - 1]))
			continue;
		snprintf(full, sizeof(full), "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
		if (stat(full, &st) || !S_ISREG(st.st_mode))
			continue;
		if (cnt == FR_MAX_DUMPS) {
			ret = gf_error(-E2BIG, "%s: more than %d dumps", arg, FR_MAX_DUMPS);
			break;
		}
		names[cnt++] = strdup(full);
	}
	closedir(dp);
	if (!ret && !cnt)
		ret = gf_error(-ENOENT, "%s: %s", arg, *prefix ? "no such dump, directory of dumps or TORCH_FR_DUMP_TEMP_FILE prefix" :
			       "no dump in this directory");
	qsort(names, (size_t)cnt, sizeof(names[0]), cmp_str);
add:
	for (int i = 0; i < cnt; i++) {
		char **l = ret ? NULL : realloc(*list, (size_t)(*n + 1) * sizeof(**list));

		if (!ret && (!l || !names[i]))
			ret = gf_error(-ENOMEM, "out of memory");
		if (ret) {
			free(names[i]);
			continue;
		}
		*list = l;
		l[(*n)++] = names[i];
	}
	return ret;
}

/* Matching ---------------------------------------------------------------- */

struct pg_rank {
	struct fr_dump *d;
	long long enq, started, completed;
};

/* Entries are sorted by (pg, seq) once read (read_entries). */
static const struct fr_entry *entry_at(const struct fr_dump *d, const char *pg, long long seq)
{
	struct fr_entry key = { .seq = seq };

	gf_strlcpy(key.pg, pg, sizeof(key.pg));
	return d->ne ? bsearch(&key, d->e, d->ne, sizeof(*d->e), cmp_entry) : NULL;
}

static void fmt_time(long long ns, char *buf, size_t size)
{
	struct tm tm;
	time_t s = (time_t)(ns / 1000000000LL);

	if (ns <= 0 || !gmtime_r(&s, &tm)) {
		gf_strlcpy(buf, "an unknown time", size);
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (ns / 1000000LL) % 1000);
}

static void fmt_seq(long long v, char *buf, size_t size)
{
	if (v < 0)
		gf_strlcpy(buf, "none", size);
	else
		snprintf(buf, size, "#%lld", v);
}

/* "[0, 1]" (pg_config's ranks) into ranks[]; the count, or -1. */
static int parse_ranks(const char *s, int *ranks, int max)
{
	int n = 0;

	while (*s && *s != '[')
		s++;
	if (*s++ != '[')
		return -1;
	for (;;) {
		char *end;
		long v;

		while (*s == ' ' || *s == ',')
			s++;
		if (*s == ']')
			return n;
		v = strtol(s, &end, 10);
		if (end == s || v < 0 || v > INT_MAX || n == max)
			return -1;
		ranks[n++] = (int)v;
		s = end;
	}
}

static struct fr_dump *dump_of(struct gf_nccl_fr *fr, int rank)
{
	for (int i = 0; i < fr->nd; i++)
		if (fr->d[i].rank == rank)
			return &fr->d[i];
	return NULL;
}

/* The group's members: pg_config's ranks where a dump names them, else
 * the ranks whose dumps have entries of the group. */
static int members(struct gf_nccl_fr *fr, const char *pg, int *ranks, int max)
{
	int n = -1;

	for (int i = 0; i < fr->nd && n < 0; i++) {
		json_t *c = json_object_get(json_object_get(json_object_get(fr->d[i].tree, "pg_config"), pg), "ranks");

		if (json_is_string(c))
			n = parse_ranks(json_string_value(c), ranks, max);
		else if (json_is_array(c) && json_array_size(c) <= (size_t)max) {
			size_t k;
			json_t *x;

			n = 0;
			json_array_foreach(c, k, x)
				if (json_is_integer(x))
					ranks[n++] = (int)json_integer_value(x);
		}
	}
	if (n >= 0)
		return n;
	n = 0;
	for (int i = 0; i < fr->nd && n < max; i++)
		for (size_t k = 0; k < fr->d[i].ne; k++)
			if (!strcmp(fr->d[i].e[k].pg, pg)) {
				ranks[n++] = fr->d[i].rank;
				break;
			}
	return n;
}

static long long status_of(json_t *st, const char *key)
{
	json_t *v = json_object_get(st, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char *pg_desc(struct gf_nccl_fr *fr, const char *pg)
{
	for (int i = 0; i < fr->nd; i++) {
		json_t *d = json_object_get(json_object_get(json_object_get(fr->d[i].tree, "pg_config"), pg), "desc");

		if (json_is_string(d))
			return json_string_value(d);
	}
	return "";
}

#define MAX_MEMBERS 4096

/* Different collectives, sizes or dtypes at one sequence number: the
 * first such seq between the lowest rank and each other one. */
static int mismatches(struct gf_nccl_fr *fr, const char *pg, const char *name, const struct pg_rank *pr, int np)
{
	for (int i = 1; i < np; i++)
		for (size_t k = 0; k < pr[i].d->ne; k++) {
			const struct fr_entry *e = &pr[i].d->e[k], *first;

			if (strcmp(e->pg, pg) || !(first = entry_at(pr[0].d, pg, e->seq)))
				continue;
			if (!strcmp(e->op, first->op) && json_equal(e->sizes, first->sizes) &&
			    json_equal(e->dtypes, first->dtypes))
				continue;
			char a[256], b[256];
			char *ja = json_dumps(first->sizes, JSON_COMPACT | JSON_ENCODE_ANY);
			char *jb = json_dumps(e->sizes, JSON_COMPACT | JSON_ENCODE_ANY);
			char *da = json_dumps(first->dtypes, JSON_COMPACT | JSON_ENCODE_ANY);
			char *db = json_dumps(e->dtypes, JSON_COMPACT | JSON_ENCODE_ANY);
			int two[2] = { pr[0].d->rank, pr[i].d->rank };

			snprintf(a, sizeof(a), "%s sizes %s dtypes %s", first->op, ja ? ja : "?", da ? da : "?");
			snprintf(b, sizeof(b), "%s sizes %s dtypes %s", e->op, jb ? jb : "?", db ? db : "?");
			free(ja), free(jb), free(da), free(db);
			int ret = gf_nccl_verdict_add(&fr->v, "mismatch", two, 2, false,
						      "seq %lld of %s: rank %d runs %s, rank %d runs %s", e->seq, name,
						      two[0], a, two[1], b);
			if (ret)
				return ret;
			break;
		}
	return 0;
}

/* Seq s is the first that some members enqueued and others (those whose
 * last is s - 1) did not. */
static int missing(struct gf_nccl_fr *fr, const char *pg, const char *name, const struct pg_rank *pr, int np,
		   long long s)
{
	static _Thread_local int miss[MAX_MEMBERS];
	const struct pg_rank *in = NULL, *m = NULL;
	const struct fr_entry *first = NULL;
	char when[64], last[32], done[32], who[256];
	int nmiss = 0;
	size_t w = 0;

	for (int i = 0; i < np; i++) {
		if (pr[i].enq < s) {
			if (!m)
				m = &pr[i];
			miss[nmiss++] = pr[i].d->rank;
		} else if (!first && (first = entry_at(pr[i].d, pg, s))) {
			in = &pr[i];
		} else if (!in) {
			in = &pr[i];
		}
	}
	for (int i = 0; i < nmiss && w < sizeof(who); i++)
		w += (size_t)snprintf(who + w, sizeof(who) - w, "%s%d", i ? ", " : "", miss[i]);
	fmt_time(first ? first->t_created : 0, when, sizeof(when));
	fmt_seq(m->enq, last, sizeof(last));
	fmt_seq(m->completed, done, sizeof(done));
	return gf_nccl_verdict_add(&fr->v, "missing", miss, nmiss, true,
				   "rank%s %s did not enter %s #%lld (seq %lld) of %s that rank %d %s at %s; "
				   "rank %d's last was %s (last completed %s)",
				   nmiss > 1 ? "s" : "", who, first ? first->op : "the collective",
				   first ? first->op_id : s, s, name, in->d->rank,
				   first && !strcmp(first->state, "completed") ? "completed" :
				   first && !strcmp(first->state, "started") ? "started" : "enqueued",
				   when, miss[0], last, done);
}

static int match_group(struct gf_nccl_fr *fr, const char *pg)
{
	static _Thread_local int ranks[MAX_MEMBERS];
	static _Thread_local struct pg_rank pr[MAX_MEMBERS];
	int nm = members(fr, pg, ranks, MAX_MEMBERS), np = 0, ret = 0;
	long long hi = -1, lo_enq = -1;
	const char *desc = pg_desc(fr, pg);
	char name[FR_NAME + 80];
	json_t *g, *status;

	snprintf(name, sizeof(name), "process group %s%s%s%s", pg, *desc ? " (" : "", desc, *desc ? ")" : "");
	if (!(status = json_array()))
		return gf_error(-ENOMEM, "out of memory");
	g = json_pack("{s:s, s:s, s:o}", "id", pg, "desc", desc, "ranks", status);
	if (!g || json_array_append_new(fr->groups, g))
		return gf_error(-ENOMEM, "out of memory");
	for (int i = 0; i < nm; i++) {
		struct fr_dump *d = dump_of(fr, ranks[i]);
		json_t *st;

		if (!d) {
			ret = gf_nccl_verdict_add(&fr->v, "no-dump", &ranks[i], 1, false,
						  "rank %d of %s wrote no dump: dead, or its dump is missing from the input",
						  ranks[i], name);
			if (ret)
				return ret;
			continue;
		}
		struct pg_rank *p = &pr[np++];
		*p = (struct pg_rank){ .d = d, .enq = -1, .started = -1, .completed = -1 };
		for (size_t k = 0; k < d->ne; k++)
			if (!strcmp(d->e[k].pg, pg) && d->e[k].seq > p->enq)
				p->enq = d->e[k].seq;
		st = json_object_get(json_object_get(d->tree, "pg_status"), pg);
		if (json_is_object(st)) {
			/* pg_status counts what the entries may have lost to the ring */
			long long e = status_of(st, "last_enqueued_collective");

			if (e > p->enq)
				p->enq = e;
			p->started = status_of(st, "last_started_collective");
			p->completed = status_of(st, "last_completed_collective");
		}
		if (p->enq > hi)
			hi = p->enq;
		if (np == 1 || p->enq < lo_enq)
			lo_enq = p->enq;
		json_array_append_new(status, json_pack("{s:i, s:I, s:I, s:I}", "rank", d->rank, "last_enqueued",
							(json_int_t)p->enq, "last_started", (json_int_t)p->started,
							"last_completed", (json_int_t)p->completed));
	}
	if ((ret = mismatches(fr, pg, name, pr, np)))
		return ret;
	if (np < 2 || lo_enq == hi)
		return 0;
	return missing(fr, pg, name, pr, np, lo_enq + 1);
}

static int check_versions(struct gf_nccl_fr *fr)
{
	for (int i = 1; i < fr->nd; i++) {
		if (!fr->d[0].nccl[0] || !fr->d[i].nccl[0] || !strcmp(fr->d[0].nccl, fr->d[i].nccl))
			continue;
		int two[2] = { fr->d[0].rank, fr->d[i].rank };
		return gf_nccl_verdict_add(&fr->v, "nccl-version", two, 2, false,
					   "rank %d runs NCCL %s, rank %d NCCL %s: every rank must load the same NCCL",
					   two[0], fr->d[0].nccl, two[1], fr->d[i].nccl);
	}
	return 0;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct fr_dump *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int analyse(struct gf_nccl_fr *fr)
{
	char seen[64][FR_NAME];
	int ns = 0, ret;

	qsort(fr->d, (size_t)fr->nd, sizeof(*fr->d), cmp_rank);
	for (int i = 1; i < fr->nd; i++)
		if (fr->d[i].rank == fr->d[i - 1].rank)
			return gf_error(-EINVAL, "%s and %s: two dumps of rank %d", fr->d[i - 1].file, fr->d[i].file,
					fr->d[i].rank);
	if ((ret = check_versions(fr)))
		return ret;
	/* each process group once, in the order the dumps name them */
	for (int i = 0; i < fr->nd; i++)
		for (size_t k = 0; k < fr->d[i].ne; k++) {
			const char *pg = fr->d[i].e[k].pg;
			int j;

			for (j = 0; j < ns && strcmp(seen[j], pg); j++)
				;
			if (j < ns)
				continue;
			if (ns == 64)
				return gf_error(-E2BIG, "%s: more than 64 process groups", fr->d[i].file);
			gf_strlcpy(seen[ns++], pg, FR_NAME);
			if ((ret = match_group(fr, pg)))
				return ret;
		}
	return 0;
}

/* Public ------------------------------------------------------------------ */

int gf_nccl_fr_load(const char *const *paths, int npaths, struct gf_nccl_fr **out)
{
	struct gf_nccl_fr *fr = NULL;
	char **files = NULL;
	int nfiles = 0, ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (!paths)
		return GF_NULL_ARG("paths");
	if (npaths < 1)
		return gf_arg_error(__func__, "npaths %d: at least one dump", npaths);
	for (int i = 0; i < npaths; i++)
		if (!paths[i])
			return gf_arg_error(__func__, "paths[%d] is NULL", i);
	for (int i = 0; i < npaths; i++)
		if ((ret = expand(paths[i], &files, &nfiles)))
			goto out;
	if (!(fr = calloc(1, sizeof(*fr))) || !(fr->d = calloc((size_t)nfiles, sizeof(*fr->d))) ||
	    !(fr->groups = json_array())) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = gf_nccl_verdict_init(&fr->v)))
		goto out;
	for (int i = 0; i < nfiles; i++, fr->nd++)
		if ((ret = load_dump(files[i], &fr->d[i]))) {
			fr->nd++;
			goto out;
		}
	ret = analyse(fr);
out:
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	if (ret)
		gf_nccl_fr_free(fr);
	else
		*out = fr;
	return ret;
}

void gf_nccl_fr_free(struct gf_nccl_fr *fr)
{
	if (!fr)
		return;
	for (int i = 0; i < fr->nd; i++) {
		free(fr->d[i].file);
		free(fr->d[i].e);
		json_decref(fr->d[i].tree);
	}
	free(fr->d);
	json_decref(fr->groups);
	gf_nccl_verdict_fini(&fr->v);
	free(fr);
}

int gf_nccl_fr_finding_count(const struct gf_nccl_fr *fr)
{
	if (!fr)
		return GF_NULL_ARG("fr");
	return (int)json_array_size(fr->v.findings);
}

int gf_nccl_fr_missing_ranks(const struct gf_nccl_fr *fr, int *ranks, int max)
{
	if (!fr)
		return GF_NULL_ARG("fr");
	return gf_nccl_verdict_missing(&fr->v, ranks, max, __func__);
}

int gf_nccl_fr_print(const struct gf_nccl_fr *fr, FILE *f)
{
	json_t *g, *r;
	size_t i, k;

	if (!fr)
		return GF_NULL_ARG("fr");
	if (!f)
		return GF_NULL_ARG("f");
	fprintf(f, "Flight Recorder: %d dump%s", fr->nd, fr->nd == 1 ? "" : "s");
	for (int d = 0; d < fr->nd; d++)
		fprintf(f, "%s rank %d (%s%s%s)", d ? "," : ":", fr->d[d].rank, fr->d[d].nccl[0] ? "NCCL " : "",
			fr->d[d].nccl[0] ? fr->d[d].nccl : "NCCL version not recorded", "");
	fputc('\n', f);
	json_array_foreach(fr->groups, i, g) {
		const char *desc = json_string_value(json_object_get(g, "desc"));

		fprintf(f, "process group %s%s%s%s\n", json_string_value(json_object_get(g, "id")), *desc ? " (" : "",
			desc, *desc ? ")" : "");
		json_array_foreach(json_object_get(g, "ranks"), k, r) {
			char e[32], s[32], c[32];

			fmt_seq(json_integer_value(json_object_get(r, "last_enqueued")), e, sizeof(e));
			fmt_seq(json_integer_value(json_object_get(r, "last_started")), s, sizeof(s));
			fmt_seq(json_integer_value(json_object_get(r, "last_completed")), c, sizeof(c));
			fprintf(f, "  rank %lld: last enqueued %s, started %s, completed %s\n",
				json_integer_value(json_object_get(r, "rank")), e, s, c);
		}
	}
	gf_nccl_verdict_print(&fr->v, f);
	return ferror(f) ? gf_error(-EIO, "writing the report failed") : 0;
}

int gf_nccl_fr_write_json(const struct gf_nccl_fr *fr, FILE *f)
{
	json_t *o, *dumps;

	if (!fr)
		return GF_NULL_ARG("fr");
	if (!f)
		return GF_NULL_ARG("f");
	if (!(o = json_object()) || !(dumps = json_array())) {
		json_decref(o);
		return gf_error(-ENOMEM, "out of memory");
	}
	json_object_set_new(o, "source", json_string("flight-recorder"));
	json_object_set_new(o, "dumps", dumps);
	for (int d = 0; d < fr->nd; d++)
		json_array_append_new(dumps, json_pack("{s:i, s:o, s:s, s:s}", "rank", fr->d[d].rank, "file",
						       gf_jstr(fr->d[d].file), "version", fr->d[d].version,
						       "nccl_version", fr->d[d].nccl));
	json_object_set(o, "process_groups", fr->groups);
	return gf_nccl_verdict_write(&fr->v, o, f);
}
