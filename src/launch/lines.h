/* One child stream (its stdout or its stderr) cut into lines, each written
 * with the rank's prefix in a single write, so lines of different ranks
 * never mix.  A line ends at '\n' or '\r' (a progress bar's redraw keeps its
 * prefix; the '\n' of a "\r\n" pair is written bare, not as an empty line),
 * at GF_LAUNCH_LINE_MAX bytes (the piece becomes a line of its own) or at
 * the end of the stream (a '\n' is added so the next rank's line starts on
 * a line of its own). */
#ifndef GF_LAUNCH_LINES_H
#define GF_LAUNCH_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct gf_lines {
	int fd;			/* where the lines go */
	char *buf;		/* prefix, then the pending line, then room for '\n' */
	size_t plen;		/* prefix length */
	size_t len;		/* pending bytes after the prefix */
	bool after_cr;		/* the last line written ended with '\r' */
	int err;		/* first write error (-errno); later lines are dropped */
};

/* prefix may be "" (no prefix).  0 or -ENOMEM. */
int gf_lines_init(struct gf_lines *l, int fd, const char *prefix);
void gf_lines_feed(struct gf_lines *l, const char *data, size_t n);
/* End of stream: the partial line, if any, with a '\n' added. */
void gf_lines_flush(struct gf_lines *l);
void gf_lines_free(struct gf_lines *l);

#endif
