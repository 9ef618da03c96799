/* The NCCL log reader: events into per-process state (nccl.h, log.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "nccl/log.h"

/* Grows *arr (elements of size) to hold one more; 0 or -ENOMEM. */
static int grow(void **arr, int n, int *cap, size_t size)
{
	void *p;
	int ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (!(p = realloc(*arr, (size_t)ncap * size)))
		return gf_error(-ENOMEM, "nccl log: out of memory");
	*arr = p;
	*cap = ncap;
	return 0;
}

int gf_nccl_log_new(const struct gf_nccl_log_options *opts, struct gf_nccl_log **out)
{
	struct gf_nccl_log_options o = GF_NCCL_LOG_OPTS_INIT;
	struct gf_nccl_log *l;

	if (!out)
		return gf_error(-EINVAL, "gf_nccl_log_new: out is NULL");
	*out = NULL;
	if (opts) {
		if (opts->struct_size < offsetof(struct gf_nccl_log_options, many_inits) + sizeof(int))
			return gf_error(-EINVAL, "gf_nccl_log_new: opts not made with GF_NCCL_LOG_OPTS_INIT (struct_size)");
		o.many_inits = opts->many_inits;
	}
	if (o.many_inits < 0)
		return gf_error(-EINVAL, "gf_nccl_log_new: many_inits %d is negative", o.many_inits);
	if (!o.many_inits)
		o.many_inits = 8;
	if (!(l = calloc(1, sizeof(*l))))
		return gf_error(-ENOMEM, "nccl log: out of memory");
	l->o = o;
	l->last_proc = -1;
	*out = l;
	return 0;
}

int nccl_proc_rank(const struct nccl_proc *p)
{
	return p->rank >= 0 ? p->rank : p->prefix_rank >= 0 ? p->prefix_rank : p->dev;
}

int nccl_transport_rank(const char *t)
{
	if (!strncmp(t, "P2P", 3))
		return 0;
	if (!strncmp(t, "NVLS", 4))
		return 1;
	if (!strncmp(t, "SHM", 3))
		return 2;
	if (!strncmp(t, "NET/IB", 6) || !strncmp(t, "CollNet", 7))
		return 3;
	if (!strncmp(t, "NET/Socket", 10))
		return 5;
	return 4;
}

static int proc_new(struct gf_nccl_log *l, const char *source, const struct nccl_event *ev)
{
	struct nccl_proc *p;

	if (l->nprocs >= NCCL_MAX_PROCS) {
		l->dropped++;
		return -ENOSPC;
	}
	if (grow((void **)&l->procs, l->nprocs, &l->cprocs, sizeof(*l->procs)))
		return -ENOMEM;
	p = &l->procs[l->nprocs];
	memset(p, 0, sizeof(*p));
	gf_strlcpy(p->host, ev->host, sizeof(p->host));
	gf_nccl_clean_copy(p->source, sizeof(p->source), source, strlen(source));
	p->pid = ev->pid;
	p->prefix_rank = ev->prefix_rank;
	p->rank = p->nranks = p->dev = -1;
	p->ring_channels = p->coll_channels = p->nvls_channels = p->gdr = -1;
	return l->nprocs++;
}

/* The process of an NCCL line: its host:pid. */
static int proc_of(struct gf_nccl_log *l, const char *source, const struct nccl_event *ev)
{
	int last = l->last_proc;

	if (last >= 0 && last < l->nprocs && l->procs[last].pid == ev->pid && !strcmp(l->procs[last].host, ev->host))
		return last;
	for (int i = 0; i < l->nprocs; i++)
		if (l->procs[i].pid == ev->pid && !strcmp(l->procs[i].host, ev->host))
			return l->last_proc = i;
	return l->last_proc = proc_new(l, source, ev);
}

static int conn_add(struct gf_nccl_log *l, const struct nccl_event *ev)
{
	struct nccl_conn *c = NULL;

	for (int i = 0; i < l->nconns && !c; i++)
		if (l->conns[i].rank == ev->rank && l->conns[i].peer == ev->peer &&
		    !strcmp(l->conns[i].transport, ev->a))
			c = &l->conns[i];
	if (!c) {
		if (l->nconns >= NCCL_MAX_CONNS) {
			l->dropped++;
			return 0;
		}
		if (grow((void **)&l->conns, l->nconns, &l->cconns, sizeof(*l->conns)))
			return -ENOMEM;
		c = &l->conns[l->nconns++];
		memset(c, 0, sizeof(*c));
		c->rank = ev->rank;
		c->peer = ev->peer;
		gf_strlcpy(c->transport, ev->a, sizeof(c->transport));
	}
	if (ev->channel < 64)
		c->channels |= UINT64_C(1) << ev->channel;
	else if (c->more < 1000000)
		c->more++;
	return 0;
}

static int rank_add(struct gf_nccl_log *l, int proc, const struct nccl_event *ev)
{
	struct nccl_rank *r;

	for (int i = 0; i < l->nranks; i++)
		if (l->ranks[i].rank == ev->rank && l->ranks[i].proc == proc)
			return 0;
	if (l->nranks >= NCCL_MAX_CONNS) {
		l->dropped++;
		return 0;
	}
	if (grow((void **)&l->ranks, l->nranks, &l->cranks, sizeof(*l->ranks)))
		return -ENOMEM;
	r = &l->ranks[l->nranks++];
	r->rank = ev->rank;
	r->proc = proc;
	r->dev = ev->peer_dev;
	gf_strlcpy(r->busid, ev->busid, sizeof(r->busid));
	return 0;
}

static int msg_add(struct gf_nccl_log *l, int proc, const struct nccl_event *ev)
{
	int rank = ev->prefix_rank;
	struct nccl_msg *m;

	if (proc >= 0)
		rank = nccl_proc_rank(&l->procs[proc]);
	for (int i = 0; i < l->nmsgs; i++) {
		m = &l->msgs[i];
		if (m->kind == ev->kind && m->rank == rank && m->proc == proc && !strcmp(m->text, ev->text)) {
			if (ev->kind == EV_ENQUEUED && ev->count > m->count)
				m->count = ev->count;
			if (m->repeats < 1000000000)
				m->repeats++;
			return 0;
		}
	}
	if (l->nmsgs >= NCCL_MAX_MSGS) {
		l->dropped++;
		return 0;
	}
	if (grow((void **)&l->msgs, l->nmsgs, &l->cmsgs, sizeof(*l->msgs)))
		return -ENOMEM;
	m = &l->msgs[l->nmsgs++];
	m->kind = ev->kind;
	m->proc = proc;
	m->rank = rank;
	m->count = ev->count;
	m->repeats = 1;
	gf_strlcpy(m->text, ev->text, sizeof(m->text));
	return 0;
}

static void env_set(struct nccl_proc *p, const struct nccl_event *ev)
{
	for (int i = 0; i < p->nenv; i++)
		if (!strcmp(p->env[i].name, ev->a)) {
			gf_strlcpy(p->env[i].value, ev->b, sizeof(p->env[i].value));
			return;
		}
	if (p->nenv < NCCL_MAX_ENV) {
		gf_strlcpy(p->env[p->nenv].name, ev->a, sizeof(p->env[0].name));
		gf_strlcpy(p->env[p->nenv++].value, ev->b, sizeof(p->env[0].value));
	}
}

static void algo_add(struct nccl_proc *p, const struct nccl_event *ev)
{
	char s[64];

	snprintf(s, sizeof(s), "%.31s %.31s", ev->a, ev->b);
	for (int i = 0; i < p->nalgos; i++)
		if (!strcmp(p->algos[i], s))
			return;
	if (p->nalgos < NCCL_MAX_ALGOS)
		gf_strlcpy(p->algos[p->nalgos++], s, sizeof(p->algos[0]));
}

static void net_if(struct nccl_proc *p, const struct nccl_event *ev)
{
	char s[sizeof(p->net_ifs)];
	size_t n = strlen(p->net_ifs);

	snprintf(s, sizeof(s), "%s: %s", ev->a, ev->text);
	if (strstr(p->net_ifs, s))
		return;
	snprintf(p->net_ifs + n, sizeof(p->net_ifs) - n, "%s%s", n ? "; " : "", s);
}

static void init_seen(struct nccl_proc *p, const struct nccl_event *ev)
{
	int i;

	if (ev->nranks > p->nranks) {
		p->rank = ev->rank;
		p->nranks = ev->nranks;
		gf_strlcpy(p->busid, ev->busid, sizeof(p->busid));
	}
	if (!ev->flag)
		return;
	if (p->inits < 1000000000)
		p->inits++;
	for (i = 0; i < p->ncomms; i++)
		if (!strcmp(p->comms[i], ev->a))
			return;
	if (p->ncomms < NCCL_MAX_COMMS)
		gf_strlcpy(p->comms[p->ncomms++], ev->a, sizeof(p->comms[0]));
}

static int apply(struct gf_nccl_log *l, const char *source, const struct nccl_event *ev)
{
	struct nccl_proc *p;
	int pi = -1;

	if (ev->kind == EV_NONE)
		return 0;
	/* Only NCCL's own lines make a process; PyTorch's lines carry the
	 * launcher's rank at most, and their process is not named. */
	if (ev->pid < 0)
		return ev->kind == EV_TORCH_ERROR || ev->kind == EV_ENQUEUED ? msg_add(l, -1, ev) : 0;
	if ((pi = proc_of(l, source, ev)) < 0)
		return pi == -ENOSPC ? 0 : pi;
	p = &l->procs[pi];
	if (ev->prefix_rank >= 0 && p->prefix_rank < 0)
		p->prefix_rank = ev->prefix_rank;
	if (ev->dev >= 0 && p->dev < 0)
		p->dev = ev->dev;
	switch (ev->kind) {
	case EV_VERSION:
		gf_strlcpy(p->version, ev->a, sizeof(p->version));
		return 0;
	case EV_INIT:
		init_seen(p, ev);
		return rank_add(l, pi, ev);
	case EV_COMM:
		if (ev->nranks > p->nranks) {
			p->rank = ev->rank;
			p->nranks = ev->nranks;
		}
		return 0;
	case EV_TRANSPORT:
		return conn_add(l, ev);
	case EV_RING:
		if (ev->count > p->ring_channels)
			p->ring_channels = ev->count;
		return 0;
	case EV_TREE:
		if (!p->trees[0])
			gf_strlcpy(p->trees, ev->text, sizeof(p->trees));
		return 0;
	case EV_CHANNELS:
		p->coll_channels = ev->count;
		p->nvls_channels = ev->peer;
		return 0;
	case EV_ALGO:
		algo_add(p, ev);
		return 0;
	case EV_ENV:
		env_set(p, ev);
		return 0;
	case EV_GDR:
		if (p->gdr != 1)
			p->gdr = ev->flag;
		gf_strlcpy(p->gdr_nic, ev->a, sizeof(p->gdr_nic));
		return 0;
	case EV_NVLS:
		if (!p->nvls[0])
			gf_strlcpy(p->nvls, ev->text, sizeof(p->nvls));
		return 0;
	case EV_AFFINITY:
		gf_strlcpy(p->affinity, ev->text, sizeof(p->affinity));
		p->affinity_gpu_empty = ev->flag;
		return 0;
	case EV_NET:
		gf_strlcpy(p->net, ev->a, sizeof(p->net));
		return 0;
	case EV_NO_IB:
		p->no_ib = true;
		return 0;
	case EV_NET_IF:
		net_if(p, ev);
		return 0;
	case EV_WARN:
	case EV_TORCH_ERROR:
	case EV_ENQUEUED:
		return msg_add(l, pi, ev);
	default:
		return 0;
	}
}

int gf_nccl_log_feed_line(struct gf_nccl_log *l, const char *source, const char *line, size_t len)
{
	struct nccl_event ev;

	if (!l || !source || (!line && len))
		return gf_error(-EINVAL, "gf_nccl_log_feed_line: %s is NULL", !l ? "l" : !source ? "source" : "line");
	l->lines++;
	gf_nccl_line_parse(line, len, &ev);
	return apply(l, source, &ev);
}

int gf_nccl_log_feed_file(struct gf_nccl_log *l, const char *source, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!l || !source || !f)
		return gf_error(-EINVAL, "gf_nccl_log_feed_file: %s is NULL", !l ? "l" : !source ? "source" : "f");
	while ((n = getline(&line, &cap, f)) >= 0)
		if ((ret = gf_nccl_log_feed_line(l, source, line, (size_t)n)))
			break;
	if (!ret && ferror(f))
		ret = gf_error(-EIO, "%s: read failed", source);
	free(line);
	return ret;
}

int gf_nccl_log_findings(const struct gf_nccl_log *l, const struct gf_nccl_finding **out)
{
	if (!l || !out)
		return gf_error(-EINVAL, "gf_nccl_log_findings: %s is NULL", !l ? "l" : "out");
	*out = l->findings;
	return l->nfindings;
}

bool gf_nccl_log_clean(const struct gf_nccl_log *l)
{
	if (!l || !l->analysed)
		return false;
	for (int i = 0; i < l->nfindings; i++)
		if (l->findings[i].severity >= GF_SEV_WARN || l->findings[i].costs_bandwidth)
			return false;
	return true;
}

void nccl_findings_clear(struct gf_nccl_log *l)
{
	for (int i = 0; i < l->nfindings; i++) {
		free((char *)l->findings[i].source);
		free((char *)l->findings[i].ranks);
		free((char *)l->findings[i].text);
		free((char *)l->findings[i].fix);
	}
	l->nfindings = 0;
}

void gf_nccl_log_free(struct gf_nccl_log *l)
{
	if (!l)
		return;
	nccl_findings_clear(l);
	free(l->findings);
	free(l->procs);
	free(l->conns);
	free(l->ranks);
	free(l->msgs);
	free(l);
}
