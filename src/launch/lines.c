#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/launch.h>
#include "launch/lines.h"

int gf_lines_init(struct gf_lines *l, int fd, const char *prefix)
{
	size_t plen = strlen(prefix);

	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->buf = malloc(plen + GF_LAUNCH_LINE_MAX + 1);
	if (!l->buf)
		return -ENOMEM;
	memcpy(l->buf, prefix, plen);
	l->plen = plen;
	return 0;
}

void gf_lines_free(struct gf_lines *l)
{
	free(l->buf);
	l->buf = NULL;
}

/* The whole of p, retrying short writes; the first error is kept and the
 * rest of the output dropped (a closed pipe must not stop the ranks, which
 * go on being drained). */
static void put(struct gf_lines *l, const char *p, size_t n)
{
	while (n && !l->err) {
		ssize_t w = write(l->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			l->err = w < 0 ? -errno : -EIO;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Prefix and pending bytes as one write; nl adds the '\n' a cut line or a
 * stream's last partial line lacks. */
static void emit(struct gf_lines *l, bool nl)
{
	size_t n = l->plen + l->len;

	if (nl)
		l->buf[n++] = '\n';
	put(l, l->buf, n);
	l->after_cr = !nl && l->len && l->buf[l->plen + l->len - 1] == '\r';
	l->len = 0;
}

void gf_lines_feed(struct gf_lines *l, const char *data, size_t n)
{
	while (n) {
		size_t room = GF_LAUNCH_LINE_MAX - l->len, take = n < room ? n : room, end;
		const char *stop;

		if (l->after_cr && !l->len && *data == '\n') {
			put(l, "\n", 1);	/* the rest of "\r\n" */
			l->after_cr = false;
			data++;
			n--;
			continue;
		}
		l->after_cr = false;
		stop = memchr(data, '\n', take);
		end = stop ? (size_t)(stop - data) : take;
		stop = memchr(data, '\r', end);
		if (stop)
			end = (size_t)(stop - data);
		if (end < take)
			end++;	/* the terminator stays with its line */
		memcpy(l->buf + l->plen + l->len, data, end);
		l->len += end;
		data += end;
		n -= end;
		if (l->buf[l->plen + l->len - 1] == '\n' || l->buf[l->plen + l->len - 1] == '\r')
			emit(l, false);
		else if (l->len == GF_LAUNCH_LINE_MAX)
			emit(l, true);
	}
}

void gf_lines_flush(struct gf_lines *l)
{
	if (l->len)
		emit(l, true);
}
