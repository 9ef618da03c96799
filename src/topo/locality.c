/* Where a PCI device lives: its NUMA node and local CPUs, each with the
 * source it came from.
 *
 * Order of trust for the node: an explicit override (VMs hide locality, as
 * hwloc's HWLOC_PCI_LOCALITY acknowledges), the device's (or its upstream
 * bridge's) sysfs numa_node, NVML's memory affinity for GPUs, and on a
 * machine with a single NUMA node, node 0 — a fact, not a guess.  -1 only
 * when none of these answers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/pciaddr.h"
#include "core/strutil.h"
#include "topo/locality.h"
#include "topo/topo_internal.h"

static bool parse_spec(const char *spec, struct gf_locality_rule *r)
{
	struct gf_pciaddr a;
	const char *p = spec;

	r->dev = r->fn = -1;
	if (gf_pciaddr_parse(spec, &a)) {
		r->domain = a.domain;
		r->bus_lo = r->bus_hi = a.bus;
		r->dev = (int)a.dev;
		r->fn = (int)a.fn;
		return true;
	}
	/* domain:bus or domain:bus-bus */
	if (!gf_hex_field(&p, 8, &r->domain) || *p++ != ':' || !gf_hex_field(&p, 2, &r->bus_lo))
		return false;
	r->bus_hi = r->bus_lo;
	if (*p == '-') {
		p++;
		if (!gf_hex_field(&p, 2, &r->bus_hi) || r->bus_hi < r->bus_lo)
			return false;
	}
	return *p == '\0';
}

int gf_locality_parse(struct gf_locality_rules *rules, const char *text, const char *origin)
{
	char buf[4096], *save = NULL;

	if (strlen(text) >= sizeof(buf))
		return gf_error(-EINVAL, "%s: too long", origin);
	gf_strlcpy(buf, text, sizeof(buf));
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *eq, *spec = gf_strip(tok);
		struct gf_locality_rule r;
		long long node;

		if (!*spec)
			continue;
		eq = strchr(spec, '=');
		if (!eq)
			return gf_error(-EINVAL, "%s: '%s': expected PCI=NODE, e.g. 0000:3b:00.0=1 or 0000:80-ff=1",
					origin, spec);
		*eq = '\0';
		if (!parse_spec(gf_strip(spec), &r) || gf_parse_ll(gf_strip(eq + 1), &node) || node < 0 ||
		    node >= GF_CPUSET_MAX)
			return gf_error(-EINVAL, "%s: '%s=%s': expected PCI=NODE, e.g. 0000:3b:00.0=1 or 0000:80-ff=1",
					origin, spec, eq + 1);
		if (rules->n == GF_MAX_LOCALITY_RULES)
			return gf_error(-EINVAL, "%s: more than %d rules", origin, GF_MAX_LOCALITY_RULES);
		r.node = (int)node;
		rules->rule[rules->n++] = r;
	}
	return 0;
}

GF_API int gf_pci_locality_check(const char *spec)
{
	struct gf_locality_rules rules = { .n = 0 };

	if (!spec)
		return GF_NULL_ARG("spec");
	return gf_locality_parse(&rules, spec, "--pci-locality");
}

/* The node of the first rule naming the device at bdf, -1 when none does. */
static int rule_match(const struct gf_locality_rules *rules, const char *bdf)
{
	struct gf_pciaddr a;

	if (!gf_pciaddr_parse(bdf, &a))
		return -1;
	for (int i = 0; i < rules->n; i++) {
		const struct gf_locality_rule *r = &rules->rule[i];

		if (r->domain == a.domain && a.bus >= r->bus_lo && a.bus <= r->bus_hi &&
		    (r->dev < 0 || (r->dev == (int)a.dev && r->fn == (int)a.fn)))
			return r->node;
	}
	return -1;
}

static int rule_node(const struct gf_ctx *c, int pci)
{
	const struct gf_topo *t = c->t;

	/* A rule for a bridge covers everything below it. */
	for (int x = pci; x >= 0; x = t->pci[x].parent) {
		int node = rule_match(&c->locality, t->pci[x].bdf);

		if (node >= 0)
			return node;
	}
	return -1;
}

int gf_locality_override(const char *spec, const char *origin, const char *const *chain, int n, int *node)
{
	struct gf_locality_rules rules = { .n = 0 };
	int ret = gf_locality_parse(&rules, spec, origin);

	*node = -1;
	for (int i = 0; !ret && i < n && *node < 0; i++)
		*node = rule_match(&rules, chain[i]);
	return ret;
}

/* The node of every PCI device, GPU or not (gf_pci_dev.local_node), by the
 * same rules as a GPU's short of NVML: xfer and bench ask the model for a
 * device the model does not call a GPU (a stand-in, or one NVML hides).
 * Quiet: a rule naming a node the machine lacks is warned about once, for
 * the GPU, NIC or disk it concerns, by gf_locality_of. */
void gf_locality_all(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;

	for (int i = 0; i < t->npci; i++) {
		struct gf_pci_dev *d = &t->pci[i];
		int node = rule_node(c, i);

		d->local_node = -1;
		if (node >= 0 && gf_numa_index(t, node) >= 0) {
			d->local_node = node;
			d->local_node_source = GF_SRC_OVERRIDE;
			continue;
		}
		for (int x = i; x >= 0 && d->local_node < 0; x = t->pci[x].parent)
			if (t->pci[x].numa_node >= 0) {
				d->local_node = t->pci[x].numa_node;
				d->local_node_source = GF_SRC_SYSFS;
			}
		if (d->local_node < 0 && t->numa.nnodes == 1) {
			d->local_node = t->numa.node[0].id;
			d->local_node_source = GF_SRC_SINGLE_NODE;
		}
	}
}

void gf_locality_of(struct gf_ctx *c, int pci, const struct gf_nvml_gpu *nvml, struct gf_locality *out)
{
	const struct gf_topo *t = c->t;
	const struct gf_pci_dev *d = &t->pci[pci];
	int node, ni;

	memset(out, 0, sizeof(*out));
	out->node = -1;
	node = rule_node(c, pci);
	if (node >= 0 && gf_numa_index(t, node) < 0) {
		gf_warn(c, "the locality override puts %s on node %d, which this machine does not have: ignored",
			d->bdf, node);
		node = -1;
	}
	if (node >= 0) {
		out->node = node;
		out->node_source = GF_SRC_OVERRIDE;
		ni = gf_numa_index(t, node);
		if (ni >= 0) {
			/* The device's own local_cpulist is what the VM got wrong. */
			out->cpus = t->numa.node[ni].cpus;
			out->cpus_source = GF_SRC_NODE_CPUS;
		}
		return;
	}
	for (int x = pci; x >= 0; x = t->pci[x].parent) {
		if (t->pci[x].numa_node >= 0) {
			out->node = t->pci[x].numa_node;
			out->node_source = GF_SRC_SYSFS;
			break;
		}
	}
	if (out->node < 0 && nvml && nvml->memory_affinity_known &&
	    gf_cpuset_count(&nvml->memory_affinity) == 1) {
		out->node = gf_cpuset_first(&nvml->memory_affinity);
		out->node_source = GF_SRC_NVML;
	}
	if (out->node < 0 && t->numa.nnodes == 1) {
		out->node = t->numa.node[0].id;
		out->node_source = GF_SRC_SINGLE_NODE;
	}
	if (d->local_cpus_known) {
		out->cpus = d->local_cpus;
		out->cpus_source = GF_SRC_SYSFS;
	} else if (nvml && nvml->cpu_affinity_known) {
		out->cpus = nvml->cpu_affinity;
		out->cpus_source = GF_SRC_NVML;
	} else if (out->node >= 0 && (ni = gf_numa_index(t, out->node)) >= 0 &&
		   !gf_cpuset_empty(&t->numa.node[ni].cpus)) {
		out->cpus = t->numa.node[ni].cpus;
		out->cpus_source = GF_SRC_NODE_CPUS;
	}
}
