/* A small HTTP/1.1 server for /metrics (http.h).  What it must survive is
 * written down in RFC 9112 ("HTTP/1.1", message syntax) and in what
 * Prometheus asks of a target ("Writing exporters", prometheus.io): answer
 * GET, close cleanly, never let one client hold the others.  No keep-alive:
 * a scrape every few seconds gains nothing from it, and a closed
 * connection is a slot free for the next client. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "exporter/http.h"

struct conn {
	int fd;			/* -1: a free slot */
	char req[GF_HTTP_MAX_REQUEST];
	size_t got;
	char *resp;		/* the whole response once the request is read */
	size_t len, sent;
	double read_deadline, deadline;	/* CLOCK_MONOTONIC seconds */
};

struct gf_http {
	int fd;
	char address[80];
	gf_http_metrics_fn *metrics;
	void *arg;
	struct conn conns[GF_HTTP_MAX_CONNS];
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>gpufeed exporter</title></head>\n"
	"<body><h1>gpufeed exporter</h1>\n"
	"<p>The machine's GPUs, NUMA nodes, disks, NICs and page cache, and gpufeed check's results, "
	"as Prometheus metrics: <a href=\"/metrics\">/metrics</a>.</p>\n"
	"<p>Metric names and labels: docs/exporter.md in gpufeed's sources.</p>\n</body></html>\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "ADDR:PORT" into a socket address.  ADDR empty: every address (IPv6's
 * wildcard, which takes IPv4 too unless the host says otherwise). */
static int parse_spec(const char *spec, struct sockaddr_storage *ss, socklen_t *sl)
{
	char host[64];
	const char *port, *end;
	char *stop;
	unsigned long p;

	if (spec[0] == '[') {
		end = strchr(spec, ']');
		if (!end || end[1] != ':')
			return gf_error(-EINVAL, "listen address '%s': an IPv6 address is written [ADDR]:PORT", spec);
		snprintf(host, sizeof(host), "%.*s", (int)(end - spec - 1 < 63 ? end - spec - 1 : 63), spec + 1);
		port = end + 2;
	} else {
		end = strrchr(spec, ':');
		if (!end)
			return gf_error(-EINVAL, "listen address '%s': not ADDR:PORT (e.g. 127.0.0.1:9400, [::1]:9400, :9400)",
					spec);
		if (memchr(spec, ':', (size_t)(end - spec)))
			return gf_error(-EINVAL, "listen address '%s': an IPv6 address is written [ADDR]:PORT", spec);
		snprintf(host, sizeof(host), "%.*s", (int)(end - spec < 63 ? end - spec : 63), spec);
		port = end + 1;
	}
	errno = 0;
	p = strtoul(port, &stop, 10);
	if (!*port || *stop || errno || p > 65535 || *port == '-' || *port == '+')
		return gf_error(-EINVAL, "listen address '%s': '%s' is not a port (0 to 65535)", spec, port);
	memset(ss, 0, sizeof(*ss));
	if (!host[0] || strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
		a->sin6_addr = in6addr_any;
		if (host[0] && inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return gf_error(-EINVAL, "listen address '%s': '%s' is not an IPv6 address", spec, host);
		*sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return gf_error(-EINVAL, "listen address '%s': '%s' is not an IPv4 address (numeric: no names)",
					spec, host);
		*sl = sizeof(*a);
	}
	return 0;
}

int gf_http_check_spec(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	return parse_spec(spec, &ss, &sl);
}

static void format_address(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(a->sin_port));
	}
}

/* The wildcard on a host without IPv6: IPv4's wildcard, same port. */
static void ipv4_wildcard(struct sockaddr_storage *ss, socklen_t *sl)
{
	uint16_t port = ((struct sockaddr_in6 *)ss)->sin6_port;
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	a->sin_family = AF_INET;
	a->sin_port = port;
	a->sin_addr.s_addr = htonl(INADDR_ANY);
	*sl = sizeof(*a);
}

int gf_http_open(const char *spec, gf_http_metrics_fn *metrics, void *arg, struct gf_http **out)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct gf_http *h;
	int one = 1, zero = 0, fd, ret;
	bool wildcard;

	*out = NULL;
	if ((ret = parse_spec(spec, &ss, &sl)))
		return ret;
	wildcard = ss.ss_family == AF_INET6 &&
		   !memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, &in6addr_any, sizeof(in6addr_any));
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 && wildcard && errno == EAFNOSUPPORT) {
		ipv4_wildcard(&ss, &sl);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		return gf_error(-errno, "listen address '%s': socket: %s", spec, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6 && wildcard)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 64)) {
		ret = -errno;
		close(fd);
		return gf_error(ret, "listen address '%s': %s%s", spec, strerror(-ret),
				ret == -EADDRINUSE ? " (another program has that port)" : "");
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (!(h = calloc(1, sizeof(*h)))) {
		close(fd);
		return gf_error(-ENOMEM, "listen address '%s': out of memory", spec);
	}
	h->fd = fd;
	h->metrics = metrics;
	h->arg = arg;
	for (int i = 0; i < GF_HTTP_MAX_CONNS; i++)
		h->conns[i].fd = -1;
	format_address(&ss, h->address, sizeof(h->address));
	*out = h;
	return 0;
}

int gf_http_address(const struct gf_http *h, char *buf, size_t size)
{
	if (gf_strlcpy(buf, h->address, size) >= size)
		return gf_error(-ENAMETOOLONG, "the address %s does not fit %zu bytes", h->address, size);
	return 0;
}

static void drop(struct conn *c)
{
	close(c->fd);
	free(c->resp);
	c->resp = NULL;
	c->fd = -1;
	c->got = c->len = c->sent = 0;
}

/* The response, whole: status line, headers, body (none for HEAD). */
static void respond(struct conn *c, int status, const char *reason, const char *type, const char *extra,
		    const char *body, size_t len, bool head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
			 status, reason, type, len, extra);
	size_t body_len = head ? 0 : len;

	if (!(c->resp = malloc((size_t)n + body_len))) {
		drop(c);
		return;
	}
	memcpy(c->resp, hdr, (size_t)n);
	if (body_len)
		memcpy(c->resp + n, body, body_len);
	c->len = (size_t)n + body_len;
	c->sent = 0;
}

static void error_page(struct conn *c, int status, const char *reason, const char *extra, bool head)
{
	char body[96];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, reason);

	respond(c, status, reason, "text/plain; charset=utf-8", extra, body, (size_t)n, head);
}

/* The request line of a request read whole: which page it asks for. */
static void route(struct gf_http *h, struct conn *c)
{
	char method[16], target[2048], version[16];
	bool head;

	c->req[c->got] = '\0';
	if (sscanf(c->req, "%15[A-Z] %2047[^ \r\n] %15[^ \r\n]", method, target, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7)) {
		error_page(c, 400, "Bad Request", "", false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		error_page(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n", false);
		return;
	}
	target[strcspn(target, "?#")] = '\0';
	if (!strcmp(target, "/metrics")) {
		char *body = NULL;
		size_t len = 0;

		if (h->metrics(h->arg, &body, &len)) {
			error_page(c, 503, "Service Unavailable", "", head);
			return;
		}
		/* The text format's version, as Prometheus asks for it
		 * ("Exposition formats", prometheus.io). */
		respond(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", "", body, len, head);
		free(body);
	} else if (!strcmp(target, "/")) {
		respond(c, 200, "OK", "text/html; charset=utf-8", "", index_page, sizeof(index_page) - 1, head);
	} else {
		error_page(c, 404, "Not Found", "", head);
	}
}

static void on_readable(struct gf_http *h, struct conn *c)
{
	ssize_t n = recv(c->fd, c->req + c->got, sizeof(c->req) - 1 - c->got, 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		drop(c);
		return;
	}
	if (n < 0)
		return;
	/* A NUL would hide the rest from strstr: the request's end would
	 * never be seen and the client left waiting for the read timeout. */
	if (memchr(c->req + c->got, '\0', (size_t)n)) {
		error_page(c, 400, "Bad Request", "", false);
		return;
	}
	c->got += (size_t)n;
	c->req[c->got] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		route(h, c);
	else if (c->got >= sizeof(c->req) - 1)
		error_page(c, 431, "Request Header Fields Too Large", "", false);
}

static void on_writable(struct conn *c)
{
	ssize_t n = send(c->fd, c->resp + c->sent, c->len - c->sent, MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		drop(c);
		return;
	}
	c->sent += (size_t)n;
	if (c->sent == c->len) {
		/* Whatever the client sent past its request is left unread:
		 * shut our side first so the response is not reset away. */
		shutdown(c->fd, SHUT_WR);
		drop(c);
	}
}

/* A free slot, or else the one of a client that has been longest sending
 * its request (a slow or idle one: Prometheus sends its whole request at
 * once), closed; NULL when every slot is answering a request. */
static struct conn *free_slot(struct gf_http *h)
{
	struct conn *oldest = NULL;

	for (int i = 0; i < GF_HTTP_MAX_CONNS; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd < 0)
			return c;
		if (!c->resp && (!oldest || c->read_deadline < oldest->read_deadline))
			oldest = c;
	}
	if (oldest)
		drop(oldest);
	return oldest;
}

/* Takes every pending connection.  With every slot taken, the slowest
 * client in the middle of its request makes room, so a crowd of idle
 * connections cannot keep a scraper out; when all are being answered, the
 * newcomer is told 503 in one non-blocking write. */
static void on_accept(struct gf_http *h)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
	double t = now();

	for (;;) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		if (!(c = free_slot(h))) {
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL)) {
				/* best effort: the client may have gone */
			}
			close(fd);
			continue;
		}
		c->fd = fd;
		c->got = 0;
		c->read_deadline = t + GF_HTTP_READ_TIMEOUT_S;
		c->deadline = t + GF_HTTP_TIMEOUT_S;
	}
}

int gf_http_serve(struct gf_http *h, int stop_fd)
{
	struct pollfd pfd[GF_HTTP_MAX_CONNS + 2];
	int slot[GF_HTTP_MAX_CONNS + 2];

	for (;;) {
		double t = now(), next = -1;
		int n = 0, timeout, ready;

		pfd[n++] = (struct pollfd){ .fd = stop_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = h->fd, .events = POLLIN };
		for (int i = 0; i < GF_HTTP_MAX_CONNS; i++) {
			struct conn *c = &h->conns[i];
			double d;

			if (c->fd < 0)
				continue;
			d = c->resp ? c->deadline : c->read_deadline;
			if (t >= d) {
				drop(c);	/* too slow: its slot goes to someone else */
				continue;
			}
			next = next < 0 || d < next ? d : next;
			slot[n] = i;
			pfd[n++] = (struct pollfd){ .fd = c->fd, .events = c->resp ? POLLOUT : POLLIN };
		}
		timeout = next < 0 ? -1 : (int)((next - t) * 1000) + 1;
		ready = poll(pfd, (nfds_t)n, timeout);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return gf_error(-errno, "the HTTP server's poll: %s", strerror(errno));
		if (pfd[0].revents)
			return 0;
		if (pfd[1].revents & POLLIN)
			on_accept(h);
		for (int k = 2; k < n; k++) {
			struct conn *c = &h->conns[slot[k]];

			if (!pfd[k].revents || c->fd != pfd[k].fd)
				continue;
			if (c->resp)
				on_writable(c);
			else if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
				on_readable(h, c);
			if (c->fd >= 0 && c->resp && c->sent == 0 && c->len)
				on_writable(c);	/* most responses fit the socket's buffer at once */
		}
	}
}

void gf_http_close(struct gf_http *h)
{
	if (!h)
		return;
	for (int i = 0; i < GF_HTTP_MAX_CONNS; i++)
		if (h->conns[i].fd >= 0)
			drop(&h->conns[i]);
	close(h->fd);
	free(h);
}
