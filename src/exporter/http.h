/* The exporter's HTTP/1.1 server: GET (and HEAD) of /metrics and of a short
 * page at /, 404 for any other path, 405 for any other method.  One thread,
 * non-blocking sockets and poll(2), so a slow client holds one slot of
 * GF_HTTP_MAX_CONNS and never the others (with every slot taken, the
 * client longest in the middle of its request makes room for a new one):
 * a request must arrive whole
 * within GF_HTTP_READ_TIMEOUT_S and be at most GF_HTTP_MAX_REQUEST bytes
 * (431 past that), the whole exchange within GF_HTTP_TIMEOUT_S; every
 * response closes its connection. */
#ifndef GF_EXPORTER_HTTP_H
#define GF_EXPORTER_HTTP_H

#include <stddef.h>

#define GF_HTTP_MAX_REQUEST 8192
#define GF_HTTP_MAX_CONNS 64
#define GF_HTTP_READ_TIMEOUT_S 5.0
#define GF_HTTP_TIMEOUT_S 15.0

/* The body of /metrics: a malloc'ed copy in *body (its length in *len),
 * or -errno (the server answers 503). */
typedef int gf_http_metrics_fn(void *arg, char **body, size_t *len);

struct gf_http;

/* 0 when spec parses as "ADDR:PORT", else -EINVAL naming it. */
int gf_http_check_spec(const char *spec);
/* Binds and listens on "ADDR:PORT" (ADDR numeric IPv4, [IPv6], or empty
 * for every address: IPv6 and IPv4 on one socket where the host has IPv6).
 * -EINVAL for a malformed spec, else bind's errno; the message names spec. */
int gf_http_open(const char *spec, gf_http_metrics_fn *metrics, void *arg, struct gf_http **out);
/* "127.0.0.1:9400" or "[::]:9400", the port as bound. */
int gf_http_address(const struct gf_http *h, char *buf, size_t size);
/* Serves until stop_fd is readable.  0, or -errno when poll itself fails. */
int gf_http_serve(struct gf_http *h, int stop_fd);
void gf_http_close(struct gf_http *h);

#endif
