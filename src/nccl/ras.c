/* NCCL RAS (ncclras, NCCL >= 2.24) output into the verdict the Flight
 * Recorder reader gives: communicators whose ranks launched different
 * numbers of an operation (MISMATCH: the ranks that launched fewer did not
 * enter the next one), ranks that did not answer (INCOMPLETE), processes
 * considered dead (DEAD), ranks with errors (ERROR).  The text is the one
 * NCCL's src/ras/client_support.cc writes; `-f json` (newer ncclras) is
 * its jsonWrite* shape: communicators[] with ranks[] (collective_counts,
 * status) and missing_ranks[]. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <gpufeed/nccl_hang.h>
#include "core/error.h"
#include "core/strutil.h"
#include "nccl/verdict.h"

#define RAS_MAX_INPUT (64u << 20)
#define RAS_MAX_RANKS 1024
#define RAS_WHERE 128
/* NCCL's src/ras/ras_internal.h: the client port and protocol version, and
 * the longest a status collection takes (a leg timeout plus as much again). */
#define RAS_DEFAULT_PORT "28028"
#define RAS_PROTOCOL 2
#define RAS_COLLECT_EXTRA_S 10

struct gf_nccl_ras {
	char nccl[64];			/* "2.28.9", or "" */
	struct gf_nccl_verdict v;
};

/* One "different <op> operation counts" block, or a list of ranks under
 * INCOMPLETE, DEAD or ERROR. */
struct block {
	char comm[96];			/* "#0-0 (91c1759e90fdd8f8)" */
	char what[512];			/* the operation, "status", "incomplete" ... */
	int kind;			/* B_NONE, B_COUNTS, B_STATUS, B_INCOMPLETE, B_DEAD, B_ERROR */
	long long cur;			/* the value rank lines under a group line take */
	long long val[RAS_MAX_RANKS];
	int rank[RAS_MAX_RANKS];
	char where[RAS_MAX_RANKS][RAS_WHERE];
	int n;
	long long gval[64];		/* "N ranks have launched up to V" groups */
	int gcount[64], glisted[64], ng;
};

enum { B_NONE, B_COUNTS, B_STATUS, B_INCOMPLETE, B_DEAD, B_ERROR };

/* The same finding once, however often the input repeats the report (a
 * capture of ncclras and ncclras -v one after the other). */
static bool seen(const struct gf_nccl_ras *r, const char *msg)
{
	size_t i;
	json_t *f;

	json_array_foreach(r->v.findings, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "message")), msg))
			return true;
	return false;
}

static int add(struct gf_nccl_ras *r, const char *kind, const int *ranks, int n, bool missing, const char *msg)
{
	if (seen(r, msg))
		return 0;
	return gf_nccl_verdict_add(&r->v, kind, ranks, n, missing, "%s", msg);
}

static size_t list_ranks(const struct block *b, const int *idx, int nidx, char *buf, size_t size)
{
	size_t w = 0;

	buf[0] = 0;
	for (int i = 0; i < nidx && w < size; i++)
		w += (size_t)snprintf(buf + w, size - w, "%srank %d%s%s%s", i ? "; " : "", b->rank[idx[i]],
				      b->where[idx[i]][0] ? " (" : "", b->where[idx[i]], b->where[idx[i]][0] ? ")" : "");
	return w;
}

static int end_block(struct gf_nccl_ras *r, struct block *b)
{
	static _Thread_local int idx[RAS_MAX_RANKS], ranks[RAS_MAX_RANKS];
	char msg[2048], names[1536];
	int n = 0, ret = 0;

	if (b->kind == B_COUNTS) {
		long long hi = -1;
		int unlisted = 0;

		for (int i = 0; i < b->n; i++)
			if (b->val[i] > hi)
				hi = b->val[i];
		for (int g = 0; g < b->ng; g++)
			if (b->gval[g] > hi)
				hi = b->gval[g];
		for (int i = 0; i < b->n; i++)
			if (b->val[i] < hi) {
				idx[n] = i;
				ranks[n++] = b->rank[i];
			}
		for (int g = 0; g < b->ng; g++)
			if (b->gval[g] < hi && b->gcount[g] > b->glisted[g])
				unlisted += b->gcount[g] - b->glisted[g];
		if (n || unlisted) {
			size_t w = list_ranks(b, idx, n, names, sizeof(names));

			if (unlisted && w < sizeof(names))
				snprintf(names + w, sizeof(names) - w, "%s%d rank%s not listed (ncclras -v lists them)",
					 n ? "; and " : "", unlisted, unlisted > 1 ? "s" : "");
			snprintf(msg, sizeof(msg),
				 "communicator %s: %s did not enter %s operation %lld, which the others launched "
				 "(%s launched up to %lld)", b->comm, names, b->what, hi, n ? "these" : "they", hi - 1);
			if (n == 1)
				snprintf(msg, sizeof(msg),
					 "communicator %s: rank %d did not enter %s operation %lld, which the others "
					 "launched; it launched up to %lld%s%s%s", b->comm, ranks[0], b->what, hi,
					 b->val[idx[0]], b->where[idx[0]][0] ? " (" : "", b->where[idx[0]],
					 b->where[idx[0]][0] ? ")" : "");
			ret = add(r, "missing", ranks, n, true, msg);
		}
	} else if (b->kind != B_NONE) {
		static const char *const kinds[] = { "", "", "status", "incomplete", "dead", "error" };

		for (int i = 0; i < b->n; i++) {
			idx[i] = i;
			ranks[i] = b->rank[i];
		}
		list_ranks(b, idx, b->n, names, sizeof(names));
		snprintf(msg, sizeof(msg), "%s%s%s%s%s", b->comm[0] ? "communicator " : "", b->comm,
			 b->comm[0] ? ": " : "", b->what, b->n ? ": " : "");
		gf_strlcpy(msg + strlen(msg), names, sizeof(msg) - strlen(msg));
		ret = add(r, kinds[b->kind], ranks, b->kind == B_DEAD ? 0 : b->n, false, msg);
	}
	b->kind = B_NONE;
	b->n = b->ng = 0;
	b->cur = 0;
	return ret;
}

/* sscanf that matched the whole pattern: its count is of conversions only,
 * so "Rank %d has status %s" would take "Rank 3 -- GPU 3" as a match. */
#define SCAN(t, fmt, ...) (used = -1, sscanf((t), fmt "%n", __VA_ARGS__, &used), used >= 0)

static void add_rank(struct block *b, int rank, long long val, const char *where)
{
	if (b->n == RAS_MAX_RANKS)
		return;
	b->rank[b->n] = rank;
	b->val[b->n] = val;
	gf_strlcpy(b->where[b->n], where ? where : "", RAS_WHERE);
	b->n++;
}

/* "-- GPU 0 managed by process 1960 on node 192.0.2.2" -> "GPU 0, process
 * 1960 on node 192.0.2.2". */
static const char *where_of(const char *line, char *buf, size_t size)
{
	const char *p = strstr(line, " -- ");
	int gpu, pid;
	char node[64];

	buf[0] = 0;
	if (p && sscanf(p, " -- GPU %d managed by process %d on node %63s", &gpu, &pid, node) == 3)
		snprintf(buf, size, "GPU %d, process %d on node %s", gpu, pid, node);
	return buf;
}

static int parse_text(struct gf_nccl_ras *r, char *text, const char *name)
{
	static _Thread_local struct block b;
	char comm[96] = "", ckind[32] = "", where[RAS_WHERE], op[64], *save = NULL, *line;
	bool any = false;
	int ret = 0, lineno = 0, used;

	memset(&b, 0, sizeof(b));
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char hash[32], k[32], st[32], *t = gf_rstrip(line);
		int a, c, rank, cnt;
		long long v;

		lineno++;
		if (SCAN(t, "NCCL version %63s", r->nccl) || !strcmp(t, "Job summary") ||
		    !strncmp(t, "Communicators...", 16)) {
			any = true;
			continue;
		}
		if (!*t || !strcmp(t, "Errors") || !strcmp(t, "Warnings")) {
			ret = end_block(r, &b);
			continue;
		}
		if (t[0] == '#' && SCAN(t, "#%d-%d (%31[0-9a-f]) %31s", &a, &c, hash, k)) {
			if ((ret = end_block(r, &b)))
				break;
			snprintf(comm, sizeof(comm), "#%d-%d (%s)", a, c, hash);
			gf_strlcpy(ckind, k, sizeof(ckind));
			if (!strcmp(k, "INCOMPLETE") || !strcmp(k, "ERROR")) {
				b.kind = !strcmp(k, "ERROR") ? B_ERROR : B_INCOMPLETE;
				gf_strlcpy(b.comm, comm, sizeof(b.comm));
				gf_strlcpy(b.what, !strcmp(k, "ERROR") ? "errors" : "no answer from", sizeof(b.what));
			}
			continue;
		}
		if (!strcmp(t, "DEAD") || !strcmp(t, "INCOMPLETE")) {
			if ((ret = end_block(r, &b)))
				break;
			comm[0] = ckind[0] = 0;
			b.kind = !strcmp(t, "DEAD") ? B_DEAD : B_INCOMPLETE;
			b.comm[0] = 0;
			continue;
		}
		if (t[0] != ' ')
			continue;
		t = gf_lstrip(t);
		if (SCAN(t, "Communicator ranks have different %63s operation counts", op) &&
		    strstr(t, "operation counts")) {
			if ((ret = end_block(r, &b)))
				break;
			b.kind = B_COUNTS;
			gf_strlcpy(b.comm, comm, sizeof(b.comm));
			gf_strlcpy(b.what, op, sizeof(b.what));
		} else if (!strcmp(t, "Communicator ranks have different status")) {
			if ((ret = end_block(r, &b)))
				break;
			b.kind = B_STATUS;
			gf_strlcpy(b.comm, comm, sizeof(b.comm));
			gf_strlcpy(b.what, "ranks with a different status", sizeof(b.what));
		} else if (SCAN(t, "%d ranks have launched up to operation %lld", &cnt, &v) ||
			   (SCAN(t, "%d ranks have not launched any operations", &cnt) && (v = 0) == 0)) {
			b.cur = v;
			if (b.ng < 64) {
				b.gval[b.ng] = v;
				b.gcount[b.ng] = cnt;
				b.glisted[b.ng++] = 0;
			}
		} else if (SCAN(t, "Rank %d has launched up to operation %lld", &rank, &v) ||
			   (SCAN(t, "Rank %d has not launched any operations", &rank) && (v = 0) == 0)) {
			add_rank(&b, rank, v, where_of(t, where, sizeof(where)));
		} else if (SCAN(t, "Rank %d has status %31s", &rank, st)) {
			char w2[RAS_WHERE];

			snprintf(w2, sizeof(w2), "status %s%s%s", st, where_of(t, where, sizeof(where))[0] ? ", " : "",
				 where);
			add_rank(&b, rank, 0, w2);
		} else if (SCAN(t, "Rank %d --", &rank)) {
			add_rank(&b, rank, b.cur, where_of(t, where, sizeof(where)));
			if (b.kind == B_COUNTS && b.ng)
				b.glisted[b.ng - 1]++;
		} else if (b.kind == B_DEAD && SCAN(t, "%d job process", &cnt)) {
			snprintf(b.what, sizeof(b.what), "%d process%s considered dead", cnt, cnt > 1 ? "es" : "");
		} else if (b.kind == B_INCOMPLETE && !b.comm[0] &&
			   SCAN(t, "Missing communicator data from %d job process", &cnt)) {
			snprintf(b.what, sizeof(b.what), "no data from %d process%s", cnt, cnt > 1 ? "es" : "");
		} else if ((b.kind == B_DEAD || b.kind == B_INCOMPLETE) && !strncmp(t, "Process ", 8)) {
			size_t l = strlen(b.what);

			snprintf(b.what + l, sizeof(b.what) - l, "%s%s", strchr(b.what, ':') ? "; " : ": ", t);
		} else if (b.kind == B_ERROR && (strstr(t, "error") || strstr(t, "ranks reported"))) {
			size_t l = strlen(b.what);

			snprintf(b.what + l, sizeof(b.what) - l, "%s%s", strchr(b.what, ':') ? "; " : ": ", t);
		}
	}
	if (!ret)
		ret = end_block(r, &b);
	if (!ret && !any)
		ret = gf_error(-EBADMSG, "%s: line 1: not ncclras output (no 'NCCL version', 'Job summary' or "
				"'Communicators' line)", name);
	return ret;
}

/* ncclras -f json ------------------------------------------------------- */

static int json_comm(struct gf_nccl_ras *r, json_t *c, size_t ci, const char *name)
{
	static _Thread_local struct block b;
	json_t *ranks = json_object_get(c, "ranks"), *x, *cc;
	const char *hash = json_string_value(json_object_get(c, "hash")), *op;
	char where[RAS_WHERE];
	size_t i;
	int ret;

	if (!json_is_array(ranks))
		return gf_error(-EBADMSG, "%s: communicators[%zu].ranks: expected an array", name, ci);
	memset(&b, 0, sizeof(b));
	snprintf(b.comm, sizeof(b.comm), "%zu (%s)", ci, hash ? hash : "?");
	/* each operation whose count differs between ranks */
	cc = json_object_get(json_array_get(ranks, 0), "collective_counts");
	json_object_foreach(cc, op, x) {
		json_t *rk;

		b.kind = B_COUNTS;
		gf_strlcpy(b.what, op, sizeof(b.what));
		json_array_foreach(ranks, i, rk) {
			json_t *n = json_object_get(json_object_get(rk, "collective_counts"), op);

			snprintf(where, sizeof(where), "GPU %lld, process %lld on node %s",
				 json_integer_value(json_object_get(rk, "cuda_dev")),
				 json_integer_value(json_object_get(rk, "pid")),
				 json_is_string(json_object_get(rk, "host")) ?
				 json_string_value(json_object_get(rk, "host")) : "?");
			if (!json_is_integer(n) || !json_is_integer(json_object_get(rk, "rank")))
				return gf_error(-EBADMSG, "%s: communicators[%zu].ranks[%zu]: expected integer rank "
						"and collective_counts.%s", name, ci, i, op);
			add_rank(&b, (int)json_integer_value(json_object_get(rk, "rank")), json_integer_value(n), where);
		}
		if ((ret = end_block(r, &b)))
			return ret;
	}
	/* errors: async_error, or init_state other than success (0) or in progress (7) */
	b.kind = B_ERROR;
	gf_strlcpy(b.what, "errors", sizeof(b.what));
	json_array_foreach(ranks, i, x) {
		json_t *st = json_object_get(x, "status");
		long long init = json_integer_value(json_object_get(st, "init_state"));
		long long async = json_integer_value(json_object_get(st, "async_error"));

		if ((init && init != 7) || (async && async != 7)) {
			snprintf(where, sizeof(where), "init_state %lld, async_error %lld", init, async);
			add_rank(&b, (int)json_integer_value(json_object_get(x, "rank")), 0, where);
		}
	}
	if (b.n && (ret = end_block(r, &b)))
		return ret;
	b.kind = B_NONE;
	b.n = 0;
	/* ranks that did not answer; dead ones said so */
	json_t *missing = json_object_get(c, "missing_ranks");
	json_array_foreach(missing, i, x) {
		json_t *st = json_object_get(x, "status");

		b.kind = B_INCOMPLETE;
		gf_strlcpy(b.what, "no answer from", sizeof(b.what));
		snprintf(where, sizeof(where), "process %lld on node %s%s%s",
			 json_integer_value(json_object_get(x, "pid")),
			 json_is_string(json_object_get(x, "host")) ? json_string_value(json_object_get(x, "host")) : "?",
			 json_is_true(json_object_get(st, "considered_dead")) ? ", considered dead" : "",
			 json_is_true(json_object_get(st, "unresponsive")) ? ", unresponsive" : "");
		add_rank(&b, (int)json_integer_value(json_object_get(x, "rank")), 0, where);
	}
	return end_block(r, &b);
}

static int parse_json(struct gf_nccl_ras *r, const char *text, size_t len, const char *name)
{
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &je), *comms, *c;
	size_t i;
	int ret = 0;

	if (!doc)
		return gf_error(-EBADMSG, "%s: offset %d: not JSON: %s", name, je.position, je.text);
	comms = json_object_get(doc, "communicators");
	if (!json_is_object(doc) || !json_is_array(comms)) {
		json_decref(doc);
		return gf_error(-EBADMSG, "%s: no communicators array: not the JSON of ncclras -f json", name);
	}
	if (json_is_string(json_object_get(doc, "nccl_version")))
		gf_strlcpy(r->nccl, json_string_value(json_object_get(doc, "nccl_version")), sizeof(r->nccl));
	json_array_foreach(comms, i, c)
		if (!ret)
			ret = json_is_object(c) ? json_comm(r, c, i, name) :
			      gf_error(-EBADMSG, "%s: communicators[%zu]: expected an object", name, i);
	json_decref(doc);
	return ret;
}

/* Public ------------------------------------------------------------------ */

int gf_nccl_ras_parse(const char *text, size_t len, const char *name, struct gf_nccl_ras **out)
{
	struct gf_nccl_ras *r;
	char *copy;
	size_t i = 0;
	int ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (!text)
		return GF_NULL_ARG("text");
	if (!name)
		name = "ncclras output";
	if (!(r = calloc(1, sizeof(*r))) || !(copy = malloc(len + 1))) {
		free(r);
		return gf_error(-ENOMEM, "out of memory");
	}
	memcpy(copy, text, len);
	copy[len] = 0;
	if ((ret = gf_nccl_verdict_init(&r->v)))
		goto out;
	if (memchr(copy, 0, len)) {
		ret = gf_error(-EBADMSG, "%s: offset %zu: a NUL byte: not ncclras output", name,
			       (size_t)((char *)memchr(copy, 0, len) - copy));
		goto out;
	}
	while (i < len && isspace((unsigned char)copy[i]))
		i++;
	/* JSON when the document starts with '{' (ncclras -f json prints no text before it) */
	ret = i < len && copy[i] == '{' ? parse_json(r, copy + i, len - i, name) : parse_text(r, copy, name);
out:
	free(copy);
	if (ret)
		gf_nccl_ras_free(r);
	else
		*out = r;
	return ret;
}

/* Everything fd gives until EOF, bounded. */
static int read_all(int fd, const char *name, char **buf, size_t *len)
{
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		ssize_t n;

		if (*len == cap) {
			char *nb;

			if (cap >= RAS_MAX_INPUT)
				return gf_error(-EFBIG, "%s: more than %u MiB: not ncclras output", name, RAS_MAX_INPUT >> 20);
			cap = cap ? cap * 2 : 65536;
			if (!(nb = realloc(*buf, cap)))
				return gf_error(-ENOMEM, "%s: out of memory", name);
			*buf = nb;
		}
		if ((n = read(fd, *buf + *len, cap - *len)) == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return gf_error(-ETIMEDOUT, "%s: no answer in time", name);
			return gf_error(-errno, "%s: %s", name, strerror(errno));
		}
		*len += (size_t)n;
	}
}

int gf_nccl_ras_read(const char *path, struct gf_nccl_ras **out)
{
	char *buf = NULL;
	size_t len = 0;
	int fd, ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (!path)
		return GF_NULL_ARG("path");
	bool in = !strcmp(path, "-");
	const char *name = in ? "standard input" : path;
	if (in) {
		fd = STDIN_FILENO;
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	} else {
		struct stat st;

		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return gf_error(-EINVAL, "%s: not a regular file", path);
		}
	}
	if (!(ret = read_all(fd, name, &buf, &len)))
		ret = gf_nccl_ras_parse(buf ? buf : "", len, name, out);
	if (!in)
		close(fd);
	free(buf);
	return ret;
}

/* The RAS client protocol (NCCL's src/ras/client.cc and client_support.cc):
 * lines over TCP.  "CLIENT PROTOCOL 2" -> "SERVER PROTOCOL <n>";
 * "TIMEOUT <s>" -> "OK"; "[VERBOSE ]STATUS" -> the report, then the server
 * closes the connection. */
static int say(int fd, const char *addr, const char *line)
{
	size_t done = 0, n = strlen(line);

	while (done < n) {
		ssize_t w = send(fd, line + done, n - done, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return gf_error(errno == EAGAIN ? -ETIMEDOUT : -errno, "RAS at %s: %s", addr,
					errno == EAGAIN ? "no answer in time" : strerror(errno));
		done += (size_t)w;
	}
	return 0;
}

static int hear(int fd, const char *addr, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		ssize_t n = recv(fd, buf + got, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error(errno == EAGAIN ? -ETIMEDOUT : -errno, "RAS at %s: %s", addr,
					errno == EAGAIN ? "no answer in time" : strerror(errno));
		if (n == 0)
			return gf_error(-ECONNRESET, "RAS at %s: the connection was closed", addr);
		if (buf[got++] == '\n')
			break;
	}
	buf[got] = 0;
	return 0;
}

static int ras_connect(const char *addr, int timeout_s, int *fdp)
{
	char host[256], line[64];
	const char *port = RAS_DEFAULT_PORT, *colon = strrchr(addr, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *a;
	struct timeval tv = { .tv_sec = 5 };
	int fd = -1, err = 0, ret;

	if (addr[0] == '[' && strchr(addr, ']')) {
		const char *close_br = strchr(addr, ']');

		snprintf(host, sizeof(host), "%.*s", (int)(close_br - addr - 1), addr + 1);
		if (close_br[1] == ':')
			port = close_br + 2;
	} else if (colon && !strchr(colon + 1, ':') && strchr(addr, ':') == colon) {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
		port = colon + 1;
	} else {
		gf_strlcpy(host, addr, sizeof(host));
	}
	if ((ret = getaddrinfo(host, port, &hints, &ai)))
		return gf_error(-EHOSTUNREACH, "RAS at %s: %s", addr, gai_strerror(ret));
	for (a = ai; a; a = a->ai_next) {
		if ((fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol)) < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return gf_error(-(err ? err : ECONNREFUSED), "RAS at %s: %s (is the job running NCCL >= 2.24 with "
				"RAS on, and NCCL_RAS_ADDR this address?)", addr, strerror(err ? err : ECONNREFUSED));
	snprintf(line, sizeof(line), "CLIENT PROTOCOL %d\n", RAS_PROTOCOL);
	if ((ret = say(fd, addr, line)) || (ret = hear(fd, addr, line, sizeof(line))))
		goto fail;
	if (strncasecmp(line, "SERVER PROTOCOL ", 16)) {
		ret = gf_error(-EPROTO, "RAS at %s: answered '%.40s', not SERVER PROTOCOL", addr, gf_rstrip(line));
		goto fail;
	}
	snprintf(line, sizeof(line), "TIMEOUT %d\n", timeout_s);
	if ((ret = say(fd, addr, line)) || (ret = hear(fd, addr, line, sizeof(line))))
		goto fail;
	if (strcasecmp(gf_rstrip(line), "OK")) {
		ret = gf_error(-EPROTO, "RAS at %s: TIMEOUT answered '%.40s'", addr, line);
		goto fail;
	}
	/* the collection across the job takes up to the timeout and as much again */
	tv.tv_sec += timeout_s + RAS_COLLECT_EXTRA_S;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*fdp = fd;
	return 0;
fail:
	close(fd);
	return ret;
}

int gf_nccl_ras_query(const char *addr, int timeout_s, struct gf_nccl_ras **out)
{
	char *buf = NULL, name[300];
	size_t len = 0;
	int fd = -1, ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (timeout_s < 1 || timeout_s > 3600)
		return gf_arg_error(__func__, "timeout_s %d is not 1 to 3600 seconds", timeout_s);
	if (!addr || !*addr)
		addr = "localhost:" RAS_DEFAULT_PORT;
	if ((ret = ras_connect(addr, timeout_s, &fd)))
		return ret;
	snprintf(name, sizeof(name), "RAS at %s", addr);
	if (!(ret = say(fd, addr, "VERBOSE STATUS\n")) && !(ret = read_all(fd, name, &buf, &len)))
		ret = gf_nccl_ras_parse(buf ? buf : "", len, name, out);
	close(fd);
	free(buf);
	return ret;
}

void gf_nccl_ras_free(struct gf_nccl_ras *r)
{
	if (!r)
		return;
	gf_nccl_verdict_fini(&r->v);
	free(r);
}

int gf_nccl_ras_finding_count(const struct gf_nccl_ras *r)
{
	if (!r)
		return GF_NULL_ARG("r");
	return (int)json_array_size(r->v.findings);
}

int gf_nccl_ras_missing_ranks(const struct gf_nccl_ras *r, int *ranks, int max)
{
	if (!r)
		return GF_NULL_ARG("r");
	return gf_nccl_verdict_missing(&r->v, ranks, max, __func__);
}

int gf_nccl_ras_print(const struct gf_nccl_ras *r, FILE *f)
{
	if (!r)
		return GF_NULL_ARG("r");
	if (!f)
		return GF_NULL_ARG("f");
	fprintf(f, "NCCL RAS%s%s: %zu finding%s\n", r->nccl[0] ? ", NCCL " : "", r->nccl,
		json_array_size(r->v.findings), json_array_size(r->v.findings) == 1 ? "" : "s");
	gf_nccl_verdict_print(&r->v, f);
	return ferror(f) ? gf_error(-EIO, "writing the report failed") : 0;
}

int gf_nccl_ras_write_json(const struct gf_nccl_ras *r, FILE *f)
{
	if (!r)
		return GF_NULL_ARG("r");
	if (!f)
		return GF_NULL_ARG("f");
	return gf_nccl_verdict_write(&r->v, json_pack("{s:s, s:s}", "source", "ras", "nccl_version", r->nccl), f);
}
