/* The control plane of a multi-process collective run: a TCP star around
 * rank 0.  Every socket is non-blocking and every wait is a poll() with a
 * deadline, so no call blocks longer than its caller's timeout.
 *
 * Frames: a 16-byte header (magic "GFCT", version, type, payload length,
 * one signed argument; big-endian) and at most MAX_PAYLOAD bytes.  A frame
 * that is not one is -EPROTO, never a read past what was announced.
 *
 * Rank 0 judges every step and sends its verdict (0, or -errno and the
 * message) to every rank, so all ranks fail with the same message; the
 * others, waiting on that verdict, allow rank 0 a grace beyond their own
 * timeout to deliver it. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coll/ctl.h"
#include "core/error.h"
#include "core/log.h"

#define MAGIC 0x47464354u	/* "GFCT" */
#define VERSION 1
#define HDR 16
#define MAX_PAYLOAD (16u << 20)
#define HOST_MAX 64
#define WHO_MAX 128
#define MSG_MAX 512
/* Connections that have not introduced themselves yet, beyond the ranks. */
#define MAX_PENDING 64

enum frame_type {
	T_HELLO = 1,	/* rank -> 0: rank, nranks, pid, host */
	T_ROSTER,	/* 0 -> rank: every rank's pid and host */
	T_BCAST,	/* 0 -> rank: the data */
	T_GATHER,	/* rank -> 0: the data */
	T_BARRIER,	/* rank -> 0: arrived */
	T_VERDICT,	/* 0 -> rank: arg 0 or -errno, payload the message */
	T_ABORT,	/* rank -> 0: payload why */
};

/* One connection and the frame being read from it. */
struct conn {
	int fd;			/* -1: none or closed */
	uint8_t hdr[HDR];
	size_t hgot;
	uint32_t type, len;
	int32_t arg;
	uint8_t *buf;		/* [len], once the header is in */
	size_t bgot;
	bool ready;		/* a whole frame is in hdr/buf */
};

struct gf_coll_ctl {
	int rank, nranks;
	struct conn *conn;	/* rank 0: [nranks], [r] to rank r; others: [1], to rank 0 */
	char (*who)[WHO_MAX];	/* [nranks] */
	char where[300];	/* "host:port" for messages */
	int err;		/* once a step failed: every call fails the same */
	char msg[MSG_MAX];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* poll()'s timeout for a deadline: at least 0, rounded up. */
static int ms_left(double deadline)
{
	double left = deadline - now_s();

	if (left <= 0)
		return 0;
	if (left > 3600)
		return 3600 * 1000;
	return (int)(left * 1000) + 1;
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static void conn_reset(struct conn *c)
{
	free(c->buf);
	c->buf = NULL;
	c->hgot = c->bgot = 0;
	c->ready = false;
}

static void conn_close(struct conn *c)
{
	conn_reset(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Reads what has come, never more than the frame announced.  1 when a whole
 * frame is in, 0 when more is to come, -ECONNRESET when the peer closed,
 * -EPROTO for a header that is not ours, -errno otherwise. */
static int conn_pump(struct conn *c)
{
	while (!c->ready) {
		ssize_t n;

		if (c->hgot < HDR)
			n = recv(c->fd, c->hdr + c->hgot, HDR - c->hgot, 0);
		else
			n = recv(c->fd, c->buf + c->bgot, c->len - c->bgot, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		if (c->hgot < HDR) {
			c->hgot += (size_t)n;
			if (c->hgot < HDR)
				continue;
			if (get32(c->hdr) != MAGIC || (get32(c->hdr + 4) >> 16) != VERSION)
				return -EPROTO;
			c->type = get32(c->hdr + 4) & 0xffff;
			c->len = get32(c->hdr + 8);
			c->arg = (int32_t)get32(c->hdr + 12);
			if (c->type < T_HELLO || c->type > T_ABORT || c->len > MAX_PAYLOAD)
				return -EPROTO;
			/* +1: a NUL after text payloads */
			if (!(c->buf = calloc(1, (size_t)c->len + 1)))
				return -ENOMEM;
		} else {
			c->bgot += (size_t)n;
		}
		if (c->hgot == HDR && c->bgot == c->len)
			c->ready = true;
	}
	return 1;
}

/* The header and payload on a non-blocking socket by deadline.  0,
 * -ETIMEDOUT, -ECONNRESET (peer gone) or -errno. */
static int send_frame(int fd, uint32_t type, int32_t arg, const void *data, size_t len, double deadline)
{
	uint8_t hdr[HDR];
	const uint8_t *parts[2] = { hdr, data };
	size_t sizes[2] = { HDR, len };

	put32(hdr, MAGIC);
	put32(hdr + 4, (uint32_t)VERSION << 16 | type);
	put32(hdr + 8, (uint32_t)len);
	put32(hdr + 12, (uint32_t)arg);
	for (int i = 0; i < 2; i++) {
		size_t done = 0;

		while (done < sizes[i]) {
			ssize_t n = send(fd, parts[i] + done, sizes[i] - done, MSG_NOSIGNAL);
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			if (n > 0) {
				done += (size_t)n;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				return errno == EPIPE ? -ECONNRESET : -errno;
			if (now_s() >= deadline)
				return -ETIMEDOUT;
			if (poll(&p, 1, ms_left(deadline)) < 0 && errno != EINTR)
				return -errno;
		}
	}
	return 0;
}

static const char *who(const struct gf_coll_ctl *c, int rank)
{
	return c->who[rank];
}

/* Records the step's failure; on rank 0 sends it to every rank (best
 * effort: a short wait each), so all of them fail with this message. */
static int fail(struct gf_coll_ctl *c, int err, const char *fmt, ...) GF_PRINTF(3, 4);
static int fail(struct gf_coll_ctl *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (!c->err) {
		va_start(ap, fmt);
		vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
		va_end(ap);
		c->err = err;
		if (c->rank == 0) {
			double deadline = now_s() + 1.0;

			for (int r = 1; r < c->nranks; r++)
				if (c->conn[r].fd >= 0)
					send_frame(c->conn[r].fd, T_VERDICT, err, c->msg, strlen(c->msg), deadline);
		}
	}
	return gf_error(c->err, "%s", c->msg);
}

/* A rank's frame that broke a step: the message naming it. */
static int fail_peer(struct gf_coll_ctl *c, int r, int ret, const char *step, double timeout_s)
{
	if (ret == -ECONNRESET)
		return fail(c, -ECONNRESET, "%s exited before '%s'", who(c, r), step);
	if (ret == -ETIMEDOUT)
		return fail(c, -ETIMEDOUT, "%s did not reach '%s' within %g s", who(c, r), step, timeout_s);
	if (ret == -EPROTO)
		return fail(c, -EPROTO, "%s sent a malformed control message at '%s'", who(c, r), step);
	return fail(c, ret, "%s: connection failed at '%s': %s", who(c, r), step, strerror(-ret));
}

/* A frame rank r sent that is not the one this step waits for: its abort,
 * or a rank at another step. */
static int fail_frame(struct gf_coll_ctl *c, int r, const struct conn *f, const char *step)
{
	if (f->type == T_ABORT)
		return fail(c, -ECONNABORTED, "%s stopped: %s", who(c, r), (const char *)f->buf);
	return fail(c, -EPROTO, "%s sent control message %u at '%s' (another step?)", who(c, r), f->type, step);
}

/* Rank 0: waits until every other rank's frame is in, or one fails.  A
 * frame of another type than want fails the step. */
static int wait_all(struct gf_coll_ctl *c, uint32_t want, const char *step, double timeout_s, double deadline)
{
	struct pollfd *p = calloc((size_t)c->nranks, sizeof(*p));
	int ret = 0;

	if (!p)
		return fail(c, -ENOMEM, "'%s': out of memory", step);
	for (;;) {
		int n = 0, first_missing = -1;

		for (int r = 1; r < c->nranks; r++) {
			struct conn *k = &c->conn[r];

			if (!k->ready && (ret = conn_pump(k)) < 0) {
				ret = fail_peer(c, r, ret, step, timeout_s);
				goto out;
			}
			if (k->ready && k->type != want) {
				ret = fail_frame(c, r, k, step);
				goto out;
			}
			if (!k->ready) {
				if (first_missing < 0)
					first_missing = r;
				p[n++] = (struct pollfd){ .fd = k->fd, .events = POLLIN };
			}
		}
		if (!n)
			break;
		if (now_s() >= deadline) {
			ret = fail_peer(c, first_missing, -ETIMEDOUT, step, timeout_s);
			goto out;
		}
		if (poll(p, (nfds_t)n, ms_left(deadline)) < 0 && errno != EINTR) {
			ret = fail(c, -errno, "'%s': poll: %s", step, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	free(p);
	return ret;
}

/* Rank 0: the step passed; every rank may go on. */
static int send_ok(struct gf_coll_ctl *c, const char *step, double timeout_s, double deadline)
{
	for (int r = 1; r < c->nranks; r++) {
		int ret = send_frame(c->conn[r].fd, T_VERDICT, 0, NULL, 0, deadline);

		if (ret)
			return fail_peer(c, r, ret, step, timeout_s);
	}
	return 0;
}

/* How long a rank waits for rank 0's verdict beyond its own timeout: rank
 * 0 names the late rank at timeout_s and needs a moment to say so. */
static double verdict_deadline(double timeout_s)
{
	return now_s() + timeout_s * 1.1 + 2.0;
}

/* A rank other than 0: the next frame from rank 0, of type want or a
 * verdict.  A failing verdict fails this rank with rank 0's message. */
static int wait_root(struct gf_coll_ctl *c, uint32_t want, const char *step, double timeout_s, double deadline)
{
	struct conn *k = &c->conn[0];
	int ret;

	conn_reset(k);
	for (;;) {
		struct pollfd p = { .fd = k->fd, .events = POLLIN };

		if ((ret = conn_pump(k)) > 0)
			break;
		if (ret == -ECONNRESET)
			return fail(c, ret, "%s exited before '%s'", who(c, 0), step);
		if (ret < 0)
			return fail_peer(c, 0, ret, step, timeout_s);
		if (now_s() >= deadline)
			return fail(c, -ETIMEDOUT, "%s did not answer at '%s' within %g s", who(c, 0), step, timeout_s);
		if (poll(&p, 1, ms_left(deadline)) < 0 && errno != EINTR)
			return fail(c, -errno, "'%s': poll: %s", step, strerror(errno));
	}
	if (k->type == T_VERDICT && k->arg) {
		if (k->arg >= 0 || k->arg < -4095)
			return fail(c, -EPROTO, "%s sent a malformed verdict at '%s'", who(c, 0), step);
		return fail(c, k->arg, "%s", (const char *)k->buf);
	}
	if (k->type != want)
		return fail_frame(c, 0, k, step);
	return 0;
}

static bool timeout_ok(double t)
{
	return t > 0 && t < 1e7;
}

/* Every entry point: arguments, and a failed step fails every later one. */
static int check(struct gf_coll_ctl *c, double timeout_s, const char *func)
{
	if (!c)
		return gf_arg_error(func, "c is NULL");
	if (!timeout_ok(timeout_s))
		return gf_arg_error(func, "timeout %g s: more than 0", timeout_s);
	if (c->err)
		return gf_error(c->err, "%s", c->msg);
	return 0;
}

static void set_who(struct gf_coll_ctl *c, int rank, uint32_t pid, const char *host)
{
	snprintf(c->who[rank], WHO_MAX, "rank %d (pid %u on %s)", rank, pid, host);
}

/* ---- open ---- */

static void set_socket_opts(int fd)
{
	int one = 1;

	/* Small frames, each waited on: no Nagle delay. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Rank 0's socket: every address of this host (IPv6 with IPv4 mapped,
 * else IPv4), so MASTER_ADDR may name any of them. */
static int listen_on(int port, int backlog, int *out)
{
	int one = 1, zero = 0, fd, ret;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)))
			goto listen;
		ret = -errno;
		close(fd);
		if (ret != -EADDRNOTAVAIL && ret != -EAFNOSUPPORT)
			goto fail;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gf_error(-errno, "rank 0: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4))) {
		ret = -errno;
		close(fd);
		goto fail;
	}
listen:
	if (listen(fd, backlog)) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	*out = fd;
	return 0;
fail:
	if (ret == -EADDRINUSE)
		return gf_error(ret, "rank 0: TCP port %d is in use (another job's rank 0, or a torchrun agent's "
				"store): set GPUFEED_COLL_PORT to a free port", port);
	return gf_error(ret, "rank 0: TCP port %d: %s", port, strerror(-ret));
}

/* A HELLO from a pending connection: 0 and *rank, or -EPROTO with
 * c->msg-worthy text in why.  pid and host go into the roster. */
static int parse_hello(const struct gf_coll_ctl *c, const struct conn *k, int *rank, uint32_t *pid, char *host,
		       char *why, size_t why_size)
{
	uint32_t r, n;
	size_t hl;

	if (k->type != T_HELLO || k->len < 12 || k->len > 12 + HOST_MAX) {
		snprintf(why, why_size, "a first message that is not a rank's hello");
		return -EPROTO;
	}
	r = get32(k->buf);
	n = get32(k->buf + 4);
	*pid = get32(k->buf + 8);
	hl = k->len - 12;
	memcpy(host, k->buf + 12, hl);
	host[hl] = '\0';
	for (size_t i = 0; i < hl; i++)
		if ((unsigned char)host[i] < 0x21 || (unsigned char)host[i] > 0x7e)
			host[i] = '?';
	if (n != (uint32_t)c->nranks) {
		snprintf(why, why_size, "rank %u (pid %u on %s) counts %u ranks, rank 0 counts %d", r, *pid, host, n,
			 c->nranks);
		return -EPROTO;
	}
	if (r == 0 || r >= n) {
		snprintf(why, why_size, "pid %u on %s says it is rank %u of %u", *pid, host, r, n);
		return -EPROTO;
	}
	if (c->conn[r].fd >= 0) {
		snprintf(why, why_size, "rank %u given twice: %s and pid %u on %s", r, who(c, (int)r), *pid, host);
		return -EPROTO;
	}
	*rank = (int)r;
	return 0;
}

static int send_roster(struct gf_coll_ctl *c, const uint32_t *pids, double timeout_s, double deadline)
{
	size_t size = (size_t)c->nranks * (5 + HOST_MAX), len = 0;
	uint8_t *buf = malloc(size);
	int ret = 0;

	if (!buf)
		return fail(c, -ENOMEM, "rank 0: out of memory for the roster of %d ranks", c->nranks);
	for (int r = 0; r < c->nranks; r++) {
		const char *host = strstr(c->who[r], " on ");
		size_t hl;

		host = host ? host + 4 : "?)";
		hl = strlen(host) - 1;	/* without the ")" */
		put32(buf + len, pids[r]);
		buf[len + 4] = (uint8_t)hl;
		memcpy(buf + len + 5, host, hl);
		len += 5 + hl;
	}
	for (int r = 1; r < c->nranks && !ret; r++)
		if ((ret = send_frame(c->conn[r].fd, T_ROSTER, 0, buf, len, deadline)))
			ret = fail_peer(c, r, ret, "connect", timeout_s);
	free(buf);
	return ret;
}

/* "ranks 2, 3 of 4" / "rank 3 of 4": the ranks not connected yet. */
static void missing_list(const struct gf_coll_ctl *c, char *out, size_t size)
{
	int missing = 0, shown = 0;
	size_t len;

	for (int r = 1; r < c->nranks; r++)
		missing += c->conn[r].fd < 0;
	len = (size_t)snprintf(out, size, "rank%s", missing > 1 ? "s" : "");
	for (int r = 1; r < c->nranks && len < size; r++) {
		if (c->conn[r].fd >= 0)
			continue;
		if (shown++ == 16) {
			len += (size_t)snprintf(out + len, size - len, " ...");
			break;
		}
		len += (size_t)snprintf(out + len, size - len, "%s %d", shown > 1 ? "," : "", r);
	}
	if (len < size)
		snprintf(out + len, size - len, " of %d", c->nranks);
}

static int open_root(struct gf_coll_ctl *c, int port, double timeout_s, double deadline)
{
	struct conn pend[MAX_PENDING];
	struct pollfd *p = NULL;
	uint32_t *pids = NULL;
	int lfd = -1, npend = 0, joined = 1, strangers = 0, ret;
	char why[MSG_MAX], host[HOST_MAX + 1];

	if ((ret = listen_on(port, c->nranks < 1024 ? c->nranks + 16 : 1024, &lfd)))
		return ret;
	p = calloc((size_t)c->nranks + MAX_PENDING + 1, sizeof(*p));
	pids = calloc((size_t)c->nranks, sizeof(*pids));
	if (!p || !pids) {
		ret = gf_error(-ENOMEM, "rank 0: out of memory for %d ranks", c->nranks);
		goto out;
	}
	pids[0] = (uint32_t)getpid();
	while (joined < c->nranks) {
		int n = 0;

		/* New connections: strangers until their hello. */
		for (;;) {
			int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				break;
			if (npend == MAX_PENDING) {
				close(fd);
				strangers++;
				continue;
			}
			set_socket_opts(fd);
			pend[npend++] = (struct conn){ .fd = fd };
		}
		for (int i = 0; i < npend; i++) {
			int r = -1;
			uint32_t pid = 0;

			if ((ret = conn_pump(&pend[i])) == 0)
				continue;
			if (ret > 0 && !(ret = parse_hello(c, &pend[i], &r, &pid, host, why, sizeof(why)))) {
				conn_reset(&pend[i]);
				c->conn[r] = pend[i];
				pids[r] = pid;
				set_who(c, r, pid, host);
				joined++;
			} else if (ret == -EPROTO && pend[i].ready) {
				/* A gpufeed rank of this job that does not fit:
				 * waiting on cannot mend it. */
				ret = fail(c, -EPROTO, "rank 0 on %s: %s", c->where, why);
				send_frame(pend[i].fd, T_VERDICT, ret, c->msg, strlen(c->msg), now_s() + 1.0);
				goto out;
			} else {
				/* A stranger (a port scan, a health check, another
				 * program): refused, and the ranks still awaited. */
				GF_WARN(GF_LOG_BENCH, "rank 0 on %s: refused a connection that is not a gpufeed rank (%s)",
					c->where, strerror(-ret));
				conn_close(&pend[i]);
				strangers++;
			}
			pend[i--] = pend[--npend];
		}
		/* A rank in already that goes away or aborts. */
		for (int r = 1; r < c->nranks; r++) {
			if (c->conn[r].fd < 0)
				continue;
			if ((ret = conn_pump(&c->conn[r])) < 0) {
				ret = fail_peer(c, r, ret, "connect", timeout_s);
				goto out;
			}
			if (ret > 0) {
				ret = fail_frame(c, r, &c->conn[r], "connect");
				goto out;
			}
			p[n++] = (struct pollfd){ .fd = c->conn[r].fd, .events = POLLIN };
		}
		if (joined == c->nranks)
			break;
		if (now_s() >= deadline) {
			missing_list(c, why, sizeof(why));
			if (strangers)
				ret = fail(c, -ETIMEDOUT, "rank 0: %s did not connect to %s within %g s (%d other "
					   "connections refused: not gpufeed ranks of this version)", why, c->where,
					   timeout_s, strangers);
			else
				ret = fail(c, -ETIMEDOUT, "rank 0: %s did not connect to %s within %g s", why,
					   c->where, timeout_s);
			goto out;
		}
		p[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < npend; i++)
			p[n++] = (struct pollfd){ .fd = pend[i].fd, .events = POLLIN };
		if (poll(p, (nfds_t)n, ms_left(deadline)) < 0 && errno != EINTR) {
			ret = fail(c, -errno, "rank 0: poll: %s", strerror(errno));
			goto out;
		}
	}
	ret = send_roster(c, pids, timeout_s, deadline);
out:
	for (int i = 0; i < npend; i++)
		conn_close(&pend[i]);
	if (lfd >= 0)
		close(lfd);
	free(p);
	free(pids);
	return ret;
}

/* One non-blocking connect to any of rank 0's addresses by deadline:
 * the socket, or -errno (why: the last failure, for the message). */
static int connect_once(const char *addr, int port, double deadline, char *why, size_t why_size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char service[16];
	int ret = -EHOSTUNREACH, gai;

	snprintf(service, sizeof(service), "%d", port);
	if ((gai = getaddrinfo(addr, service, &hints, &res))) {
		snprintf(why, why_size, "%s", gai_strerror(gai));
		return -EHOSTUNREACH;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
		struct pollfd p;
		int err = 0;
		socklen_t el = sizeof(err);

		if (fd < 0) {
			ret = -errno;
			snprintf(why, why_size, "socket: %s", strerror(errno));
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS) {
			err = errno;
		} else {
			p = (struct pollfd){ .fd = fd, .events = POLLOUT };
			/* at most a second per try: an address that drops
			 * packets must not hide the next one */
			double until = now_s() + 1.0 < deadline ? now_s() + 1.0 : deadline;

			if (poll(&p, 1, ms_left(until)) <= 0)
				err = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
				err = errno;
		}
		if (!err) {
			set_socket_opts(fd);
			freeaddrinfo(res);
			return fd;
		}
		close(fd);
		ret = -err;
		snprintf(why, why_size, "%s", strerror(err));
	}
	freeaddrinfo(res);
	return ret;
}

static int open_rank(struct gf_coll_ctl *c, const struct gf_coll_world *w, double timeout_s, double deadline)
{
	uint8_t hello[12 + HOST_MAX];
	char host[HOST_MAX + 1] = "", why[160] = "no try";
	size_t hl, off = 0;
	struct conn *k = &c->conn[0];
	int fd, ret;

	/* Rank 0 may start last: refused connections are retried. */
	while ((fd = connect_once(w->master_addr, w->port, deadline, why, sizeof(why))) < 0) {
		struct timespec pause = { 0, 100 * 1000 * 1000 };

		if (now_s() + 0.1 >= deadline)
			return fail(c, -ETIMEDOUT, "rank %d: could not connect to rank 0 at %s within %g s: %s",
				    c->rank, c->where, timeout_s, why);
		nanosleep(&pause, NULL);
	}
	k->fd = fd;
	gethostname(host, HOST_MAX);
	host[HOST_MAX] = '\0';
	hl = strlen(host);
	put32(hello, (uint32_t)c->rank);
	put32(hello + 4, (uint32_t)c->nranks);
	put32(hello + 8, (uint32_t)getpid());
	memcpy(hello + 12, host, hl);
	if ((ret = send_frame(fd, T_HELLO, 0, hello, 12 + hl, deadline)))
		return fail(c, ret, "rank %d: could not introduce itself to rank 0 at %s: %s", c->rank, c->where,
			    strerror(-ret));
	if ((ret = wait_root(c, T_ROSTER, "connect", timeout_s, verdict_deadline(timeout_s))))
		return ret;
	/* The roster: each rank's pid and host, so this rank names them too. */
	for (int r = 0; r < c->nranks; r++) {
		uint32_t pid;

		if (off + 5 > k->len || off + 5 + k->buf[off + 4] > k->len)
			return fail(c, -EPROTO, "rank 0 at %s sent a malformed roster", c->where);
		pid = get32(k->buf + off);
		hl = k->buf[off + 4];
		memcpy(host, k->buf + off + 5, hl > HOST_MAX ? HOST_MAX : hl);
		host[hl > HOST_MAX ? HOST_MAX : hl] = '\0';
		set_who(c, r, pid, host);
		off += 5 + hl;
	}
	conn_reset(k);
	return 0;
}

int gf_coll_ctl_open(const struct gf_coll_world *w, double timeout_s, struct gf_coll_ctl **out)
{
	struct gf_coll_ctl *c;
	double deadline = now_s() + timeout_s;
	int ret, n;

	if (!w || !out)
		return GF_NULL_ARG(!w ? "w" : "out");
	*out = NULL;
	if (!timeout_ok(timeout_s))
		return gf_arg_error(__func__, "timeout %g s: more than 0", timeout_s);
	if (w->nranks < 1 || w->rank < 0 || w->rank >= w->nranks || w->port < 1 || w->port > 65535 ||
	    !memchr(w->master_addr, '\0', sizeof(w->master_addr)))
		return gf_arg_error(__func__, "world: rank %d of %d, port %d", w->rank, w->nranks, w->port);
	if (!(c = calloc(1, sizeof(*c))))
		return gf_error(-ENOMEM, "out of memory");
	c->rank = w->rank;
	c->nranks = w->nranks;
	n = w->rank == 0 ? w->nranks : 1;
	c->conn = calloc((size_t)n, sizeof(*c->conn));
	c->who = calloc((size_t)w->nranks, sizeof(*c->who));
	if (!c->conn || !c->who) {
		gf_coll_ctl_close(c);
		return gf_error(-ENOMEM, "out of memory for %d ranks", w->nranks);
	}
	for (int i = 0; i < n; i++)
		c->conn[i].fd = -1;
	for (int r = 0; r < w->nranks; r++)
		snprintf(c->who[r], WHO_MAX, "rank %d", r);
	snprintf(c->where, sizeof(c->where), strchr(w->master_addr, ':') ? "[%s]:%d" : "%s:%d", w->master_addr,
		 w->port);
	if (w->rank == 0) {
		char host[HOST_MAX + 1] = "";

		gethostname(host, HOST_MAX);
		host[HOST_MAX] = '\0';
		set_who(c, 0, (uint32_t)getpid(), host);
		ret = w->nranks > 1 ? open_root(c, w->port, timeout_s, deadline) : 0;
	} else {
		ret = open_rank(c, w, timeout_s, deadline);
	}
	if (ret) {
		gf_coll_ctl_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* ---- steps ---- */

int gf_coll_ctl_bcast(struct gf_coll_ctl *c, void *buf, size_t len, double timeout_s, const char *what)
{
	double deadline = now_s() + timeout_s;
	int ret;

	if ((ret = check(c, timeout_s, __func__)))
		return ret;
	if (!what)
		what = "bcast";
	if (len > MAX_PAYLOAD || (len && !buf))
		return gf_arg_error(__func__, "'%s': %zu bytes at %p (at most %u)", what, len, buf, MAX_PAYLOAD);
	if (c->rank == 0) {
		for (int r = 1; r < c->nranks; r++)
			if ((ret = send_frame(c->conn[r].fd, T_BCAST, 0, buf, len, deadline)))
				return fail_peer(c, r, ret, what, timeout_s);
		return 0;
	}
	if ((ret = wait_root(c, T_BCAST, what, timeout_s, verdict_deadline(timeout_s))))
		return ret;
	if (c->conn[0].len != len) {
		conn_reset(&c->conn[0]);
		return fail(c, -EPROTO, "%s sent %u bytes for '%s', rank %d expected %zu", who(c, 0), c->conn[0].len,
			    what, c->rank, len);
	}
	if (len)
		memcpy(buf, c->conn[0].buf, len);
	conn_reset(&c->conn[0]);
	return 0;
}

/* gather and barrier: every rank's frame to rank 0, rank 0's verdict back. */
static int collect(struct gf_coll_ctl *c, uint32_t type, const void *mine, void *all, size_t len, double timeout_s,
		   const char *what)
{
	double deadline = now_s() + timeout_s;
	int ret;

	if (c->rank != 0) {
		if ((ret = send_frame(c->conn[0].fd, type, 0, mine, len, deadline)))
			return fail_peer(c, 0, ret, what, timeout_s);
		ret = wait_root(c, T_VERDICT, what, timeout_s, verdict_deadline(timeout_s));
		conn_reset(&c->conn[0]);
		return ret;
	}
	if ((ret = wait_all(c, type, what, timeout_s, deadline)))
		return ret;
	for (int r = 1; r < c->nranks; r++)
		if (c->conn[r].len != len)
			return fail(c, -EPROTO, "%s sent %u bytes for '%s', rank 0 expected %zu", who(c, r),
				    c->conn[r].len, what, len);
	if (len) {
		memcpy(all, mine, len);
		for (int r = 1; r < c->nranks; r++)
			memcpy((uint8_t *)all + (size_t)r * len, c->conn[r].buf, len);
	}
	for (int r = 1; r < c->nranks; r++)
		conn_reset(&c->conn[r]);
	return send_ok(c, what, timeout_s, deadline);
}

int gf_coll_ctl_gather(struct gf_coll_ctl *c, const void *mine, void *all, size_t len, double timeout_s,
		       const char *what)
{
	int ret;

	if ((ret = check(c, timeout_s, __func__)))
		return ret;
	if (!what)
		what = "gather";
	if (len > MAX_PAYLOAD || (len && !mine) || (len && c->rank == 0 && !all))
		return gf_arg_error(__func__, "'%s': %zu bytes, mine %p, all %p (at most %u; all on rank 0)", what,
				    len, mine, all, MAX_PAYLOAD);
	return collect(c, T_GATHER, mine, all, len, timeout_s, what);
}

int gf_coll_ctl_barrier(struct gf_coll_ctl *c, double timeout_s, const char *what)
{
	int ret;

	if ((ret = check(c, timeout_s, __func__)))
		return ret;
	return collect(c, T_BARRIER, NULL, NULL, 0, timeout_s, what ? what : "barrier");
}

void gf_coll_ctl_abort(struct gf_coll_ctl *c, const char *why)
{
	if (!c || c->err)
		return;
	if (!why)
		why = "aborted";
	if (c->rank == 0) {
		fail(c, -ECONNABORTED, "%s stopped: %s", who(c, 0), why);
		return;
	}
	/* Rank 0 relays it to every rank at its next step. */
	send_frame(c->conn[0].fd, T_ABORT, 0, why, strnlen(why, MSG_MAX), now_s() + 1.0);
	fail(c, -ECONNABORTED, "%s stopped: %s", who(c, c->rank), why);
}

const char *gf_coll_ctl_who(const struct gf_coll_ctl *c, int rank)
{
	if (!c || rank < 0 || rank >= c->nranks)
		return "rank ?";
	return c->who[rank];
}

void gf_coll_ctl_close(struct gf_coll_ctl *c)
{
	if (!c)
		return;
	if (c->conn)
		for (int i = 0; i < (c->rank == 0 ? c->nranks : 1); i++)
			conn_close(&c->conn[i]);
	free(c->conn);
	free(c->who);
	free(c);
}
