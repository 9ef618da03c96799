/* Quoting for shell, YAML, CEL and XML output, and comment text (quote.h). */
#include "core/quote.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define REPLACEMENT 0xfffdu

static int put_ok(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

/* The code point at s and its length in bytes; a byte that does not start
 * a well-formed sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF) is U+FFFD of length 1. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	uint32_t min, c;
	size_t n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, min = 0x80, c = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, min = 0x800, c = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, min = 0x10000, c = s[0] & 0x07u;
	else
		goto bad;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			goto bad;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return n;
bad:
	*cp = REPLACEMENT;
	return 1;
}

/* A code point as \xXX, \uXXXX or \UXXXXXXXX, the escapes YAML and CEL
 * share (both read \xXX as the code point U+00XX). */
static void put_u_escape(FILE *f, uint32_t c)
{
	if (c < 0x80)
		fprintf(f, "\\x%02x", c);
	else if (c > 0xffff)
		fprintf(f, "\\U%08x", c);
	else
		fprintf(f, "\\u%04x", c);
}

bool gf_shell_word_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_@%+=:,./-", c)))
			return false;
	}
	return true;
}

int gf_shell_quote(FILE *f, const char *s)
{
	if (gf_shell_word_plain(s)) {
		fputs(s, f);
		return put_ok(f);
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
	return put_ok(f);
}

/* YAML and CEL double-quoted strings share their escapes for what gpufeed
 * writes: \" \\ \xXX and \uXXXX.  Only printable ASCII is written as itself, so
 * no reader folds a line break (YAML 1.1 counts U+0085, U+2028 and U+2029
 * as ones) or meets a byte it must refuse. */
static int put_double_quoted(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		uint32_t c;

		p += utf8_next(p, &c);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (int)c);
		else if (c >= 0x20 && c < 0x7f)
			fputc((int)c, f);
		else
			put_u_escape(f, c);
	}
	fputc('"', f);
	return put_ok(f);
}

int gf_yaml_quote(FILE *f, const char *s)
{
	return put_double_quoted(f, s);
}

int gf_cel_quote(FILE *f, const char *s)
{
	return put_double_quoted(f, s);
}

/* XML 1.0 allows tab, LF, CR and U+0020 and up, less U+FFFE/U+FFFF (and
 * surrogates, which utf8_next never returns). */
static bool xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c != 0xfffe && c != 0xffff);
}

int gf_xml_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t c;

		p += utf8_next(p, &c);
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* Tab, LF and CR as references: an attribute value
			 * keeps them only so (XML 1.0 section 3.3.3). */
			if (c >= 0x20 && c < 0x7f)
				fputc((int)c, f);
			else
				fprintf(f, "&#x%x;", xml_char(c) ? c : REPLACEMENT);
		}
	}
	return put_ok(f);
}

int gf_comment_text(FILE *f, const char *s, bool xml)
{
	char prev = '\0';

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char out = c >= 0x20 && c < 0x7f ? (char)c : '?';

		/* "--" may not appear inside an XML comment. */
		if (xml && out == '-' && prev == '-')
			out = '?';
		fputc(out, f);
		prev = out;
	}
	return put_ok(f);
}
