/* Communicators over this process's GPUs (coll/comm.h): one process over
 * every GPU it was given (ncclCommInitRank per GPU inside one group, the
 * shape of ncclCommInitAll but with our deadline), or one rank of a
 * multi-process job whose unique id and NCCL versions travel over ctl. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/comm.h"
#include "core/error.h"

#define POLL_NS 20000L		/* between polls of a wait: 20 us */
#define STREAM_NON_BLOCKING 1u	/* CU_STREAM_NON_BLOCKING, as nccl-tests' streams */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_briefly(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* "GPU 0000:18:00.0 (rank 2)": where a failure happened. */
static const char *where(const struct gf_coll_gpu *g, char *buf, size_t size)
{
	snprintf(buf, size, "GPU %s (rank %d)", g->dev.pci, g->rank);
	return buf;
}

/* A wait past its deadline: the communicators are aborted (a non-blocking
 * NCCL never finishes on its own after a dead peer) and, in a job, the
 * ranks meet once more so the message can name the rank that is stuck
 * (hung inside NCCL, or never called it) rather than only this one. */
static int timed_out(struct gf_coll_comm *c, const struct gf_coll_gpu *g, const char *what)
{
	char msg[512], w[64], step[160];
	double grace = c->timeout_s < 10 ? c->timeout_s : 10;

	snprintf(msg, sizeof(msg), "'%s' did not finish within %g s on %s", what, c->timeout_s,
		 where(g, w, sizeof(w)));
	gf_coll_comm_abort(c);
	if (!c->ctl)
		return gf_error(-ETIMEDOUT, "%s", msg);
	snprintf(step, sizeof(step), "the end of '%s'", what);
	if (gf_coll_ctl_barrier(c->ctl, grace, step))
		return gf_error(-ETIMEDOUT, "%s: %s", msg, gf_last_error());
	return gf_error(-ETIMEDOUT, "%s; every rank reached the end of it, so NCCL itself did not finish", msg);
}

/* Polls every communicator until none is in progress: 0, the first
 * asynchronous error, or -ETIMEDOUT at the deadline (the communicators are
 * then aborted: a non-blocking NCCL never finishes on its own after a dead
 * peer). */
static int settle(struct gf_coll_comm *c, double deadline, const char *what)
{
	char w[64];

	for (;;) {
		int busy = -1;

		for (int i = 0; i < c->ngpus; i++) {
			gf_nccl_result async = GF_NCCL_SUCCESS, r;

			if (!c->gpu[i].comm)
				continue;
			r = c->nccl->comm_get_async_error(c->gpu[i].comm, &async);
			if (r != GF_NCCL_SUCCESS)
				async = r;
			if (async == GF_NCCL_IN_PROGRESS) {
				if (busy < 0)
					busy = i;
				continue;
			}
			if (async != GF_NCCL_SUCCESS) {
				int rc = gf_nccl_check(c->nccl, c->gpu[i].comm, async, what);

				gf_coll_comm_abort(c);
				return gf_error(rc, "%s on %s", gf_last_error(), where(&c->gpu[i], w, sizeof(w)));
			}
		}
		if (busy < 0)
			return 0;
		if (now_s() > deadline)
			return timed_out(c, &c->gpu[busy], what);
		pause_briefly();
	}
}

int gf_coll_comm_ready(struct gf_coll_comm *c, gf_nccl_result r, const char *what)
{
	if (r == GF_NCCL_SUCCESS || r == GF_NCCL_IN_PROGRESS)
		return settle(c, now_s() + c->timeout_s, what);
	gf_coll_comm_abort(c);
	return gf_nccl_check(c->nccl, NULL, r, what);
}

/* nccl-tests' testStreamSynchronize: every stream queried in turn, a busy
 * one's communicator asked for an asynchronous error, the CPU yielded when
 * nothing changed; no sleep, whose timer slack (50 us) would land in the
 * time of every size. */
int gf_coll_comm_wait(struct gf_coll_comm *c, const char *what)
{
	const struct gf_cuda_ops *cu;
	double deadline;
	bool *done;
	char w[64];
	int left, rc = 0;

	if (!c)
		return gf_error(-EINVAL, "gf_coll_comm_wait: c is NULL");
	deadline = now_s() + c->timeout_s;
	if ((rc = settle(c, deadline, what)))
		return rc;
	if (!(done = calloc((size_t)c->ngpus, sizeof(*done))))
		return gf_error(-ENOMEM, "coll: out of memory");
	cu = c->gpu[0].dev.ops;
	for (left = c->ngpus; left > 0 && !rc;) {
		bool idle = true;

		for (int i = 0; i < c->ngpus && !rc; i++) {
			struct gf_coll_gpu *g = &c->gpu[i];
			gf_nccl_result async = GF_NCCL_SUCCESS;
			gf_cu_result r;

			if (done[i])
				continue;
			if ((rc = gf_cuda_dev_make_current(&g->dev)))
				break;
			/* an old driver without cuStreamQuery: no deadline */
			r = cu->stream_query ? cu->stream_query(g->stream) : cu->stream_synchronize(g->stream);
			if (r == GF_CUDA_SUCCESS) {
				done[i] = true;
				left--;
				idle = false;
				continue;
			}
			if (r != GF_CUDA_ERROR_NOT_READY) {
				rc = gf_cuda_check(cu, r, what);
				gf_coll_comm_abort(c);
				rc = gf_error(rc, "%s on %s", gf_last_error(), where(g, w, sizeof(w)));
				break;
			}
			/* a collective stuck on a peer shows here first */
			if (g->comm && c->nccl->comm_get_async_error(g->comm, &async) == GF_NCCL_SUCCESS &&
			    async != GF_NCCL_SUCCESS && async != GF_NCCL_IN_PROGRESS) {
				rc = gf_nccl_check(c->nccl, g->comm, async, what);
				gf_coll_comm_abort(c);
				rc = gf_error(rc, "%s on %s", gf_last_error(), where(g, w, sizeof(w)));
				break;
			}
			if (now_s() > deadline)
				rc = timed_out(c, g, what);
		}
		if (idle && !rc)
			sched_yield();
	}
	free(done);
	return rc ? rc : settle(c, deadline, what);
}

void gf_coll_comm_abort(struct gf_coll_comm *c)
{
	if (!c || !c->nccl)
		return;
	for (int i = 0; i < c->ngpus; i++)
		if (c->gpu[i].comm) {
			c->nccl->comm_abort(c->gpu[i].comm);
			c->gpu[i].comm = NULL;
		}
}

void gf_coll_comm_close(struct gf_coll_comm *c)
{
	if (!c)
		return;
	for (int i = 0; c->gpu && i < c->ngpus; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];

		if (g->comm) {
			gf_cuda_dev_make_current(&g->dev);
			c->nccl->comm_destroy(g->comm);
		}
		if (g->stream) {
			gf_cuda_dev_make_current(&g->dev);
			g->dev.ops->stream_destroy(g->stream);
		}
		gf_cuda_dev_close(&g->dev);
	}
	gf_coll_ctl_close(c->ctl);
	free(c->gpu);
	free(c);
}

static int open_gpus(struct gf_coll_comm *c, const struct gf_coll_comm_opts *o, int first_rank)
{
	int rc;

	for (int i = 0; i < c->ngpus; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];
		const struct gf_cuda_ops *cu;

		g->rank = first_rank + i;
		if ((rc = gf_cuda_dev_open_pci(o->pcis[i], &g->dev)))
			return gf_error(rc, "rank %d: %s", g->rank, gf_last_error());
		cu = g->dev.ops;
		if ((rc = gf_cuda_check(cu, cu->stream_create(&g->stream, STREAM_NON_BLOCKING), "cuStreamCreate")))
			return gf_error(rc, "%s on GPU %s", gf_last_error(), g->dev.pci);
	}
	return 0;
}

/* The communicators are blocking ones (NCCL's default, as nccl-tests
 * makes them): with `blocking = 0` every ncclGroupEnd hands its work to a
 * new thread and returns ncclInProgress (NCCL's group.cc), a cost per
 * launch that would show in every small size's figure.  Only init can
 * block the caller (bootstrap waits for every rank), so init runs in a
 * thread of its own and the caller waits for it with the deadline; a
 * thread still stuck at the deadline is left behind with what it owns. */
struct init_job {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done, abandoned;
	const struct gf_nccl_ops *nccl;
	struct gf_nccl_unique_id id;
	int nranks, ngpus;
	struct gf_cuda_dev *devs;	/* copies, [ngpus] */
	int *ranks;
	gf_nccl_comm *comms;
	gf_nccl_result r;
	int rc;
	char msg[512];
};

static void init_job_free(struct init_job *j)
{
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->done_cv);
	free(j->devs);
	free(j->ranks);
	free(j->comms);
	free(j);
}

static void *init_main(void *arg)
{
	struct init_job *j = arg;
	const struct gf_nccl_ops *n = j->nccl;
	gf_nccl_result r = GF_NCCL_SUCCESS, gr;
	bool abandoned;
	int rc = 0;

	if (j->ngpus > 1)
		r = n->group_start();
	for (int i = 0; i < j->ngpus && r == GF_NCCL_SUCCESS && !rc; i++)
		if (!(rc = gf_cuda_dev_make_current(&j->devs[i])))
			r = n->comm_init_rank(&j->comms[i], j->nranks, j->id, j->ranks[i]);
	if (j->ngpus > 1) {
		gr = n->group_end();
		if (r == GF_NCCL_SUCCESS)
			r = gr;
	}
	pthread_mutex_lock(&j->lock);
	j->r = r;
	j->rc = rc;
	if (rc)
		snprintf(j->msg, sizeof(j->msg), "%s", gf_last_error());
	j->done = true;
	abandoned = j->abandoned;
	pthread_cond_signal(&j->done_cv);
	pthread_mutex_unlock(&j->lock);
	if (abandoned) {
		/* the caller gave up: these communicators are no one's */
		for (int i = 0; i < j->ngpus; i++)
			if (j->comms[i])
				n->comm_abort(j->comms[i]);
		init_job_free(j);
	}
	return NULL;
}

/* ncclCommInitRank for each of this process's GPUs, inside one group when
 * there are several (NCCL's way of making many ranks in one thread). */
static int init_comms(struct gf_coll_comm *c, const struct gf_nccl_unique_id *id)
{
	struct init_job *j = calloc(1, sizeof(*j));
	struct timespec dl;
	pthread_t t;
	double end = now_s() + c->timeout_s;
	bool done;
	int rc = 0;

	if (!j || !(j->devs = calloc((size_t)c->ngpus, sizeof(*j->devs))) ||
	    !(j->ranks = calloc((size_t)c->ngpus, sizeof(*j->ranks))) ||
	    !(j->comms = calloc((size_t)c->ngpus, sizeof(*j->comms)))) {
		if (j) {
			free(j->devs);
			free(j->ranks);
		}
		free(j);
		return gf_error(-ENOMEM, "coll: out of memory");
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->done_cv, NULL);
	j->nccl = c->nccl;
	j->id = *id;
	j->nranks = c->nranks;
	j->ngpus = c->ngpus;
	for (int i = 0; i < c->ngpus; i++) {
		j->devs[i] = c->gpu[i].dev;
		j->ranks[i] = c->gpu[i].rank;
	}
	if ((rc = pthread_create(&t, NULL, init_main, j))) {
		init_job_free(j);
		return gf_error(-rc, "coll: cannot start the NCCL init thread: %s", strerror(rc));
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += (time_t)c->timeout_s;
	dl.tv_nsec += (long)((c->timeout_s - (double)(time_t)c->timeout_s) * 1e9);
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&j->lock);
	while (!j->done && now_s() < end)
		if (pthread_cond_timedwait(&j->done_cv, &j->lock, &dl) == ETIMEDOUT)
			break;
	done = j->done;
	j->abandoned = !done;
	pthread_mutex_unlock(&j->lock);
	if (!done) {
		/* NCCL may never return: the thread frees the job if it does */
		pthread_detach(t);
		return timed_out(c, &c->gpu[0], "NCCL communicator init");
	}
	/* Joined, not detached, when it finished: a detached thread still
	 * exiting when the process ends races LeakSanitizer's stop-the-world
	 * (its tracer crashed in one run of five under the sanitizer build). */
	pthread_join(t, NULL);
	for (int i = 0; i < c->ngpus; i++)
		c->gpu[i].comm = j->comms[i];
	if (j->rc)
		rc = gf_error(j->rc, "%s", j->msg);
	else if (j->r != GF_NCCL_SUCCESS)
		rc = gf_nccl_check(c->nccl, NULL, j->r, "ncclCommInitRank");
	init_job_free(j);
	if (rc) {
		gf_coll_comm_abort(c);
		return rc;
	}
	return settle(c, now_s() + c->timeout_s, "NCCL communicator init");
}

/* What rank 0 hands every rank: its verdict on the NCCL versions ("" when
 * they agree) and the unique id. */
struct hello {
	char verdict[320];
	struct gf_nccl_unique_id id;
};

static int exchange(struct gf_coll_comm *c, struct gf_nccl_unique_id *id)
{
	int *versions = NULL, rank = c->gpu[0].rank, rc;
	struct hello h;

	memset(&h, 0, sizeof(h));
	if (rank == 0 && !(versions = calloc((size_t)c->nranks, sizeof(*versions))))
		return gf_error(-ENOMEM, "coll: out of memory");
	rc = gf_coll_ctl_gather(c->ctl, &c->nccl_version, versions, sizeof(int), c->timeout_s, "NCCL version");
	if (rc)
		goto out;
	if (rank == 0) {
		for (int r = 1; r < c->nranks; r++)
			if (versions[r] != versions[0]) {
				char who_r[128];

				snprintf(who_r, sizeof(who_r), "%s", gf_coll_ctl_who(c->ctl, r));
				snprintf(h.verdict, sizeof(h.verdict), "%s has NCCL %d.%d.%d, %s has %d.%d.%d", who_r,
					 versions[r] / 10000, versions[r] / 100 % 100, versions[r] % 100,
					 gf_coll_ctl_who(c->ctl, 0), versions[0] / 10000, versions[0] / 100 % 100,
					 versions[0] % 100);
				break;
			}
		if (!h.verdict[0] && (rc = gf_nccl_check(c->nccl, NULL, c->nccl->get_unique_id(&h.id),
							 "ncclGetUniqueId"))) {
			gf_coll_ctl_abort(c->ctl, gf_last_error());
			goto out;
		}
	}
	if ((rc = gf_coll_ctl_bcast(c->ctl, &h, sizeof(h), c->timeout_s, "NCCL unique id")))
		goto out;
	h.verdict[sizeof(h.verdict) - 1] = '\0';
	if (h.verdict[0]) {
		rc = gf_error(-EPROTO, "NCCL versions differ: %s", h.verdict);
		goto out;
	}
	*id = h.id;
out:
	free(versions);
	return rc;
}

int gf_coll_comm_open(const struct gf_coll_comm_opts *o, struct gf_coll_comm **out)
{
	struct gf_nccl_unique_id id;
	struct gf_coll_comm *c;
	char why[512];
	int rc;

	if (out)
		*out = NULL;
	if (!o || !out)
		return gf_error(-EINVAL, "gf_coll_comm_open: %s is NULL", !o ? "o" : "out");
	if (o->npcis < 1 || !o->pcis || (o->world && o->npcis != 1) || !(o->timeout_s > 0))
		return gf_error(-EINVAL, "gf_coll_comm_open: %s",
				o->npcis < 1 || !o->pcis ? "no GPU given"
				: !(o->timeout_s > 0)	 ? "timeout_s must be > 0"
							 : "one GPU per rank in a multi-process job");
	if (!(c = calloc(1, sizeof(*c))) || !(c->gpu = calloc((size_t)o->npcis, sizeof(*c->gpu)))) {
		free(c);
		return gf_error(-ENOMEM, "coll: out of memory");
	}
	c->ngpus = o->npcis;
	c->nranks = o->world ? o->world->nranks : o->npcis;
	c->timeout_s = o->timeout_s;
	if ((rc = gf_nccl_load(&c->nccl, why, sizeof(why)))) {
		rc = gf_error(rc, "NCCL not available: %s", why);
		goto fail;
	}
	if ((rc = gf_nccl_check(c->nccl, NULL, c->nccl->get_version(&c->nccl_version), "ncclGetVersion")))
		goto fail;
	if ((rc = open_gpus(c, o, o->world ? o->world->rank : 0)))
		goto fail;
	if (o->world) {
		if ((rc = gf_coll_ctl_open(o->world, o->timeout_s, &c->ctl)) || (rc = exchange(c, &id)))
			goto fail;
	} else if ((rc = gf_nccl_check(c->nccl, NULL, c->nccl->get_unique_id(&id), "ncclGetUniqueId"))) {
		goto fail;
	}
	if ((rc = init_comms(c, &id)))
		goto fail;
	*out = c;
	return 0;
fail:
	if (c->ctl && rc != -ECONNRESET && rc != -EPROTO)
		gf_coll_ctl_abort(c->ctl, gf_last_error());
	{
		/* close must not overwrite the message */
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", gf_last_error());
		gf_coll_comm_close(c);
		gf_error(rc, "%s", msg);
	}
	return rc;
}
