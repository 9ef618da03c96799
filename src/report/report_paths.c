/* The report's path table: per GPU the four paths a person needs (host
 * memory, slowest peer, nearest NIC, nearest NVMe), with the GPUs whose
 * paths are the same folded into one group ("GPU0-3").  Same means the same
 * link classes, figures and limits once the GPU's own devices are named by
 * their role ("at the GPU", "at the NIC"); the devices at the far ends are
 * listed per group ("mlx5_0-3").  The full table is `gpufeed topo`'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/table.h"
#include "report/report_paths.h"
#include "topo/render.h"

enum { PICK_HOST, PICK_PEER, PICK_NIC, PICK_NVME, NPICKS };

struct gpu_row {
	int dev;				/* matrix index of the GPU */
	const struct gf_path *pick[NPICKS];
	char key[1024];				/* equal keys: one group */
};

/* Is q a better pick than p?  Peers: the slowest link (collectives run at
 * the slowest); NICs and NVMe: the nearest, then the fastest. */
static bool better(const struct gf_path *q, const struct gf_path *p)
{
	if (q->kind == GF_PATH_GPU_GPU) {
		if (q->gb_per_s != p->gb_per_s)
			return q->gb_per_s < p->gb_per_s;
		return q->link.type > p->link.type;
	}
	if (q->link.type != p->link.type)
		return q->link.type < p->link.type;
	return q->gb_per_s > p->gb_per_s;
}

static const struct gf_path *pick(const struct gf_topo *t, int g, int kind)
{
	const struct gf_path *best = NULL;

	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];
		bool mine = kind == GF_PATH_HOST_GPU ? p->to == g :
			    kind == GF_PATH_GPU_GPU ? (p->from == g || p->to == g) : p->from == g;

		if ((int)p->kind == kind && mine && (!best || better(p, best)))
			best = p;
	}
	return best;
}

/* The matrix index at the other end of p from GPU g; -1 for host memory. */
static int far_end(const struct gf_path *p, int g)
{
	if (p->from < 0)
		return -1;
	return p->from == g ? p->to : p->from;
}

static void replace_all(char *s, size_t size, const char *what, const char *with)
{
	size_t wl = strlen(what), nl = strlen(with);
	char *at = s;

	if (!wl)
		return;
	while ((at = strstr(at, what)) != NULL) {
		size_t tail = strlen(at + wl);

		if ((size_t)(at - s) + nl + tail + 1 > size)
			return;
		memmove(at + nl, at + wl, tail + 1);
		memcpy(at, with, nl);
		at += nl;
	}
}

/* The limit in words that hold for every GPU of a group: the GPU's own and
 * the far end's addresses become "the GPU", "the NIC"; a NIC's name "NIC". */
static void generic_limit(const struct gf_topo *t, const struct gf_path *p, int g, char *buf, size_t size)
{
	const struct gf_matrix *m = &t->matrix;
	int end = far_end(p, g);

	snprintf(buf, size, "%s%s", p->limit_text, p->crosses_cpu_link ? "; cross-socket" : "");
	replace_all(buf, size, t->pci[m->dev[g].pci].bdf, "the GPU");
	if (end < 0)
		return;
	replace_all(buf, size, t->pci[m->dev[end].pci].bdf,
		    m->dev[end].kind == GF_DEV_NIC ? "the NIC" : m->dev[end].kind == GF_DEV_NVME ? "the drive" :
										    "the peer");
	if (m->dev[end].kind == GF_DEV_NIC) {
		const char *name = t->nics[m->dev[end].ref].name;
		size_t nl = strlen(name);

		if (!strncmp(buf, name, nl) && buf[nl] == ' ')
			memmove(buf + 3, buf + nl, strlen(buf + nl) + 1), memcpy(buf, "NIC", 3);
	}
}

/* Are all of GPU g's peers as slow as p (then naming one would mislead)? */
static bool all_peers_alike(const struct gf_topo *t, const struct gf_path *p, int g)
{
	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *q = &t->paths[i];

		if (q->kind == GF_PATH_GPU_GPU && (q->from == g || q->to == g) &&
		    (q->gb_per_s != p->gb_per_s || q->link.type != p->link.type || q->link.nvlinks != p->link.nvlinks))
			return false;
	}
	return true;
}

/* What a person knows the far end by: mlx5_0, nvme0n1, GPU5; "all" when
 * every peer is the slowest. */
static const char *end_name(const struct gf_topo *t, const struct gf_path *p, int g)
{
	const struct gf_matrix_dev *d;
	int end = far_end(p, g);

	if (end < 0)
		return "";
	if (p->kind == GF_PATH_GPU_GPU && all_peers_alike(t, p, g))
		return "all peers";
	d = &t->matrix.dev[end];
	if (d->kind == GF_DEV_NIC)
		return t->nics[d->ref].name;
	if (d->kind == GF_DEV_NVME)
		return t->blocks[d->ref].name;
	return d->name;
}

/* Length of s without its trailing digits ("mlx5_12" -> 5), or -1 when it
 * does not end in a number. */
static int stem_len(const char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] >= '0' && s[n - 1] <= '9')
		n--;
	return n == strlen(s) ? -1 : (int)n;
}

/* "GPU0-3", "mlx5_0-3" for consecutive numbers after one stem, the name
 * when all are the same, else a list. */
static void compress_run(const char **names, int n, char *buf, size_t size)
{
	int stem = stem_len(names[0]);
	bool same = true, run = stem >= 0;
	long prev = run ? atol(names[0] + stem) : 0;

	for (int i = 1; i < n; i++) {
		same = same && !strcmp(names[i], names[0]);
		run = run && stem_len(names[i]) == stem && !strncmp(names[i], names[0], (size_t)stem) &&
		      atol(names[i] + stem) == prev + 1;
		if (run)
			prev = atol(names[i] + stem);
	}
	if (same || n == 1) {
		snprintf(buf, size, "%s", names[0]);
	} else if (run) {
		snprintf(buf, size, "%s-%ld", names[0], prev);
	} else {
		buf[0] = '\0';
		for (int i = 0; i < n; i++)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "", names[i]);
	}
}

/* "GPU0-3", "mlx5_0-3", or a list; devices shared by the same number of
 * consecutive GPUs (a NIC per PIX pair) are named once with the share:
 * "mlx5_0-3, 2 GPUs each". */
static void compress_names(const char **names, int n, char *buf, size_t size)
{
	const char *uniq[256];
	int count[256], nuniq = 0;
	bool even = true;

	for (int i = 0; i < n && i < 256; i++) {
		if (nuniq && !strcmp(names[i], uniq[nuniq - 1])) {
			count[nuniq - 1]++;
			continue;
		}
		uniq[nuniq] = names[i];
		count[nuniq++] = 1;
	}
	for (int i = 1; i < nuniq; i++)
		even = even && count[i] == count[0];
	if (nuniq > 1 && nuniq < n && even) {
		compress_run(uniq, nuniq, buf, size);
		snprintf(buf + strlen(buf), size - strlen(buf), ", %d GPUs each", count[0]);
		return;
	}
	compress_run(names, n, buf, size);
}

static void row_key(const struct gf_topo *t, struct gpu_row *r)
{
	size_t len = 0;

	len += (size_t)snprintf(r->key, sizeof(r->key), "node %d|", t->gpus[t->matrix.dev[r->dev].ref].numa_node);
	for (int k = 0; k < NPICKS && len < sizeof(r->key); k++) {
		const struct gf_path *p = r->pick[k];
		char link[16], rate[16], lim[160];

		if (!p) {
			len += (size_t)snprintf(r->key + len, sizeof(r->key) - len, "-|");
			continue;
		}
		gf_link_format(&p->link, link, sizeof(link));
		generic_limit(t, p, r->dev, lim, sizeof(lim));
		len += (size_t)snprintf(r->key + len, sizeof(r->key) - len, "%s %s %s|", link,
					gf_path_rate_text(p, rate, sizeof(rate)), lim);
	}
}

static void add_group(const struct gf_topo *t, struct gf_table *tb, struct gpu_row **members, int n)
{
	static const char *what[] = { "host memory", "slowest peer", "nearest NIC", "nearest NVMe" };
	const char *names[256];
	char gpus[256], ends[256], link[16], rate[16], lim[160];
	bool first = true;

	if (n > 256)
		n = 256;
	for (int i = 0; i < n; i++)
		names[i] = t->matrix.dev[members[i]->dev].name;
	compress_names(names, n, gpus, sizeof(gpus));
	for (int k = 0; k < NPICKS; k++) {
		const struct gf_path *p = members[0]->pick[k];

		if (!p)
			continue;
		if (k == PICK_HOST) {
			if (p->host_node >= 0)
				snprintf(ends, sizeof(ends), "node %d", p->host_node);
			else
				snprintf(ends, sizeof(ends), "unknown node");
		} else {
			for (int i = 0; i < n; i++)
				names[i] = end_name(t, members[i]->pick[k], members[i]->dev);
			compress_names(names, n, ends, sizeof(ends));
		}
		gf_link_format(&p->link, link, sizeof(link));
		if (n == 1)
			snprintf(lim, sizeof(lim), "%s%s", p->limit_text,
				 p->crosses_cpu_link ? "; cross-socket" : "");
		else
			generic_limit(t, p, members[0]->dev, lim, sizeof(lim));
		gf_table_add(tb, "%s", first ? gpus : "");
		gf_table_add(tb, "%s", what[k]);
		gf_table_add(tb, "%s", ends);
		gf_table_add(tb, "%s", link);
		gf_table_add(tb, "%s", gf_path_rate_text(p, rate, sizeof(rate)));
		gf_table_add(tb, "%s", lim);
		first = false;
	}
}

int gf_report_print_paths(const struct gf_topo *t, FILE *f)
{
	static const int kinds[NPICKS] = { GF_PATH_HOST_GPU, GF_PATH_GPU_GPU, GF_PATH_GPU_NIC, GF_PATH_GPU_NVME };
	struct gpu_row *rows, **members;
	bool *done;
	struct gf_table tb;
	int n = 0;

	if (!t->ngpus || !t->npaths)
		return 0;
	rows = calloc((size_t)t->ngpus, sizeof(*rows));
	members = calloc((size_t)t->ngpus, sizeof(*members));
	done = calloc((size_t)t->ngpus, sizeof(*done));
	if (!rows || !members || !done) {
		free(rows);
		free(members);
		free(done);
		return -1;
	}
	for (int g = 0; g < t->matrix.n; g++) {
		if (t->matrix.dev[g].kind != GF_DEV_GPU)
			continue;
		rows[n].dev = g;
		for (int k = 0; k < NPICKS; k++)
			rows[n].pick[k] = pick(t, g, kinds[k]);
		row_key(t, &rows[n]);
		n++;
	}
	gf_table_init(&tb, 6);
	tb.right_align = 1u << 4;
	for (const char **h = (const char *[]){ "GPUS", "PATH", "TO", "LINK", "GB/s", "LIMITED BY", NULL }; *h; h++)
		gf_table_add(&tb, "%s", *h);
	for (int i = 0; i < n; i++) {
		int m = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++)
			if (!done[j] && !strcmp(rows[j].key, rows[i].key)) {
				done[j] = true;
				members[m++] = &rows[j];
			}
		add_group(t, &tb, members, m);
	}
	fputs("\nPaths (theoretical one-way GB/s of the narrowest link; GPUs whose paths are the same\n"
	      "are grouped; a path that crosses sockets has the CPU link left out of its figure;\n"
	      "every path: gpufeed topo, one GPU's: gpufeed topo --gpu N):\n", f);
	gf_table_print(&tb, f, "  ");
	gf_table_free(&tb);
	free(rows);
	free(members);
	free(done);
	return 0;
}
