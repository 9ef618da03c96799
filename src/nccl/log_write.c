/* The NCCL log's analysis as text and JSON (nccl.h; docs/nccl.md). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/json_stamp.h"
#include "nccl/log.h"

static int channels_of(const struct nccl_conn *c)
{
	int n = c->more;

	for (uint64_t x = c->channels; x; x &= x - 1)
		n++;
	return n;
}

/* Whether process pi hosts rank r (one process may drive several GPUs,
 * each a rank of its own communicator). */
static bool hosts(const struct gf_nccl_log *l, int pi, int r)
{
	for (int i = 0; i < l->nranks; i++)
		if (l->ranks[i].proc == pi && l->ranks[i].rank == r)
			return true;
	return l->procs[pi].rank >= 0 && l->procs[pi].rank == r;
}

static void write_proc(const struct gf_nccl_log *l, int pi, FILE *f)
{
	const struct nccl_proc *p = &l->procs[pi];

	int r = nccl_proc_rank(p);

	fprintf(f, "rank %s", r >= 0 ? "" : "?");
	if (r >= 0)
		fprintf(f, "%d", r);
	if (p->nranks > 0)
		fprintf(f, "/%d", p->nranks);
	if (p->pid >= 0)
		fprintf(f, "  %s pid %ld", p->host, p->pid);
	if (p->busid[0])
		fprintf(f, "  GPU %s", p->busid);
	if (p->dev >= 0)
		fprintf(f, " (cudaDev %d)", p->dev);
	fprintf(f, "  NCCL %s  [%s]\n", p->version[0] ? p->version : "?", p->source);
	for (int i = 0; i < l->nconns; i++) {
		const struct nccl_conn *c = &l->conns[i];

		if (hosts(l, pi, c->rank))
			fprintf(f, "  %d -> %d via %s (%d channels)\n", c->rank, c->peer, c->transport, channels_of(c));
	}
	if (p->ring_channels > 0 || p->coll_channels >= 0) {
		const char *sep = "  channels: ";

		if (p->ring_channels > 0)
			fprintf(f, "%s%d ring", sep, p->ring_channels), sep = ", ";
		if (p->coll_channels >= 0)
			fprintf(f, "%s%d coll", sep, p->coll_channels), sep = ", ";
		if (p->nvls_channels >= 0)
			fprintf(f, "%s%d nvls", sep, p->nvls_channels);
		fputc('\n', f);
	}
	if (p->nvls[0])
		fprintf(f, "  NVLS: %s\n", p->nvls);
	if (p->trees[0])
		fprintf(f, "  trees: %s\n", p->trees);
	for (int i = 0; i < p->nalgos; i++)
		fprintf(f, "%s%s", i ? ", " : "  algorithms: ", p->algos[i]);
	if (p->nalgos)
		fputc('\n', f);
	for (int i = 0; i < p->nenv; i++)
		fprintf(f, "%s%s=%s", i ? ", " : "  environment: ", p->env[i].name, p->env[i].value);
	if (p->nenv)
		fputc('\n', f);
	if (p->net[0] || p->gdr >= 0)
		fprintf(f, "  network: %s%s  GPUDirect RDMA: %s%s%s\n", p->net[0] ? p->net : "?",
			p->no_ib ? " (no InfiniBand device)" : "", p->gdr < 0 ? "?" : p->gdr ? "on" : "off",
			p->gdr_nic[0] ? " on " : "", p->gdr_nic);
	if (p->net_ifs[0])
		fprintf(f, "  interfaces: %s\n", p->net_ifs);
	if (p->affinity[0])
		fprintf(f, "  CPU affinity: %s%s\n", p->affinity, p->affinity_gpu_empty ? " (GPU affinity empty)" : "");
	if (p->ncomms)
		fprintf(f, "  communicators: %d\n", p->ncomms);
}

int gf_nccl_log_write_text(const struct gf_nccl_log *l, FILE *f)
{
	if (!l || !f)
		return gf_error(-EINVAL, "gf_nccl_log_write_text: %s is NULL", !l ? "l" : "f");
	if (!l->analysed)
		return gf_error(-EINVAL, "gf_nccl_log_write_text: the log was not analysed");
	fprintf(f, "NCCL log: %ld lines, %d processes; %s\n", l->lines, l->nprocs, l->topo_note);
	if (l->dropped)
		fprintf(f, "(%ld events past the reader's bounds were left out)\n", l->dropped);
	for (int i = 0; i < l->nprocs; i++)
		write_proc(l, i, f);
	fprintf(f, "\nfindings:%s\n", l->nfindings ? "" : " none");
	for (int i = 0; i < l->nfindings; i++) {
		const struct gf_nccl_finding *x = &l->findings[i];

		fprintf(f, "  %-7s %s%s%s%s %s\n", gf_severity_name(x->severity), x->id, x->ranks[0] ? " [rank " : "",
			x->ranks, x->ranks[0] ? "]" : "", x->text);
		if (x->fix[0])
			fprintf(f, "          fix: %s\n", x->fix);
		fprintf(f, "          see: %s\n", x->source);
	}
	fprintf(f, "%s\n", gf_nccl_log_clean(l) ? "every path on the best transport the log and the model allow"
						 : "not clean: see the warnings and errors above");
	return ferror(f) ? gf_error(-EIO, "writing the NCCL log report failed") : 0;
}

static json_t *proc_json(const struct gf_nccl_log *l, int pi)
{
	const struct nccl_proc *p = &l->procs[pi];
	json_t *o = json_object(), *conns = json_array(), *env = json_object(), *algos = json_array();
	int r = nccl_proc_rank(p);

	if (!o || !conns || !env || !algos) {
		json_decref(o), json_decref(conns), json_decref(env), json_decref(algos);
		return NULL;
	}
	for (int i = 0; i < l->nconns; i++) {
		const struct nccl_conn *c = &l->conns[i];

		if (hosts(l, pi, c->rank))
			json_array_append_new(conns, json_pack("{s:i,s:i,s:s,s:i}", "rank", c->rank, "peer", c->peer, "transport",
							       c->transport, "channels", channels_of(c)));
	}
	for (int i = 0; i < p->nenv; i++)
		json_object_set_new(env, p->env[i].name, json_string(p->env[i].value));
	for (int i = 0; i < p->nalgos; i++)
		json_array_append_new(algos, json_string(p->algos[i]));
	json_object_set_new(o, "rank", json_integer(r));
	json_object_set_new(o, "nranks", json_integer(p->nranks));
	json_object_set_new(o, "host", json_string(p->host));
	json_object_set_new(o, "pid", json_integer(p->pid));
	json_object_set_new(o, "source", json_string(p->source));
	json_object_set_new(o, "cuda_dev", json_integer(p->dev));
	json_object_set_new(o, "bus_id", p->busid[0] ? json_string(p->busid) : json_null());
	json_object_set_new(o, "version", p->version[0] ? json_string(p->version) : json_null());
	json_object_set_new(o, "connections", conns);
	json_object_set_new(o, "ring_channels", json_integer(p->ring_channels));
	json_object_set_new(o, "coll_channels", json_integer(p->coll_channels));
	json_object_set_new(o, "nvls_channels", json_integer(p->nvls_channels));
	json_object_set_new(o, "nvls", p->nvls[0] ? json_string(p->nvls) : json_null());
	json_object_set_new(o, "trees", p->trees[0] ? json_string(p->trees) : json_null());
	json_object_set_new(o, "algorithms", algos);
	json_object_set_new(o, "environment", env);
	json_object_set_new(o, "network", p->net[0] ? json_string(p->net) : json_null());
	json_object_set_new(o, "interfaces", p->net_ifs[0] ? json_string(p->net_ifs) : json_null());
	json_object_set_new(o, "gdr", p->gdr < 0 ? json_null() : json_boolean(p->gdr));
	json_object_set_new(o, "cpu_affinity", p->affinity[0] ? json_string(p->affinity) : json_null());
	json_object_set_new(o, "communicators", json_integer(p->ncomms));
	return o;
}

int gf_nccl_log_write_json(const struct gf_nccl_log *l, FILE *f)
{
	json_t *root, *procs, *finds;
	int ret = -ENOMEM;

	if (!l || !f)
		return gf_error(-EINVAL, "gf_nccl_log_write_json: %s is NULL", !l ? "l" : "f");
	if (!l->analysed)
		return gf_error(-EINVAL, "gf_nccl_log_write_json: the log was not analysed");
	root = json_object();
	procs = json_array();
	finds = json_array();
	if (!root || !procs || !finds)
		goto out;
	if ((ret = gf_json_stamp(root, GF_NCCL_LOG_SCHEMA)))
		goto out;
	ret = -ENOMEM;
	for (int i = 0; i < l->nprocs; i++) {
		json_t *p = proc_json(l, i);

		if (!p || json_array_append_new(procs, p))
			goto out;
	}
	for (int i = 0; i < l->nfindings; i++) {
		const struct gf_nccl_finding *x = &l->findings[i];

		if (json_array_append_new(finds, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:b}", "severity",
							   gf_severity_name(x->severity), "id", x->id, "ranks",
							   x->ranks, "text", x->text, "fix", x->fix, "source",
							   x->source, "costs_bandwidth", x->costs_bandwidth)))
			goto out;
	}
	json_object_set_new(root, "lines", json_integer(l->lines));
	json_object_set_new(root, "dropped_events", json_integer(l->dropped));
	json_object_set_new(root, "topology_compared", json_boolean(l->topo_compared));
	json_object_set_new(root, "topology", json_string(l->topo_note));
	json_object_set_new(root, "processes", procs);
	procs = NULL;
	json_object_set_new(root, "findings", finds);
	finds = NULL;
	json_object_set_new(root, "clean", json_boolean(gf_nccl_log_clean(l)));
	ret = json_dumpf(root, f, JSON_INDENT(2)) || fputc('\n', f) == EOF || ferror(f) ?
		      gf_error(-EIO, "writing the NCCL log JSON failed") :
		      0;
out:
	if (ret == -ENOMEM)
		gf_error(-ENOMEM, "nccl log: out of memory");
	json_decref(procs);
	json_decref(finds);
	json_decref(root);
	return ret;
}
