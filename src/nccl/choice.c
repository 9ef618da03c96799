/* NCCL's choice line (choice.h).  NCCL 2.24 to 2.30 print it in
 * src/enqueue.cc (2.28.9: line 741, scheduleCollTasksToPlan), for each
 * collective, on rank 0 only, under NCCL_DEBUG=INFO with the TUNING
 * subsystem:
 *     INFO(NCCL_TUNING, "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}",
 *          ncclFuncToString(...), count * ncclTypeSize(...), ncclAlgoToString(...),
 *          ncclProtoToString(...), channelLo, channelHi);
 * NCCL 2.23 printed "%s: %ld Bytes -> Algo %d proto %d time %f" (its
 * NCCL_ALGO_* and NCCL_PROTO_* numbers, src/include/nccl_common.h).  Point-
 * to-point operations (ncclSend, ncclRecv) print no such line.  The reading
 * is strict: every field in its place, numbers in range, nothing after the
 * last one, so a line that merely looks alike yields nothing rather than a
 * wrong choice. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "nccl/choice.h"
#include "nccl/log_line.h"

/* NCCL's channel numbers are below MAXCHANNELS (64 in 2.28); room to grow. */
#define CHANNEL_MAX 4095

static bool lit(const char **p, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/* A run of bytes from set, 1 to size - 1 long, into buf. */
static bool word(const char **p, const char *set, char *buf, size_t size)
{
	size_t n = strspn(*p, set);

	if (!n || n >= size)
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n;
	return true;
}

/* Decimal digits without sign, no larger than max. */
static bool number(const char **p, unsigned long long max, unsigned long long *v)
{
	const char *s = *p;
	unsigned long long x = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return true;
}

static bool rest_blank(const char *p)
{
	return p[strspn(p, " \t\r\n")] == '\0';
}

#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGITS "0123456789"

/* 2.23: the numbers of nccl_common.h (NCCL_ALGO_TREE 0 ... NCCL_ALGO_PAT 6,
 * NCCL_PROTO_LL 0, LL128 1, SIMPLE 2) as ncclAlgoToString/ncclProtoToString
 * name them. */
static const char *const algo_names[] = { "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE",
					  "PAT" };
static const char *const proto_names[] = { "LL", "LL128", "SIMPLE" };

static bool numbered(const char *p, struct gf_nccl_choice *c)
{
	unsigned long long a, q;

	if (!number(&p, 99, &a) || a >= sizeof(algo_names) / sizeof(algo_names[0]) || !lit(&p, " proto ") ||
	    !number(&p, 99, &q) || q >= sizeof(proto_names) / sizeof(proto_names[0]) || !lit(&p, " time "))
		return false;
	/* the estimate ("%f") is not kept; anything printable may follow */
	strcpy(c->algo, algo_names[a]);
	strcpy(c->proto, proto_names[q]);
	c->channel_lo = c->channel_hi = -1;
	c->nchannels = 0;
	return true;
}

bool gf_nccl_choice_of(const char *m, struct gf_nccl_choice *c)
{
	const char *p = m;
	unsigned long long lo, hi;

	memset(c, 0, sizeof(*c));
	if (!p || !word(&p, UPPER "abcdefghijklmnopqrstuvwxyz", c->func, sizeof(c->func)) || !lit(&p, ": ") ||
	    !number(&p, INT64_MAX, &c->bytes) || !lit(&p, " Bytes -> Algo "))
		goto no;
	if (*p >= '0' && *p <= '9') {
		if (numbered(p, c))
			return true;
		goto no;
	}
	if (!word(&p, UPPER DIGITS "_", c->algo, sizeof(c->algo)) || !lit(&p, " proto ") ||
	    !word(&p, UPPER DIGITS "_", c->proto, sizeof(c->proto)) || !lit(&p, " channel{Lo..Hi}={") ||
	    !number(&p, CHANNEL_MAX, &lo) || !lit(&p, "..") || !number(&p, CHANNEL_MAX, &hi) || !lit(&p, "}") ||
	    lo > hi || !rest_blank(p))
		goto no;
	c->channel_lo = (int)lo;
	c->channel_hi = (int)hi;
	c->nchannels = (int)(hi - lo + 1);
	return true;
no:
	memset(c, 0, sizeof(*c));
	return false;
}

GF_API int gf_nccl_choice_parse(const char *line, size_t len, struct gf_nccl_choice *out)
{
	struct nccl_event ev;

	if (!line || !out)
		return gf_error(-EINVAL, "gf_nccl_choice_parse: %s is NULL", !line ? "line" : "out");
	gf_nccl_line_parse(line, len, &ev);
	if (ev.kind != EV_ALGO) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	*out = ev.choice;
	return 1;
}
