/* Wrapping text to a width (wrap.h). */
#include <stdbool.h>
#include <string.h>

#include <gpufeed/common.h>
#include "core/wrap.h"

int gf_wrap_width(unsigned flags)
{
	int w = GF_PRINT_WIDTH_OF(flags);

	if (!w)
		return GF_PRINT_WIDTH_DEFAULT;
	return w < GF_PRINT_WIDTH_MIN ? GF_PRINT_WIDTH_MIN : w;
}

static bool continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/* Columns of the first len bytes of s. */
static int columns(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += !continuation(s[i]);
	return n;
}

int gf_wrap_columns(const char *text)
{
	return text ? columns(text, strlen(text)) : 0;
}

/* Bytes of s that fill at most room columns, ending after a '/', ',', ';'
 * or '=' when one lies in the second half (else at room), never inside a
 * UTF-8 character; at least one character. */
static size_t cut(const char *s, size_t len, int room)
{
	size_t end = 0, at = 0;
	int cols = 0;

	while (end < len && cols < room) {
		end++;
		while (end < len && continuation(s[end]))
			end++;
		cols++;
		if (strchr("/,;=", s[end - 1]) && cols * 2 >= room)
			at = end;
	}
	return at && end < len ? at : end;
}

static void newline(FILE *f, int indent)
{
	fprintf(f, "\n%*s", indent, "");
}

void gf_wrap_print(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text ? text : "";
	bool line_empty = true;	/* nothing of text on this line yet */
	int spaces = 0;		/* between the last word and the next */

	if (indent > width / 2)	/* a narrow terminal: keep room for the words */
		indent = width / 2;
	while (*p) {
		size_t len, n;
		int wcols;

		if (*p == ' ') {
			spaces++;
			p++;
			continue;
		}
		len = strcspn(p, " ");
		wcols = columns(p, len);
		if (!line_empty && col + spaces + wcols > width) {
			newline(f, indent);	/* no space left at the end of a line */
			col = indent;
			line_empty = true;
		} else if (!line_empty) {
			fprintf(f, "%*s", spaces, "");
			col += spaces;
		}
		spaces = 0;
		if (col + wcols <= width) {
			fwrite(p, 1, len, f);
			col += wcols;
			p += len;
			line_empty = false;
			continue;
		}
		/* longer than a whole line: as much as fits, the rest on the next */
		n = cut(p, len, width - col > 1 ? width - col : 1);
		fwrite(p, 1, n, f);
		p += n;
		newline(f, indent);
		col = indent;
		line_empty = true;
	}
	fputc('\n', f);
}
