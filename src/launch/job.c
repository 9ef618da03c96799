/* A bound launch (include/gpufeed/launch.h): the GPU each local rank takes,
 * every rank's binding computed before the first fork (an impossible one
 * starts nothing), the world; then the supervisor, with a setup that
 * applies them in each child. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "core/opts.h"
#include "launch/plan.h"

/* The caller's options over the defaults: 0 or -EINVAL. */
static int load_opts(const struct gf_launch_job_options *opts, const char *what, struct gf_launch_job_options *o)
{
	struct gf_launch_job_options def = GF_LAUNCH_JOB_OPTS_INIT;
	int ret;

	if (!opts)
		return gf_arg_error(what, "o is NULL");
	if ((ret = gf_opts_check(opts->struct_size, offsetof(struct gf_launch_job_options, machine) + sizeof(opts->machine),
				 what, "GF_LAUNCH_JOB_OPTS_INIT")))
		return ret;
	*o = def;
	gf_opts_copy(o, sizeof(*o), opts, opts->struct_size);
	if (o->nproc < 0 || o->nproc > GF_LAUNCH_MAX_PROCS)
		return gf_arg_error(what, "nproc %d ranks per node: 0 (one per GPU) to %d", o->nproc,
				    GF_LAUNCH_MAX_PROCS);
	if (o->max_restarts < 0 || o->max_restarts > GF_LAUNCH_MAX_RESTARTS)
		return gf_arg_error(what, "max_restarts %d: 0 to %d", o->max_restarts, GF_LAUNCH_MAX_RESTARTS);
	if (!(o->grace_s >= 0 && o->grace_s <= 86400))
		return gf_arg_error(what, "grace_s %g: 0 to 86400", o->grace_s);
	if (o->out_fd < 0 || o->err_fd < 0)
		return gf_arg_error(what, "%s %d is not a descriptor", o->out_fd < 0 ? "out_fd" : "err_fd",
				    o->out_fd < 0 ? o->out_fd : o->err_fd);
	if (o->no_bind && !o->nproc)
		return gf_error(-EINVAL, "launch: without binding no model is read to count GPUs: give the ranks per node");
	if (o->no_bind && (o->gpus || o->all_gpus_visible))
		return gf_error(-EINVAL, "launch: without binding there are no GPUs to name or show");
	return 0;
}

/* The launch default (exclusive), or the caller's over GF_BIND_OPTS_INIT. */
static int load_bind(const struct gf_bind_options *opts, const char *what, struct gf_bind_options *b)
{
	int ret;

	*b = (struct gf_bind_options)GF_BIND_OPTS_INIT;
	if (!opts) {
		b->cpu = GF_BIND_CPU_EXCLUSIVE;
		return 0;
	}
	if ((ret = gf_opts_check(opts->struct_size, offsetof(struct gf_bind_options, mem_optional) + sizeof(bool),
				 what, "GF_BIND_OPTS_INIT")))
		return ret;
	gf_opts_copy(b, sizeof(*b), opts, opts->struct_size);
	return 0;
}

/* The GPUs local ranks take: the list, else every whole GPU of the model;
 * their number, or -errno. */
static int choose_targets(struct gf_launch_plan *p, struct gf_bind_target *tg)
{
	const struct gf_topo *t = p->t;
	int n, nproc = p->o.nproc;

	if (!t->ngpus)
		return gf_error(-ENODEV, "no NVIDIA GPU in %s: nothing to bind to", t->machine.source);
	if (!p->o.gpus) {
		n = t->ngpus < GF_BIND_MAX_TARGETS ? t->ngpus : GF_BIND_MAX_TARGETS;
		for (int i = 0; i < n; i++)
			tg[i] = (struct gf_bind_target){ .gpu = i, .mig = -1 };
	} else if ((n = gf_bind_parse_targets(t, p->o.gpus, tg, GF_BIND_MAX_TARGETS)) < 0) {
		return gf_error(n, "gpus: %s", gf_last_error());
	}
	if (p->o.gpus && nproc && nproc != n)
		return gf_error(-EINVAL, "%d ranks per node but the GPU list names %d GPUs: one rank per GPU", nproc, n);
	if (nproc > n)
		return gf_error(-EINVAL, "%d ranks per node but %s has %d GPUs: one rank per GPU", nproc,
				t->machine.source, n);
	return nproc ? nproc : n;
}

/* --all-gpus-visible: every rank's CUDA_VISIBLE_DEVICES lists the job's
 * GPUs in rank order, so device LOCAL_RANK is the rank's own.  UUIDs when
 * every GPU has one, else PCI-order indices for all (CUDA_DEVICE_ORDER is
 * PCI_BUS_ID), never a mix. */
static int all_visible(struct gf_launch_plan *p)
{
	const struct gf_topo *t = p->t;
	char list[sizeof(p->b[0].visible_devices)];
	size_t len = 0;
	bool uuids = true;
	int n = p->w.nproc;

	for (int i = 0; i < n; i++) {
		const struct gf_bind_target *tg = &p->b[i].target[0];

		if (tg->mig >= 0)
			return gf_error(-EINVAL, "rank %d: MIG instance %s: a CUDA process enumerates one MIG instance only "
					"(NVIDIA MIG User Guide, device enumeration), so the job's GPUs cannot all be "
					"visible to each rank", i, t->gpus[tg->gpu].mig[tg->mig].uuid);
		for (int j = 0; j < i; j++)
			if (p->b[j].target[0].gpu == tg->gpu)
				return gf_error(-EINVAL, "ranks %d and %d both take GPU %d: with every GPU visible, device "
						"LOCAL_RANK would not be each rank's own", j, i, t->gpus[tg->gpu].index);
		uuids &= t->gpus[tg->gpu].uuid[0] != '\0';
	}
	list[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct gf_gpu *g = &t->gpus[p->b[i].target[0].gpu];
		int w = uuids ? snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "", g->uuid) :
				snprintf(list + len, sizeof(list) - len, "%s%d", i ? "," : "",
					 g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->index);

		if (w < 0 || (size_t)w >= sizeof(list) - len)
			return gf_error(-E2BIG, "%d GPUs do not fit in CUDA_VISIBLE_DEVICES", n);
		len += (size_t)w;
	}
	for (int i = 0; i < n; i++)
		strcpy(p->b[i].visible_devices, list);
	return 0;
}

/* Every rank's binding; exclusive: the GPUs launched split their nodes'
 * cores among them, not every GPU of the model. */
static int bind_ranks(struct gf_launch_plan *p)
{
	struct gf_bind_target tg[GF_BIND_MAX_TARGETS];
	int n, nsharing = 0, ret;

	if ((n = choose_targets(p, tg)) < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < nsharing && p->sharing[j] != tg[i].gpu)
			j++;
		if (j == nsharing)
			p->sharing[nsharing++] = tg[i].gpu;
	}
	p->bind.sharing = p->sharing;
	p->bind.nsharing = nsharing;
	if (!(p->b = calloc((size_t)n, sizeof(*p->b))))
		return gf_error(-ENOMEM, "launch: no memory for %d bindings", n);
	for (int i = 0; i < n; i++)
		if ((ret = gf_bind_compute(p->t, &tg[i], 1, &p->bind, &p->b[i])) < 0)
			return gf_error(ret, "rank %d: %s", i, gf_last_error());
	p->w.nproc = n;
	return p->o.all_gpus_visible ? all_visible(p) : 0;
}

/* A port nobody listens on now, as torchrun's --standalone picks one (the
 * kernel's choice for port 0; free again when the ranks bind it, barring
 * a race with another program, as for torchrun). */
static int free_port(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return gf_error_errno(-errno, "standalone: socket");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &len))
		err = -errno;
	close(fd);
	if (err)
		return gf_error_errno(err, "standalone: no free port on 127.0.0.1");
	*port = ntohs(a.sin_port);
	return 0;
}

/* A version 4 UUID (RFC 9562), the run id torchrun's --standalone makes. */
static int random_uuid(char *out, size_t size)
{
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error_errno(-errno, "standalone: getrandom");
		got += (size_t)n;
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);	/* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);	/* variant 10 */
	snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

/* --standalone: this host alone.  What the caller gave must agree. */
static int standalone_world(struct gf_launch_world *w)
{
	const char *clash = w->nnodes > 1 ? "nnodes" : w->node_rank > 0 ? "node rank" :
			    w->master_addr[0] ? "master address" : w->master_port >= 0 ? "master port" : NULL;
	const char *from = w->nnodes > 1 ? w->nnodes_from : w->node_rank > 0 ? w->node_rank_from :
			   w->master_addr[0] ? w->master_addr_from : w->master_port_from;
	int ret;

	if (clash)
		return gf_error(-EINVAL, "standalone: one node on this host at a free port, but the %s is given too (%s)",
				clash, from ? from : "given");
	if ((ret = free_port(&w->master_port)) || (!w->run_id[0] && (ret = random_uuid(w->run_id, sizeof(w->run_id)))))
		return ret;
	w->nnodes = 1;
	w->node_rank = 0;
	strcpy(w->master_addr, "127.0.0.1");
	w->nnodes_from = w->node_rank_from = w->master_addr_from = w->master_port_from = "--standalone";
	return 0;
}

static int copy_argv(struct gf_launch_plan *p)
{
	int n = 0;

	while (p->o.argv && p->o.argv[n])	/* none: a plan to print only */
		n++;
	if (!(p->argv = calloc((size_t)n + 1, sizeof(*p->argv))))
		return gf_error(-ENOMEM, "launch: no memory for the command");
	for (int i = 0; i < n; i++)
		if (!(p->argv[i] = strdup(p->o.argv[i])))
			return gf_error(-ENOMEM, "launch: no memory for the command");
	p->o.argv = p->argv;
	return 0;
}

GF_API int gf_launch_plan_new(const struct gf_topo *t, const struct gf_launch_job_options *o,
			      struct gf_launch_plan **out)
{
	struct gf_launch_plan *p;
	int ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return gf_error(-ENOMEM, "launch: no memory for the plan");
	if ((ret = load_opts(o, __func__, &p->o)) || (ret = load_bind(p->o.bind, __func__, &p->bind)))
		goto fail;
	p->o.bind = NULL;	/* the caller's; p->bind is the plan's copy */
	p->w = p->o.world ? *p->o.world : (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	p->o.world = NULL;
	p->w.nproc = p->o.nproc;
	if (!p->o.no_bind) {
		if (!(p->t = t)) {
			ret = gf_arg_error(__func__, "t is NULL: no model to bind with (o->no_bind is false)");
			goto fail;
		}
		if ((ret = bind_ranks(p)))
			goto fail;
	}
	if ((p->o.standalone && (ret = standalone_world(&p->w))) || (ret = gf_launch_world_resolve(&p->w)) ||
	    (ret = copy_argv(p)))
		goto fail;
	p->o.gpus = NULL;	/* the caller's string: not kept */
	p->o.machine = NULL;
	*out = p;
	return 0;
fail:
	gf_launch_plan_free(p);
	return ret;
}

GF_API void gf_launch_plan_free(struct gf_launch_plan *p)
{
	if (!p)
		return;
	for (int i = 0; p->argv && p->argv[i]; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->b);
	gf_topo_free(p->owned);
	free(p);
}

GF_API const struct gf_launch_world *gf_launch_plan_world(const struct gf_launch_plan *p)
{
	if (!p) {
		GF_NULL_ARG("p");
		return NULL;
	}
	return &p->w;
}

/* In each child, before exec: the rank's variables, then its binding. */
static int setup_rank(int local, void *arg)
{
	const struct gf_launch_plan *p = arg;
	int ret;

	if ((ret = gf_launch_world_setenv(&p->w, local)) || !p->b)
		return ret;
	if ((ret = gf_bind_apply(&p->b[local], &p->bind)) < 0)
		return ret;
	if (ret == GF_BIND_WARNED && !p->o.quiet)
		dprintf(STDERR_FILENO, "gpufeed launch: warning: %s\n", gf_last_error());
	return gf_bind_setenv(&p->b[local], p->o.env_flags);
}

GF_API int gf_launch_plan_run(const struct gf_launch_plan *p, struct gf_launch_result *res)
{
	struct gf_launch_options lo = GF_LAUNCH_OPTS_INIT;

	if (!p || !res)
		return GF_NULL_ARG(!p ? "p" : "res");
	lo.nproc = p->w.nproc;
	lo.argv = p->argv;
	lo.setup = setup_rank;
	lo.setup_arg = (void *)p;
	lo.rank_base = p->w.node_rank * p->w.nproc;
	lo.grace_s = p->o.grace_s;
	lo.out_fd = p->o.out_fd;
	lo.err_fd = p->o.err_fd;
	lo.prefix = p->o.prefix;
	lo.quiet = p->o.quiet;
	lo.max_restarts = p->o.max_restarts;
	return gf_launch_run(&lo, res);
}

GF_API int gf_launch_job(const struct gf_launch_job_options *opts, struct gf_launch_result *res)
{
	struct gf_launch_job_options o;
	struct gf_launch_plan *p = NULL;
	struct gf_topo *t = NULL;
	int ret;

	if (!res)
		return GF_NULL_ARG("res");
	if ((ret = load_opts(opts, __func__, &o)))
		return ret;
	if (!o.argv || !o.argv[0])
		return gf_arg_error(__func__, "%s: no command to run", !o.argv ? "argv is NULL" : "argv[0] is NULL");
	if (!o.no_bind && (ret = gf_topo_discover(o.machine, &t)))
		return ret;
	if ((ret = gf_launch_plan_new(t, opts, &p))) {
		gf_topo_free(t);
		return ret;
	}
	p->owned = t;
	ret = gf_launch_plan_run(p, res);
	gf_launch_plan_free(p);
	return ret;
}
