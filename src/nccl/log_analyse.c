/* The NCCL log's findings (nccl.h): versions, transports per GPU pair held
 * against the machine's links, overrides that cost bandwidth, warnings and
 * errors, communicators, CPU affinity. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/nccl_env.h"
#include "core/strutil.h"
#include "nccl/log.h"

#define ENV_PAGE "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
#define TROUBLE_PAGE "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
#define TORCH_PAGE "https://docs.pytorch.org/docs/stable/distributed.html"

static int add(struct gf_nccl_log *l, enum gf_severity sev, const char *id, const char *ranks, bool costs,
	       const char *source, const char *fix, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static int add(struct gf_nccl_log *l, enum gf_severity sev, const char *id, const char *ranks, bool costs,
	       const char *source, const char *fix, const char *fmt, ...)
{
	struct gf_nccl_finding *f;
	char text[1024];
	va_list ap;

	if (l->nfindings == l->cfindings) {
		int ncap = l->cfindings ? l->cfindings * 2 : 16;
		void *p = realloc(l->findings, (size_t)ncap * sizeof(*l->findings));

		if (!p)
			return gf_error(-ENOMEM, "nccl log: out of memory");
		l->findings = p;
		l->cfindings = ncap;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	f = &l->findings[l->nfindings];
	f->severity = sev;
	f->id = id;
	f->costs_bandwidth = costs;
	f->source = strdup(source);
	f->ranks = strdup(ranks);
	f->text = strdup(text);
	f->fix = strdup(fix ? fix : "");
	if (!f->source || !f->ranks || !f->text || !f->fix) {
		free((char *)f->source);
		free((char *)f->ranks);
		free((char *)f->text);
		free((char *)f->fix);
		return gf_error(-ENOMEM, "nccl log: out of memory");
	}
	l->nfindings++;
	return 0;
}

/* A list of ranks, "0,1", sorted, each once; "?" for an unknown one. */
struct rank_list {
	int r[64];
	int n;
	bool unknown, more;
};

static void rl_add(struct rank_list *rl, int r)
{
	int i;

	if (r < 0) {
		rl->unknown = true;
		return;
	}
	for (i = 0; i < rl->n; i++)
		if (rl->r[i] == r)
			return;
	if (rl->n == 64) {
		rl->more = true;
		return;
	}
	for (i = rl->n; i > 0 && rl->r[i - 1] > r; i--)
		rl->r[i] = rl->r[i - 1];
	rl->r[i] = r;
	rl->n++;
}

static void rl_format(const struct rank_list *rl, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < rl->n && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%d", i ? "," : "", rl->r[i]);
	if (rl->more && n < size)
		n += (size_t)snprintf(buf + n, size - n, ",...");
	if (rl->unknown && n < size)
		snprintf(buf + n, size - n, "%s?", rl->n ? "," : "");
}

static const char *env_value(const struct gf_nccl_log *l, const char *name, struct rank_list *rl)
{
	const char *v = NULL;

	for (int i = 0; i < l->nprocs; i++)
		for (int j = 0; j < l->procs[i].nenv; j++)
			if (!strcmp(l->procs[i].env[j].name, name)) {
				v = l->procs[i].env[j].value;
				if (rl)
					rl_add(rl, nccl_proc_rank(&l->procs[i]));
			}
	return v;
}

static bool env_on(const struct gf_nccl_log *l, const char *name)
{
	const char *v = env_value(l, name, NULL);

	return v && v[0] && strcmp(v, "0");
}

static const char *env_anchor(const char *name, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, ENV_PAGE "#");

	for (const char *p = name; *p && n + 1 < size; p++)
		buf[n++] = *p == '_' ? '-' : (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	buf[n < size ? n : size - 1] = '\0';
	return buf;
}

/* The env page's section of a variable: "...env.html#nccl-p2p-disable". */
#define env_link(name) env_anchor(name, (char[160]){ 0 }, 160)

static int versions(struct gf_nccl_log *l)
{
	char text[768] = "";
	size_t n = 0;
	struct rank_list all = { .n = 0 };
	const char *first = NULL;
	bool mismatch = false;

	for (int i = 0; i < l->nprocs; i++) {
		const struct nccl_proc *p = &l->procs[i];

		if (!p->version[0])
			continue;
		if (!first)
			first = p->version;
		else if (strcmp(first, p->version))
			mismatch = true;
	}
	if (!mismatch)
		return 0;
	for (int i = 0; i < l->nprocs && n < sizeof(text); i++) {
		const struct nccl_proc *p = &l->procs[i];

		if (!p->version[0])
			continue;
		rl_add(&all, nccl_proc_rank(p));
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%srank %d: NCCL %s", n ? ", " : "", nccl_proc_rank(p),
				      p->version);
	}
	{
		char ranks[256];

		rl_format(&all, ranks, sizeof(ranks));
		return add(l, GF_SEV_ERROR, "nccl.version-mismatch", ranks, false, TROUBLE_PAGE,
			   "load one NCCL in every rank: check LD_PRELOAD, LD_LIBRARY_PATH and the NCCL "
			   "PyTorch ships (nvidia/nccl/lib)",
			   "mixed NCCL versions: %s", text);
	}
}

static int overrides(struct gf_nccl_log *l, const struct gf_topo *t)
{
	/* each distinct NAME=VALUE once, with the ranks that had it */
	for (int i = 0; i < l->nprocs; i++)
		for (int j = 0; j < l->procs[i].nenv; j++) {
			const struct nccl_env_var *v = &l->procs[i].env[j];
			struct rank_list rl = { .n = 0 };
			const char *why;
			char ranks[256], fix[128];
			bool seen = false;
			int ret;

			for (int a = 0; a < i && !seen; a++)
				for (int b = 0; b < l->procs[a].nenv; b++)
					if (!strcmp(l->procs[a].env[b].name, v->name) &&
					    !strcmp(l->procs[a].env[b].value, v->value))
						seen = true;
			if (seen)
				continue;
			for (int a = i; a < l->nprocs; a++)
				for (int b = 0; b < l->procs[a].nenv; b++)
					if (!strcmp(l->procs[a].env[b].name, v->name) &&
					    !strcmp(l->procs[a].env[b].value, v->value))
						rl_add(&rl, nccl_proc_rank(&l->procs[a]));
			rl_format(&rl, ranks, sizeof(ranks));
			snprintf(fix, sizeof(fix), "unset %s", v->name);
			why = gf_nccl_costs_bandwidth(v->name, v->value);
			if (why)
				ret = add(l, GF_SEV_WARN, "nccl.override", ranks, true, env_link(v->name), fix,
					  "%s=%s set by environment: %s", v->name, v->value, why);
			else if (!strcmp(v->name, "NCCL_NVLS_ENABLE") && !strcmp(v->value, "0"))
				/* NVLink SHARP needs NVSwitch with multicast, which VMs and
				 * small NVLink domains often lack: a note, not a fault */
				ret = add(l, GF_SEV_INFO, "nccl.override", ranks, false, env_link(v->name), "",
					  "NCCL_NVLS_ENABLE=0 set by environment: NVLS needs NVSwitch with multicast, %s",
					  t && t->nvswitch ? "which the model shows: compare large all-reduces with it on"
							   : "which the model does not show: no cost here");
			else if (gf_nccl_debug_var(v->name))
				ret = add(l, GF_SEV_WARN, "nccl.override", ranks, false, env_link(v->name), fix,
					  "%s=%s set by environment: a debugging switch of NCCL's env page, not for "
					  "production runs",
					  v->name, v->value);
			else
				ret = 0;
			if (ret)
				return ret;
		}
	return 0;
}

static const struct nccl_rank *rank_info(const struct gf_nccl_log *l, int rank)
{
	for (int i = 0; i < l->nranks; i++)
		if (l->ranks[i].rank == rank && l->ranks[i].busid[0])
			return &l->ranks[i];
	return NULL;
}

/* The matrix index of the GPU at busid, -1 when the model has none there. */
static int matrix_gpu(const struct gf_topo *t, const char *busid)
{
	int g;

	if (!t || !busid[0] || (g = gf_topo_find_gpu(t, busid)) < 0)
		return -1;
	for (int i = 0; i < t->matrix.n; i++)
		if (t->matrix.dev[i].kind == GF_DEV_GPU && t->matrix.dev[i].ref == g)
			return i;
	return -1;
}

static const char *host_of(const struct gf_nccl_log *l, int rank)
{
	const struct nccl_rank *r = rank_info(l, rank);

	if (r && r->proc >= 0)
		return l->procs[r->proc].host;
	for (int i = 0; i < l->nprocs; i++)
		if (nccl_proc_rank(&l->procs[i]) == rank)
			return l->procs[i].host;
	return "";
}

static int popcount64(uint64_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

/* Why the pair is not on P2P, as far as the overrides tell. */
static void p2p_cause(const struct gf_nccl_log *l, char *cause, size_t csize, char *fix, size_t fsize)
{
	if (env_on(l, "NCCL_P2P_DISABLE")) {
		snprintf(cause, csize, "P2P is disabled (NCCL_P2P_DISABLE=%s set by environment)%s",
			 env_value(l, "NCCL_P2P_DISABLE", NULL),
			 env_on(l, "NCCL_SHM_DISABLE") ? " and so is SHM (NCCL_SHM_DISABLE)" : "");
		snprintf(fix, fsize, "unset NCCL_P2P_DISABLE%s", env_on(l, "NCCL_SHM_DISABLE") ? " NCCL_SHM_DISABLE" : "");
	} else if (env_value(l, "NCCL_P2P_LEVEL", NULL)) {
		snprintf(cause, csize, "NCCL_P2P_LEVEL=%s set by environment limits P2P",
			 env_value(l, "NCCL_P2P_LEVEL", NULL));
		snprintf(fix, fsize, "unset NCCL_P2P_LEVEL");
	} else {
		snprintf(cause, csize, "NCCL did not find P2P usable (no override in the log)");
		snprintf(fix, fsize, "check that P2P works between the GPUs (IOMMU, PCIe ACS; NCCL's troubleshooting "
				     "page) and that both ranks see both GPUs");
	}
}

static int pairs(struct gf_nccl_log *l, const struct gf_topo *t)
{
	bool have_topo = t && t->ngpus > 0;

	for (int i = 0; i < l->nconns; i++) {
		const struct nccl_conn *c = &l->conns[i];
		int a = c->rank < c->peer ? c->rank : c->peer, b = c->rank < c->peer ? c->peer : c->rank;
		int worst = i, ga, gb, ret = 0;
		uint64_t chans = 0;
		int more = 0;
		const struct nccl_rank *ra, *rb;
		const struct gf_link *link = NULL;
		char pair[32], linkname[16] = "", cause[256], fix[256];
		bool same_host, dup = false;
		int channels;

		/* one finding per unordered pair: its worst transport */
		for (int j = 0; j < l->nconns && !dup; j++) {
			const struct nccl_conn *d = &l->conns[j];
			int da = d->rank < d->peer ? d->rank : d->peer, db = d->rank < d->peer ? d->peer : d->rank;

			if (da != a || db != b)
				continue;
			if (j < i && nccl_transport_rank(d->transport) >= nccl_transport_rank(c->transport))
				dup = true;
			if (j > i && nccl_transport_rank(d->transport) > nccl_transport_rank(c->transport))
				dup = true;
		}
		if (dup)
			continue;
		for (int j = 0; j < l->nconns; j++) {
			const struct nccl_conn *d = &l->conns[j];
			int da = d->rank < d->peer ? d->rank : d->peer, db = d->rank < d->peer ? d->peer : d->rank;

			/* both directions of a channel are one channel */
			if (da == a && db == b && !strcmp(d->transport, l->conns[worst].transport)) {
				chans |= d->channels;
				more = d->more > more ? d->more : more;
			}
		}
		channels = popcount64(chans) + more;
		snprintf(pair, sizeof(pair), "%d-%d", a, b);
		ra = rank_info(l, a);
		rb = rank_info(l, b);
		same_host = !strcmp(host_of(l, a), host_of(l, b));
		if (have_topo && ra && rb && same_host && (ga = matrix_gpu(t, ra->busid)) >= 0 &&
		    (gb = matrix_gpu(t, rb->busid)) >= 0 && (link = gf_matrix_at(&t->matrix, ga, gb)))
			gf_link_format(link, linkname, sizeof(linkname));
		switch (nccl_transport_rank(c->transport)) {
		case 0:
		case 1:
			ret = add(l, GF_SEV_INFO, "nccl.transport", pair, false, TROUBLE_PAGE, "",
				  "ranks %d-%d use %s on %d channel%s%s%s", a, b, c->transport, channels,
				  channels == 1 ? "" : "s", linkname[0] ? ": the best path, the GPUs are " : "", linkname);
			break;
		case 2:
			p2p_cause(l, cause, sizeof(cause), fix, sizeof(fix));
			if (link && (link->type == GF_LINK_NV || link->type == GF_LINK_PIX || link->type == GF_LINK_PXB))
				ret = add(l, GF_SEV_WARN, "nccl.transport", pair, true, TROUBLE_PAGE, fix,
					  "GPU%d-GPU%d (ranks %d-%d) is %s but uses %s through host memory: %s",
					  t->matrix.dev[ga].ref, t->matrix.dev[gb].ref, a, b, linkname, c->transport,
					  cause);
			else if (link)
				ret = add(l, GF_SEV_INFO, "nccl.transport", pair, false, TROUBLE_PAGE, "",
					  "ranks %d-%d use %s: the GPUs are %s, where NCCL may prefer SHM", a, b,
					  c->transport, linkname);
			else
				ret = add(l, GF_SEV_INFO, "nccl.transport", pair, false, TROUBLE_PAGE, "",
					  "ranks %d-%d use %s through host memory (%s): %s", a, b, c->transport,
					  have_topo ? "their GPUs are not in the model" : "no topology to compare with",
					  cause);
			break;
		default:
			if (same_host) {
				p2p_cause(l, cause, sizeof(cause), fix, sizeof(fix));
				if (link)
					ret = add(l, GF_SEV_WARN, "nccl.transport", pair, true, TROUBLE_PAGE, fix,
						  "GPU%d-GPU%d (ranks %d-%d) is %s but uses %s, the network, within one "
						  "host: %s",
						  t->matrix.dev[ga].ref, t->matrix.dev[gb].ref, a, b, linkname,
						  c->transport, cause);
				else
					ret = add(l, GF_SEV_WARN, "nccl.transport", pair, true, TROUBLE_PAGE, fix,
						  "ranks %d-%d on one host (%s) use %s, the network, where P2P or SHM "
						  "would do: %s",
						  a, b, host_of(l, a), c->transport, cause);
			} else if (!strncmp(c->transport, "NET/Socket", 10)) {
				bool no_ib = false;

				for (int k = 0; k < l->nprocs; k++)
					no_ib |= l->procs[k].no_ib;
				if (env_on(l, "NCCL_IB_DISABLE"))
					ret = add(l, GF_SEV_WARN, "nccl.transport", pair, true, env_link("NCCL_IB_DISABLE"),
						  "unset NCCL_IB_DISABLE",
						  "ranks %d-%d use %s between hosts: InfiniBand is off "
						  "(NCCL_IB_DISABLE set by environment)",
						  a, b, c->transport);
				else
					ret = add(l, no_ib ? GF_SEV_INFO : GF_SEV_WARN, "nccl.transport", pair, !no_ib,
						  TROUBLE_PAGE, no_ib ? "" : "check the RDMA devices and NCCL_IB_HCA",
						  "ranks %d-%d use %s between hosts%s", a, b, c->transport,
						  no_ib ? ": NCCL found no InfiniBand device (NET/IB : No device found)"
							: ": TCP, where an RDMA network would be faster");
			} else if (!strncmp(c->transport, "NET/IB", 6) && !strstr(c->transport, "GDRDMA"))
				/* NCCL appends /GDRDMA when the NIC reads and writes GPU memory */
				ret = add(l, GF_SEV_INFO, "nccl.gdr", pair, false, env_link("NCCL_NET_GDR_LEVEL"),
					  "check nvidia-peermem or DMA-BUF support and NCCL_NET_GDR_LEVEL",
					  "ranks %d-%d use %s between hosts without GPUDirect RDMA: data is staged "
					  "through host memory",
					  a, b, c->transport);
			else
				ret = add(l, GF_SEV_INFO, "nccl.transport", pair, false, TROUBLE_PAGE, "",
					  "ranks %d-%d use %s between hosts", a, b, c->transport);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int messages(struct gf_nccl_log *l)
{
	int ret, low = -1, high = -1, nenq = 0;
	struct rank_list behind = { .n = 0 };

	for (int i = 0; i < l->nmsgs; i++) {
		const struct nccl_msg *m = &l->msgs[i];
		char ranks[16];

		snprintf(ranks, sizeof(ranks), m->rank >= 0 ? "%d" : "?", m->rank);
		if (m->kind == EV_WARN)
			ret = add(l, GF_SEV_WARN, "nccl.warn", ranks, false, TROUBLE_PAGE, "",
				  "NCCL WARN%s %s", m->repeats > 1 ? " (repeated)" : ":", m->text);
		else if (m->kind == EV_TORCH_ERROR)
			ret = add(l, GF_SEV_ERROR, "nccl.error", ranks, false, TORCH_PAGE, "",
				  "PyTorch: %s", m->text);
		else {
			if (m->rank >= 0) {
				nenq++;
				low = low < 0 || m->count < low ? m->count : low;
				high = m->count > high ? m->count : high;
			}
			ret = 0;
		}
		if (ret)
			return ret;
	}
	if (nenq < 2 || low == high)
		return 0;
	/* the ranks that never enqueued the collective the others wait in */
	for (int i = 0; i < l->nmsgs; i++)
		if (l->msgs[i].kind == EV_ENQUEUED && l->msgs[i].rank >= 0 && l->msgs[i].count == low)
			rl_add(&behind, l->msgs[i].rank);
	{
		char ranks[256];

		rl_format(&behind, ranks, sizeof(ranks));
		return add(l, GF_SEV_ERROR, "nccl.straggler", ranks, false, TORCH_PAGE,
			   "find what rank(s) did before the collective (a slow step, I/O, a different code path); "
			   "the Flight Recorder dumps name the collective",
			   "rank %s last enqueued collective %d while others enqueued %d: rank %s did not enter "
			   "collective %d (the straggler)",
			   ranks, low, high, ranks, low + 1);
	}
}

static int communicators(struct gf_nccl_log *l)
{
	for (int i = 0; i < l->nprocs; i++) {
		const struct nccl_proc *p = &l->procs[i];
		char ranks[16];
		int ret;

		if (p->ncomms < l->o.many_inits)
			continue;
		snprintf(ranks, sizeof(ranks), "%d", nccl_proc_rank(p));
		if ((ret = add(l, GF_SEV_WARN, "nccl.many-comms", ranks, true, TROUBLE_PAGE,
			       "create the communicator (process group) once and reuse it",
			       "%s%d communicators initialised by process %s:%ld (%d Init COMPLETE lines): "
			       "one per iteration costs an init (bootstrap, connections) every time",
			       p->ncomms >= NCCL_MAX_COMMS ? ">=" : "", p->ncomms, p->host, p->pid, p->inits)))
			return ret;
	}
	return 0;
}

static int affinity(struct gf_nccl_log *l, const struct gf_topo *t)
{
	for (int i = 0; i < l->nprocs; i++) {
		const struct nccl_proc *p = &l->procs[i];
		struct gf_cpuset took, both;
		char ranks[16], local[128];
		int g, ret;

		if (!p->affinity[0] || !t || !t->ngpus || !p->busid[0] || (g = gf_topo_find_gpu(t, p->busid)) < 0 ||
		    gf_cpuset_empty(&t->gpus[g].cpus))
			continue;
		if (gf_cpuset_parse_list(&took, p->affinity) && gf_cpuset_parse_mask(&took, p->affinity))
			continue;
		snprintf(ranks, sizeof(ranks), "%d", nccl_proc_rank(p));
		gf_cpuset_format_list(&t->gpus[g].cpus, local, sizeof(local));
		gf_cpuset_and(&both, &took, &t->gpus[g].cpus);
		if (gf_cpuset_empty(&both))
			ret = add(l, GF_SEV_WARN, "nccl.affinity", ranks, true, ENV_PAGE,
				  "bind the rank to its GPU's NUMA node (gpufeed launch, numactl) or unset "
				  "NCCL_IGNORE_CPU_AFFINITY",
				  "rank %s's NCCL threads run on CPUs %s, none of them local to GPU%d (NUMA node %d, "
				  "CPUs %s)",
				  ranks, p->affinity, t->gpus[g].index, t->gpus[g].numa_node, local);
		else if (!gf_cpuset_equal(&both, &took))
			ret = add(l, GF_SEV_INFO, "nccl.affinity", ranks, false, ENV_PAGE, "",
				  "rank %s's NCCL threads may run on CPUs %s, wider than GPU%d's local CPUs %s (NUMA "
				  "node %d)%s",
				  ranks, p->affinity, t->gpus[g].index, local, t->gpus[g].numa_node,
				  p->affinity_gpu_empty ? ": NCCL saw no GPU affinity" : "");
		else
			ret = 0;
		if (ret)
			return ret;
	}
	return 0;
}

int gf_nccl_log_analyse(struct gf_nccl_log *l, const struct gf_topo *t)
{
	int ret;

	if (!l)
		return gf_error(-EINVAL, "gf_nccl_log_analyse: l is NULL");
	nccl_findings_clear(l);
	l->analysed = false;
	l->topo_compared = t && t->ngpus > 0;
	if (!t)
		snprintf(l->topo_note, sizeof(l->topo_note), "no machine model: transports not compared with the topology");
	else if (!t->ngpus)
		snprintf(l->topo_note, sizeof(l->topo_note),
			 "the model (%.160s) has no NVIDIA GPU: transports not compared with the topology",
			 t->machine.source);
	else
		snprintf(l->topo_note, sizeof(l->topo_note), "compared with the model of %.160s (%d GPUs)",
			 t->machine.source, t->ngpus);
	if (!l->nprocs && !l->nmsgs)
		ret = add(l, GF_SEV_WARN, "nccl.no-output", "", false, ENV_PAGE,
			  "run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,ENV,GRAPH,NET,P2P,SHM,TUNING)",
			  "no NCCL output in %ld lines", l->lines);
	else if (!(ret = versions(l)) && !(ret = overrides(l, t)) && !(ret = pairs(l, t)) && !(ret = messages(l)) &&
		 !(ret = communicators(l)) && !(ret = affinity(l, t)) && !l->topo_compared && l->nconns)
		ret = add(l, GF_SEV_INFO, "nccl.topology", "", false, TROUBLE_PAGE,
			  "give the model of the machine the log came from (--root DIR|FILE.tar.gz)",
			  "could not compare with the topology: %s", l->topo_note);
	if (ret)
		return ret;
	l->analysed = true;
	return 0;
}
