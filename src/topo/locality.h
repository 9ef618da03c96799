/* The locality override (GPUFEED_PCI_LOCALITY, --pci-locality) for callers
 * that have no machine model, such as xfer placing its staging pool: the
 * same parser and the same matching as the model's (locality.c), so one
 * spec means the same node everywhere. */
#ifndef GF_TOPO_LOCALITY_H
#define GF_TOPO_LOCALITY_H

/* The node the rules of `spec` ("0000:3b:00.0=1;0000:80-ff=1") give the
 * device chain[0], or, as in the model, the first of its upstream bridges
 * chain[1..n-1] (nearest first) that a rule names: a rule for a bridge
 * covers what is below it.  0 with *node (-1: no rule matches), or -EINVAL
 * naming `origin` (the variable or option) when spec is malformed. */
int gf_locality_override(const char *spec, const char *origin, const char *const *chain, int n, int *node);

#endif
