/* The Prometheus text exposition format (core/prom.h). */
#include <math.h>
#include <stdio.h>

#include "core/prom.h"

/* A label value escapes \, " and newline; so does HELP text, but for ". */
static void escaped(FILE *f, const char *s, int quote)
{
	for (; s && *s; s++) {
		if (*s == '\\' || (quote && *s == '"'))
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

void gf_prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	escaped(f, help, 0);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

void gf_prom_sample(FILE *f, const char *name, const char *const *labels, double value)
{
	fputs(name, f);
	if (labels && labels[0]) {
		fputc('{', f);
		for (const char *const *l = labels; l[0]; l += 2) {
			fprintf(f, "%s%s=\"", l == labels ? "" : ",", l[0]);
			escaped(f, l[1], 1);
			fputc('"', f);
		}
		fputc('}', f);
	}
	if (isnan(value))
		fputs(" NaN\n", f);
	else if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", f);
	else if (value == (double)(long long)value && fabs(value) < 9e15)
		fprintf(f, " %lld\n", (long long)value);
	else
		fprintf(f, " %.17g\n", value);
}
