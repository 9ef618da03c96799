/* Parsers of the /proc lines verify reads: a task's stat, one numa_maps
 * line, an fd's link target.  No I/O here. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "verify/verify_internal.h"

/* Field 39 of proc(5)'s stat is `processor`; fields 1 and 2 are the pid and
 * the comm in parentheses, so it is the 37th field after the comm. */
#define STAT_PROCESSOR_AFTER_COMM 37

int verify_parse_stat(const char *line, char *comm, size_t size, int *cpu)
{
	/* The comm may hold spaces and parentheses ("a) (b"): it runs from the
	 * first '(' to the last ')', which the kernel writes after it. */
	const char *open = strchr(line, '('), *close = strrchr(line, ')'), *p;
	size_t n;

	if (!open || !close || close < open)
		return -EBADMSG;
	n = (size_t)(close - open - 1);
	if (n >= size)
		n = size - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	p = close + 1;
	for (int field = 1; field < STAT_PROCESSOR_AFTER_COMM; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EBADMSG;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	char *end;
	long v = strtol(p, &end, 10);

	if (end == p || v < -1 || v >= GF_CPUSET_MAX)
		return -EBADMSG;
	*cpu = (int)v;
	return 0;
}

/* The policy follows the address and may hold one space: mpol_to_str()
 * writes "prefer (many)" and "weighted interleave", then "=static" or
 * "=relative" flags, then ":nodes". */
static const char *parse_policy(const char *p, char *out, size_t size)
{
	static const char *const spaced[] = { "prefer (many)", "weighted interleave" };
	size_t n = strcspn(p, " \n");

	for (size_t i = 0; i < sizeof(spaced) / sizeof(spaced[0]); i++)
		if (gf_starts_with(p, spaced[i]))
			n = strlen(spaced[i]) + strcspn(p + strlen(spaced[i]), " \n");
	if (!n)
		return NULL;
	snprintf(out, size, "%.*s", (int)n, p);
	return p + n;
}

int verify_parse_maps_line(const char *line, struct verify_maps_line *out, unsigned long long *bytes, int nmax)
{
	unsigned long long pages[64] = { 0 }, page_kb = 4;
	int node[64], nn = 0;
	const char *p = line;

	memset(out, 0, sizeof(*out));
	if (!isxdigit((unsigned char)*p))
		return -EBADMSG;
	p += strspn(p, "0123456789abcdefABCDEF");
	if (*p != ' ' || !(p = parse_policy(p + 1, out->policy, sizeof(out->policy))))
		return -EBADMSG;
	while (*p && *p != '\n') {
		size_t len;
		char *end;

		p += strspn(p, " ");
		len = strcspn(p, " \n");
		if (gf_starts_with(p, "file="))
			out->file = true;	/* the path may hold spaces: a later
						 * word is still key=value or a keyword */
		else if (gf_starts_with(p, "kernelpagesize_kB="))
			page_kb = strtoull(p + 18, NULL, 10);
		else if (p[0] == 'N' && isdigit((unsigned char)p[1]) && nn < 64) {
			long id = strtol(p + 1, &end, 10);

			if (*end == '=' && id >= 0) {
				node[nn] = (int)id;
				pages[nn++] = strtoull(end + 1, NULL, 10);
			}
		}
		p += len;
	}
	for (int i = 0; i < nn; i++) {
		unsigned long long b = pages[i] * page_kb * 1024;

		out->bytes += b;
		if (bytes && node[i] < nmax)
			bytes[node[i]] += b;
	}
	return 0;
}

/* A minor number: digits only (no sign, no hex), below the cap base. */
static int minor_of(const char *digits)
{
	size_t n = strspn(digits, "0123456789");

	if (!n || digits[n] || n > 6)
		return -1;
	return atoi(digits);
}

int verify_dev_minor(const char *target)
{
	static const char cap[] = "/dev/nvidia-caps/nvidia-cap", gpu[] = "/dev/nvidia";
	int m;

	if (gf_starts_with(target, cap))
		return (m = minor_of(target + strlen(cap))) < 0 ? -1 : VERIFY_CAP_BASE + m;
	/* /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-modeset: not a GPU. */
	if (gf_starts_with(target, gpu))
		return minor_of(target + strlen(gpu));
	return -1;
}
