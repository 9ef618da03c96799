/* NCCL_DEBUG=INFO lines into events (log_line.h).
 *
 * A line is, outside in: the launcher's prefix ("[rank0]:" and
 * "[default0]:" from torchrun, "[0] " from gpufeed launch), NCCL's optional
 * timestamp ("[2026-11-26 19:48:57] ", NCCL_DEBUG_TIMESTAMP_FORMAT), then
 * NCCL's "host:pid:tid [dev] " and, for WARN, "file.cc:line ", then
 * "NCCL INFO " or "NCCL WARN " and the message.  The messages read here are
 * those of NCCL 2.18 to 2.28 (init.cc, transport.cc, graph/, enqueue.cc,
 * misc/param.cc).  Numbers are read with bounds: a malformed number leaves
 * the line without the event, never a wrong one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "nccl/choice.h"
#include "nccl/log_line.h"

void gf_nccl_clean_copy(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[i] = '\0';
}

/* A decimal number at *p (optional '-'), at most 9 digits; moves *p past it. */
static bool num(const char **p, int *v)
{
	const char *s = *p;
	bool neg = false;
	long x = 0;
	int n = 0;

	if (*s == '-') {
		neg = true;
		s++;
	}
	while (*s >= '0' && *s <= '9') {
		if (++n > 9)
			return false;
		x = x * 10 + (*s++ - '0');
	}
	if (!n)
		return false;
	*v = (int)(neg ? -x : x);
	*p = s;
	return true;
}

/* The number after key in s ("rank 3": key "rank "); false when key is
 * absent or no number follows. */
static bool num_after(const char *s, const char *key, int *v)
{
	const char *p = strstr(s, key);

	if (!p)
		return false;
	p += strlen(key);
	return num(&p, v);
}

/* The word (up to a space) after key into buf. */
static bool word_after(const char *s, const char *key, char *buf, size_t size)
{
	const char *p = strstr(s, key);
	size_t n;

	if (!p)
		return false;
	p += strlen(key);
	n = strcspn(p, " ");
	if (!n)
		return false;
	gf_nccl_clean_copy(buf, size, p, n < size ? n : size - 1);
	return true;
}

static bool skip(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

/* NCCL's busId is the PCI address's hex digits run together (int64 "%lx":
 * "60" is 0000:00:06.0, "1b000" is 0000:01:b0.0).  false for anything else. */
static bool busid(const char *hex, char *out, size_t size)
{
	char d[17];
	size_t n;

	if (!strncmp(hex, "0x", 2))
		hex += 2;
	n = strspn(hex, "0123456789abcdefABCDEF");
	if (!n || n > 12)
		return false;
	memset(d, '0', sizeof(d));
	memcpy(d + 16 - n, hex, n);
	d[16] = '\0';
	/* d: 16 digits ending in domain, bus (2), device (2), function (1) */
	{
		int dl = n > 9 ? (int)n - 5 : 4;	/* VMD domains have 5 digits */

		snprintf(out, size, "%.*s:%.2s:%.2s.%.1s", dl, d + 11 - dl, d + 11, d + 13, d + 15);
	}
	return true;
}

/* "[rank3]:", "[default3]:" or "[3] " at *p. */
static bool launcher_prefix(const char **p, int *rank)
{
	const char *s = *p;
	int v;

	if (*s != '[')
		return false;
	s++;
	if (!skip(&s, "rank"))
		(void)skip(&s, "default");
	if (!num(&s, &v) || v < 0 || *s != ']')
		return false;
	s++;
	if (*s == ':')
		s++;
	else if (*s == ' ')
		s++;
	else
		return false;
	*rank = v;
	*p = s;
	return true;
}

/* NCCL's "host:pid:tid [dev] " at *p, else false and nothing moved. */
static bool nccl_prefix(const char **p, struct nccl_event *ev)
{
	const char *s = *p, *sp = strchr(s, ' '), *c1, *c2;
	int pid, tid, dev;

	if (!sp || sp - s > 200)
		return false;
	/* the last two ':' before the space: host may be "a:b" only in odd setups */
	for (c2 = sp - 1; c2 > s && *c2 != ':'; c2--)
		;
	if (c2 <= s)
		return false;
	for (c1 = c2 - 1; c1 > s && *c1 != ':'; c1--)
		;
	if (c1 <= s || *c1 != ':' || *c2 != ':')
		return false;
	{
		const char *q = c1 + 1;

		if (!num(&q, &pid) || q != c2)
			return false;
		q = c2 + 1;
		if (!num(&q, &tid) || q != sp)
			return false;
	}
	s = sp + 1;
	if (*s != '[')
		return false;
	s++;
	if (!num(&s, &dev) || *s != ']')
		return false;
	s++;
	if (*s == ' ')
		s++;
	gf_nccl_clean_copy(ev->host, sizeof(ev->host), *p,
			   (size_t)(c1 - *p) < sizeof(ev->host) ? (size_t)(c1 - *p) : sizeof(ev->host) - 1);
	ev->pid = pid;
	ev->dev = dev;
	*p = s;
	return true;
}

static void set_text(struct nccl_event *ev, const char *s)
{
	gf_nccl_clean_copy(ev->text, sizeof(ev->text), s, strlen(s));
	gf_rstrip(ev->text);
}

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", "Channel 01/0 : 1[1] -> 0[0]
 * [send] via NET/Socket/0", or the ring "Channel 00/04 : 0 1". */
static void channel_line(const char *m, struct nccl_event *ev)
{
	const char *p = m + strlen("Channel ");
	int ch, sub = -1, r, d, pr, pd;

	if (!num(&p, &ch) || ch < 0)
		return;
	if (*p == '/') {
		p++;
		if (!num(&p, &sub))
			return;
	}
	if (!skip(&p, " : "))
		return;
	if (strstr(p, " -> ") && strstr(p, " via ")) {
		const char *via = strstr(p, " via ") + 5;

		if (!num(&p, &r) || !skip(&p, "[") || !num(&p, &d) || !skip(&p, "] -> ") || !num(&p, &pr) ||
		    !skip(&p, "[") || !num(&p, &pd) || *p != ']')
			return;
		ev->kind = EV_TRANSPORT;
		ev->channel = ch;
		ev->rank = r;
		ev->dev = ev->dev < 0 ? d : ev->dev;
		ev->peer = pr;
		ev->peer_dev = pd;
		gf_nccl_clean_copy(ev->a, sizeof(ev->a), via, strcspn(via, " "));
		return;
	}
	if (sub > 0 && *p >= '0' && *p <= '9') {
		ev->kind = EV_RING;
		ev->channel = ch;
		ev->count = sub;
		set_text(ev, p);
	}
}

/* "NCCL_PROTO set by environment to Simple" (misc/param.cc), "... to 1." */
static void env_line(const char *m, struct nccl_event *ev)
{
	const char *set = strstr(m, " set by environment to ");
	size_t n = set ? (size_t)(set - m) : 0;

	if (!set || n >= sizeof(ev->a) || strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
		return;
	ev->kind = EV_ENV;
	memcpy(ev->a, m, n);
	ev->a[n] = '\0';
	set += strlen(" set by environment to ");
	gf_nccl_clean_copy(ev->b, sizeof(ev->b), set, strlen(set));
	gf_rstrip(ev->b);
	n = strlen(ev->b);
	if (n && ev->b[n - 1] == '.')
		ev->b[n - 1] = '\0';
}

/* "... comm 0x17f2e850 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId
 * 0x55b4... - Init START" (ncclCommInitRank*, ncclCommSplit, ...). */
static void init_line(const char *m, struct nccl_event *ev)
{
	char bus[24] = "";

	if (!word_after(m, "comm 0x", ev->a, sizeof(ev->a)) || !num_after(m, " rank ", &ev->rank) ||
	    !num_after(m, " nranks ", &ev->nranks))
		return;
	ev->kind = EV_INIT;
	ev->flag = strstr(m, "- Init COMPLETE") != NULL;
	(void)num_after(m, " cudaDev ", &ev->peer_dev);
	if (word_after(m, " busId ", bus, sizeof(bus)))
		(void)busid(bus, ev->busid, sizeof(ev->busid));
	(void)word_after(m, " commId ", ev->b, sizeof(ev->b));
}

static void nccl_message(const char *m, bool warn, struct nccl_event *ev)
{
	const char *p;

	if (warn) {
		ev->kind = EV_WARN;
		set_text(ev, m);
		return;
	}
	if (skip(&m, "NCCL version ")) {
		ev->kind = EV_VERSION;
		gf_nccl_clean_copy(ev->a, sizeof(ev->a), m, strcspn(m, " "));
		return;
	}
	if (!strncmp(m, "Channel ", 8)) {
		channel_line(m, ev);
		return;
	}
	if (!strncmp(m, "NCCL_", 5)) {
		env_line(m, ev);
		return;
	}
	if (strstr(m, "- Init START") || strstr(m, "- Init COMPLETE")) {
		init_line(m, ev);
		return;
	}
	if (!strncmp(m, "comm 0x", 7) && strstr(m, " nRanks ")) {
		if (num_after(m, " rank ", &ev->rank) && num_after(m, " nRanks ", &ev->nranks)) {
			ev->kind = EV_COMM;
			if (!num_after(m, " nNodes ", &ev->count))
				ev->count = -1;
		}
		return;
	}
	if (!strncmp(m, "Trees ", 6)) {
		ev->kind = EV_TREE;
		set_text(ev, m + 6);
		return;
	}
	/* "4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, ..." */
	if (strstr(m, " coll channels, ") && (p = m, num(&p, &ev->count))) {
		ev->kind = EV_CHANNELS;
		if (!strstr(m, " nvls channels") || !num_after(m, "collnet channels, ", &ev->peer))
			ev->peer = -1;
		return;
	}
	if ((p = strstr(m, "GPU Direct RDMA ")) && (strstr(p, "Enabled") || strstr(p, "Disabled"))) {
		ev->kind = EV_GDR;
		ev->flag = strstr(p, "Enabled") != NULL;
		if ((p = strchr(m, '\'')))
			gf_nccl_clean_copy(ev->a, sizeof(ev->a), p + 1, strcspn(p + 1, "'"));
		return;
	}
	/* "NVLS multicast support is not available on dev 0", "NVLS comm 0x.. headRank ..."
	 * (not the TUNING table, whose header names NVLS too) */
	if (!strncmp(m, "NVLS ", 5) || strstr(m, "NVLS multicast")) {
		ev->kind = EV_NVLS;
		set_text(ev, m);
		return;
	}
	if (gf_nccl_choice_of(m, &ev->choice)) {
		ev->kind = EV_ALGO;
		snprintf(ev->a, sizeof(ev->a), "%s", ev->choice.func);
		snprintf(ev->b, sizeof(ev->b), "%s/%s", ev->choice.algo, ev->choice.proto);
		return;
	}
	if ((p = strstr(m, "Setting affinity for GPU ")) && (p = strstr(p, " to "))) {
		ev->kind = EV_AFFINITY;
		set_text(ev, p + 4);
		return;
	}
	if (strstr(m, "ncclTopoGetCpuAffinity") && (p = strstr(m, "CPU affinity = "))) {
		ev->kind = EV_AFFINITY;
		ev->flag = strstr(m, "is empty") != NULL;
		p += strlen("CPU affinity = ");
		gf_nccl_clean_copy(ev->text, sizeof(ev->text), p, strcspn(p, ")"));
		return;
	}
	if (skip(&m, "Using network ")) {
		ev->kind = EV_NET;
		set_text(ev, m);
		gf_strlcpy(ev->a, ev->text, sizeof(ev->a));
		ev->text[0] = '\0';
		return;
	}
	if (strstr(m, "NET/IB") && strstr(m, "No device found")) {
		ev->kind = EV_NO_IB;
		return;
	}
	/* "NET/Socket : Using [0]eth0:192.0.2.2<0>", "NET/IB : Using [0]mlx5_0:1/IB ..." */
	if (!strncmp(m, "NET/", 4) && (p = strstr(m, " : Using ")) && p - m < 40) {
		ev->kind = EV_NET_IF;
		gf_nccl_clean_copy(ev->a, sizeof(ev->a), m + 4, (size_t)(p - m - 4));
		set_text(ev, p + strlen(" : Using "));
	}
}

/* PyTorch's lines about NCCL: its watchdog timeouts, NCCL errors it
 * raises, and how far each rank got ("last enqueued work: 4"). */
static void torch_line(const char *s, struct nccl_event *ev)
{
	const char *p;

	if ((p = strstr(s, "last enqueued work: ")) || (p = strstr(s, "Last enqueued NCCL work: "))) {
		p = strchr(p, ':') + 2;
		if (num(&p, &ev->count)) {
			ev->kind = EV_ENQUEUED;
			if (ev->prefix_rank < 0 && (p = strstr(s, " Rank ")) && (p += 6, num(&p, &ev->rank)))
				ev->prefix_rank = ev->rank;
		}
		return;
	}
	if (strstr(s, "Watchdog caught collective operation timeout") || strstr(s, "NCCL error in:") ||
	    strstr(s, "NCCL communicator was aborted")) {
		ev->kind = EV_TORCH_ERROR;
		if ((p = strstr(s, "[Rank ")) || (p = strstr(s, " Rank "))) {
			p = strstr(p, "Rank ") + 5;
			if (ev->prefix_rank < 0 && num(&p, &ev->rank))
				ev->prefix_rank = ev->rank;
		}
		/* the error itself: PyTorch repeats it inside other messages
		 * ("watchdog thread terminated with exception: ...") */
		if ((p = strstr(s, "Watchdog caught collective operation timeout")) || (p = strstr(s, "NCCL error in:")))
			s = p;
		else if (s[0] == '[' && (p = strchr(s, ']')) && p[1] == ' ')
			s = p + 2;
		set_text(ev, s);
	}
}

void gf_nccl_line_parse(const char *line, size_t len, struct nccl_event *ev)
{
	char buf[NCCL_LINE_MAX + 1];
	const char *p = buf, *m;
	bool warn;

	memset(ev, 0, sizeof(*ev));
	ev->kind = EV_NONE;
	ev->prefix_rank = ev->dev = ev->rank = ev->nranks = ev->channel = -1;
	ev->peer = ev->peer_dev = ev->count = -1;
	ev->pid = -1;
	if (!line)
		return;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	gf_nccl_clean_copy(buf, sizeof(buf), line, len < NCCL_LINE_MAX ? len : NCCL_LINE_MAX);
	(void)launcher_prefix(&p, &ev->prefix_rank);
	/* NCCL_DEBUG_TIMESTAMP_FORMAT's "[2026-11-26 19:48:57] " */
	if (p[0] == '[' && p[1] >= '0' && p[1] <= '9' && (m = strchr(p, ']')) && m[1] == ' ' &&
	    strchr(p, '-') && strchr(p, '-') < m)
		p = m + 2;
	if (!nccl_prefix(&p, ev)) {
		torch_line(p, ev);
		return;
	}
	/* WARN lines carry "file.cc:123 " before "NCCL WARN" */
	if ((m = strstr(p, "NCCL INFO ")) && m - p < 64)
		warn = false;
	else if ((m = strstr(p, "NCCL WARN ")) && m - p < 64)
		warn = true;
	else
		return;
	nccl_message(m + 10, warn, ev);
}
