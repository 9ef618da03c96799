/* pread/pwrite back end: a pool of worker threads, for kernels or
 * containers without io_uring.  With a queue depth of 1 there is no pool:
 * the call runs in the caller's thread, as fio's psync engine does. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/cpuset.h>
#include "core/affinity.h"
#include "core/error.h"
#include "core/fs.h"
#include "io/engine.h"

struct psync_be {
	struct gf_io *io;
	pthread_t *th;
	unsigned nth;
	unsigned nid;		/* ids handed to workers */
	unsigned started;	/* workers that set themselves up */
	int node;		/* GF_IO_WORKER_NODE: run on this node's CPUs; -1 anywhere */
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	struct gf_io_slot *pend_head, *pend_tail;	/* waiting for a worker */
	struct gf_io_slot *done_head, *done_tail;	/* raw results */
	struct gf_io_slot *stage_head, *stage_tail;	/* issued, not flushed */
	struct gf_issue *iss;		/* per slot */
	long long *res;			/* per slot */
	int *op;			/* per slot */
	bool stop;
};

static void push(struct gf_io_slot **head, struct gf_io_slot **tail, struct gf_io_slot *s)
{
	s->next = NULL;
	if (*tail)
		(*tail)->next = s;
	else
		*head = s;
	*tail = s;
}

static long long run_one(int op, const struct gf_issue *is)
{
	ssize_t r;

	switch (op) {
	case GF_IO_READ:
		r = pread(is->fd, is->ptr, is->len, (off_t)is->off);
		break;
	case GF_IO_WRITE:
		r = pwrite(is->fd, is->ptr, is->len, (off_t)is->off);
		break;
	default:
		r = fdatasync(is->fd);
		break;
	}
	return r < 0 ? -errno : r;
}

/* The CPUs of a NUMA node, read through the same layer as the model. */
static void node_cpus(int node, cpu_set_t *set)
{
	char path[96], text[4096];
	struct gf_cpuset cs;
	struct gf_fs fs;

	CPU_ZERO(set);
	if (gf_fs_init(&fs, NULL))
		return;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (gf_fs_read_str(&fs, path, text, sizeof(text)) == 0 && gf_cpuset_parse_list(&cs, text) == 0)
		gf_cpuset_to_sys(&cs, set);
	gf_fs_fini(&fs);
}

/* Each worker moves itself onto the node's CPUs.  It cannot return an
 * error to anyone: what goes wrong (no such node, CPUs outside our cpuset)
 * becomes the engine's asynchronous error, and the worker runs anywhere. */
static void place_self(struct psync_be *be, unsigned id)
{
	cpu_set_t set;
	int rc;

	node_cpus(be->node, &set);
	if (!CPU_COUNT(&set)) {
		gf_io__async_error(be->io, -ENOENT, "psync worker %u: NUMA node %d has no CPUs listed in sysfs; "
				   "running on any CPU", id, be->node);
		return;
	}
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc)
		gf_io__async_error(be->io, -rc, "psync worker %u: cannot run on NUMA node %d's CPUs: %s; "
				   "running on any CPU", id, be->node, strerror(rc));
}

static void *worker(void *arg)
{
	struct psync_be *be = arg;
	unsigned id;

	pthread_mutex_lock(&be->mu);
	id = be->nid++;
	pthread_mutex_unlock(&be->mu);
	if (be->node >= 0)
		place_self(be, id);
	pthread_mutex_lock(&be->mu);
	be->started++;
	pthread_cond_broadcast(&be->done_cv);	/* psync_init waits for all */
	for (;;) {
		struct gf_io_slot *s;
		struct gf_issue is;
		long long res;
		int op;

		while (!be->stop && !be->pend_head)
			pthread_cond_wait(&be->work_cv, &be->mu);
		if (be->stop && !be->pend_head)
			break;
		s = be->pend_head;
		be->pend_head = s->next;
		if (!be->pend_head)
			be->pend_tail = NULL;
		is = be->iss[s->idx];
		op = be->op[s->idx];
		pthread_mutex_unlock(&be->mu);

		res = run_one(op, &is);

		pthread_mutex_lock(&be->mu);
		be->res[s->idx] = res;
		push(&be->done_head, &be->done_tail, s);
		pthread_cond_signal(&be->done_cv);
	}
	pthread_mutex_unlock(&be->mu);
	return NULL;
}


static void psync_fini(struct gf_io *io);

static int psync_init(struct gf_io *io)
{
	struct psync_be *be = calloc(1, sizeof(*be));
	unsigned qd = io->opts.queue_depth;
	pthread_condattr_t ca;
	int rc = 0;

	if (!be)
		return gf_error(-ENOMEM, "psync: out of memory");
	be->iss = calloc(qd, sizeof(*be->iss));
	be->res = calloc(qd, sizeof(*be->res));
	be->op = calloc(qd, sizeof(*be->op));
	be->nth = io->opts.threads ? io->opts.threads : (qd < 16 ? qd : 16);
	if (qd == 1 && !io->opts.threads)
		be->nth = 0;	/* inline: the caller's thread does the call */
	be->th = calloc(be->nth ? be->nth : 1, sizeof(*be->th));
	if (!be->iss || !be->res || !be->op || !be->th) {
		free(be->iss);
		free(be->res);
		free(be->op);
		free(be->th);
		free(be);
		return gf_error(-ENOMEM, "psync: out of memory");
	}
	pthread_mutex_init(&be->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&be->work_cv, NULL);
	pthread_cond_init(&be->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	io->be = be;
	be->io = io;
	be->node = (io->opts.flags & GF_IO_WORKER_NODE) && io->opts.cpu_node >= 0 ? io->opts.cpu_node : -1;

	unsigned want = be->nth;
	be->nth = 0;
	for (unsigned i = 0; i < want; i++) {
		rc = pthread_create(&be->th[i], NULL, worker, be);
		if (rc) {
			rc = gf_error(-rc, "psync: starting worker %u: %s", i, strerror(rc));
			break;
		}
		be->nth++;
	}
	if (rc) {
		psync_fini(io);
		return rc;
	}
	/* Set up (placed, or their error recorded) before the first request,
	 * so gf_io_async_error() tells right after gf_io_open(). */
	pthread_mutex_lock(&be->mu);
	while (be->started < be->nth)
		pthread_cond_wait(&be->done_cv, &be->mu);
	pthread_mutex_unlock(&be->mu);
	return 0;
}

static void psync_fini(struct gf_io *io)
{
	struct psync_be *be = io->be;

	pthread_mutex_lock(&be->mu);
	be->stop = true;
	pthread_cond_broadcast(&be->work_cv);
	pthread_mutex_unlock(&be->mu);
	for (unsigned i = 0; i < be->nth; i++)
		pthread_join(be->th[i], NULL);
	pthread_mutex_destroy(&be->mu);
	pthread_cond_destroy(&be->work_cv);
	pthread_cond_destroy(&be->done_cv);
	free(be->iss);
	free(be->res);
	free(be->op);
	free(be->th);
	free(be);
	io->be = NULL;
}

static int psync_issue(struct gf_io *io, struct gf_io_slot *s, const struct gf_issue *is)
{
	struct psync_be *be = io->be;

	be->iss[s->idx] = *is;
	be->op[s->idx] = s->op;
	push(&be->stage_head, &be->stage_tail, s);
	return 0;
}

static int psync_flush(struct gf_io *io)
{
	struct psync_be *be = io->be;
	struct gf_io_slot *s;
	unsigned n = 0;

	if (!be->stage_head)
		return 0;
	if (!be->nth) {
		/* Inline: run now, report at the next reap. */
		while ((s = be->stage_head)) {
			be->stage_head = s->next;
			be->res[s->idx] = run_one(be->op[s->idx], &be->iss[s->idx]);
			push(&be->done_head, &be->done_tail, s);
		}
		be->stage_tail = NULL;
		return 0;
	}
	for (s = be->stage_head; s; s = s->next)
		n++;
	pthread_mutex_lock(&be->mu);
	if (be->pend_tail)
		be->pend_tail->next = be->stage_head;
	else
		be->pend_head = be->stage_head;
	be->pend_tail = be->stage_tail;
	if (n > 1)
		pthread_cond_broadcast(&be->work_cv);
	else
		pthread_cond_signal(&be->work_cv);
	pthread_mutex_unlock(&be->mu);
	be->stage_head = be->stage_tail = NULL;
	return 0;
}

static int psync_reap(struct gf_io *io, unsigned min, long long timeout_ns)
{
	struct psync_be *be = io->be;
	struct gf_io_slot *list;
	int total = 0;

	pthread_mutex_lock(&be->mu);
	if (min && !be->done_head && be->nth) {
		struct timespec dl;

		if (timeout_ns >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &dl);
			dl.tv_sec += timeout_ns / 1000000000ll;
			dl.tv_nsec += (long)(timeout_ns % 1000000000ll);
			if (dl.tv_nsec >= 1000000000L) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000L;
			}
		}
		while (!be->done_head) {
			int rc = timeout_ns < 0 ? pthread_cond_wait(&be->done_cv, &be->mu)
						: pthread_cond_timedwait(&be->done_cv, &be->mu, &dl);
			if (rc == ETIMEDOUT) {
				pthread_mutex_unlock(&be->mu);
				return -ETIME;
			}
		}
	}
	list = be->done_head;
	be->done_head = be->done_tail = NULL;
	pthread_mutex_unlock(&be->mu);

	while (list) {
		struct gf_io_slot *s = list;

		list = s->next;	/* before raw_done: it may reissue s */
		gf_io__raw_done(io, s, be->res[s->idx]);
		total++;
	}
	return total;
}

static int psync_cancel(struct gf_io *io, struct gf_io_slot *s)
{
	struct psync_be *be = io->be;
	struct gf_io_slot **pp, *prev = NULL;

	/* Staged (not flushed) requests are cancelled at their completion. */
	pthread_mutex_lock(&be->mu);
	for (pp = &be->pend_head; *pp; prev = *pp, pp = &(*pp)->next) {
		if (*pp != s)
			continue;
		*pp = s->next;
		if (be->pend_tail == s)
			be->pend_tail = prev;
		be->res[s->idx] = -ECANCELED;
		push(&be->done_head, &be->done_tail, s);
		pthread_cond_signal(&be->done_cv);
		break;
	}
	pthread_mutex_unlock(&be->mu);
	return 0;
}

const struct gf_io_backend_ops gf_io_psync_ops = {
	.name = "psync",
	.init = psync_init,
	.fini = psync_fini,
	.issue = psync_issue,
	.flush = psync_flush,
	.reap = psync_reap,
	.cancel = psync_cancel,
};
