/* NUMA nodes: CPUs, memory, distances, and the nodes we may allocate on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

#define NODE_DIR "/sys/devices/system/node"

static void read_node_mem(struct gf_ctx *c, struct gf_numa_node *n)
{
	char path[128], *text, *p;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", n->id);
	if (gf_read_opt(c, path, &text, NULL))
		return;
	/* "Node 0 MemTotal:       527988124 kB" */
	p = strstr(text, "MemTotal:");
	if (!p) {
		gf_warn(c, "%s%s: no 'MemTotal:' line", c->fs.root, path);
	} else if (!gf_meminfo_bytes(p + 9, &n->memory_bytes)) {
		p += 9 + strspn(p + 9, " \t");
		gf_warn(c, "%s%s: MemTotal: '%.*s' is not a size in kB: memory unknown", c->fs.root, path,
			(int)strcspn(p, "\n"), p);
	}
	free(text);
}

static void read_distances(struct gf_ctx *c, struct gf_numa_node *n, int nnodes)
{
	char path[128], buf[4096], *save = NULL, *tok;
	int k = 0;

	n->distance = malloc((size_t)nnodes * sizeof(int));
	if (!n->distance)
		return;
	for (int i = 0; i < nnodes; i++)
		n->distance[i] = -1;
	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", n->id);
	if (gf_read_opt_str(c, path, buf, sizeof(buf)))
		return;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), k++) {
		long long d;

		if (gf_parse_ll(tok, &d) || d < 0 || d > 255 || k >= nnodes) {
			gf_warn(c, "%s%s: expected %d distances, got '%s'", c->fs.root, path, nnodes, buf);
			for (int i = 0; i < nnodes; i++)
				n->distance[i] = -1;
			return;
		}
		n->distance[k] = (int)d;
	}
	if (k != nnodes) {
		gf_warn(c, "%s%s: expected %d distances, got %d", c->fs.root, path, nnodes, k);
		for (int i = 0; i < nnodes; i++)
			n->distance[i] = -1;
	}
}

int gf_discover_numa(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	struct gf_numa *nm = &t->numa;
	struct gf_cpuset online;
	char buf[8192];
	int ret;

	ret = gf_read_opt_nodelist(c, NODE_DIR "/online", &online);
	if (ret == -EBADMSG)
		return ret;	/* the message names the file */
	if (!ret) {
		/* Only nodes that exist: "0-8191" must not make 8192 of them. */
		for (int id = gf_cpuset_first(&online); id >= 0; id = gf_cpuset_next(&online, id)) {
			char dir[64];
			struct stat st;
			int found;

			snprintf(dir, sizeof(dir), NODE_DIR "/node%d", id);
			/* One we cannot look at stays (the kernel listed it),
			 * with gf_probe's warning. */
			found = gf_probe(c, dir, &st);
			if (found == 0 || (found == 1 && !S_ISDIR(st.st_mode))) {
				gf_warn(c, "%s" NODE_DIR "/online: lists node %d, which has no node%d directory",
					c->fs.root, id, id);
				gf_cpuset_clear(&online, (unsigned)id);
			}
		}
		if (gf_cpuset_empty(&online)) {
			gf_warn(c, "%s" NODE_DIR "/online: no node: taken as one node 0", c->fs.root);
			ret = -ENOENT;
		}
	}
	if (ret) {
		/* CONFIG_NUMA=n: the whole machine is node 0. */
		struct gf_numa_node *n = gf_push(&nm->node, &nm->nnodes, sizeof(*n));

		if (!n)
			return gf_error(-ENOMEM, "out of memory");
		n->id = 0;
		n->cpus = t->cpus.online;
		n->memory_bytes = t->machine.memory_bytes;
		n->distance = malloc(sizeof(int));
		if (n->distance)
			n->distance[0] = 10;
	} else {
		nm->kernel_numa = true;
		nm->node = calloc(gf_cpuset_count(&online), sizeof(*nm->node));
		if (!nm->node)
			return gf_error(-ENOMEM, "out of memory");
		for (int id = gf_cpuset_first(&online); id >= 0; id = gf_cpuset_next(&online, id)) {
			struct gf_numa_node *n = &nm->node[nm->nnodes++];
			char path[128];

			n->id = id;
			snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", id);
			gf_read_opt_cpulist(c, path, &n->cpus);	/* memory-only nodes: empty */
			read_node_mem(c, n);
		}
		for (int i = 0; i < nm->nnodes; i++)
			read_distances(c, &nm->node[i], nm->nnodes);
	}
	for (int i = 0; i < nm->nnodes; i++) {
		const struct gf_numa_node *n = &nm->node[i];

		for (int k = 0; k < t->cpus.ncpu; k++)
			if (gf_cpuset_isset(&n->cpus, (unsigned)t->cpus.cpu[k].id))
				t->cpus.cpu[k].node = n->id;
	}
	if (c->self_status && gf_kv_find(c->self_status, "Mems_allowed_list", buf, sizeof(buf))) {
		if (gf_cpuset_parse_list(&nm->mems_allowed, buf) == 0)
			nm->mems_allowed_known = true;
		else
			gf_warn(c, "%s/proc/self/status: Mems_allowed_list: %s", c->fs.root, gf_last_error());
	}
	return 0;
}
