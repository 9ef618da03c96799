/* Kubernetes object names (RFC 1123, as the API server checks them): a
 * node's, a NodeFeature's, a Pod's and a ResourceClaim's name are DNS
 * subdomains.  Checked before writing, so an object gpufeed writes is never
 * one the API server rejects for its name. */
#ifndef GF_CORE_DNSNAME_H
#define GF_CORE_DNSNAME_H

#include <stdbool.h>

/* At most 253 characters: parts of [a-z0-9-], each starting and ending
 * with [a-z0-9], joined by '.'. */
bool gf_dns_subdomain(const char *s);

#endif
