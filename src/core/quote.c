/* Quoting for shell, YAML and XML output (quote.h). */
#include "core/quote.h"

#include <errno.h>
#include <string.h>

static int put_ok(FILE *f)
{
	return ferror(f) ? -EIO : 0;
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

int gf_yaml_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
	return put_ok(f);
}

int gf_xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
	}
	return put_ok(f);
}
