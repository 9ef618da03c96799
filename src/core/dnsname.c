/* RFC 1123 names (dnsname.h), as k8s.io/apimachinery's IsDNS1123Subdomain
 * defines them (its parts have no length limit of their own there, only the
 * 253 of the whole). */
#include "core/dnsname.h"

#include <string.h>

static bool alnum_lower(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* The n characters at s form one part ([a-z0-9] at both ends, '-' inside). */
static bool label_n(const char *s, size_t n)
{
	if (n < 1 || !alnum_lower(s[0]) || !alnum_lower(s[n - 1]))
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!alnum_lower(s[i]) && s[i] != '-')
			return false;
	return true;
}

bool gf_dns_subdomain(const char *s)
{
	if (strlen(s) > 253)
		return false;
	for (;;) {
		size_t n = strcspn(s, ".");

		if (!label_n(s, n))
			return false;
		if (!s[n])
			return true;
		s += n + 1;
	}
}
