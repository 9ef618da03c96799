/* The handler behind gf_sigclean_mkdtemp (see sigclean.h).  The table is read
 * by the handler without a lock: a slot's path is written before its
 * `used` flag is set (release), and read after the flag (acquire). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/rmtree.h"
#include "core/sigclean.h"

#define SLOTS 16

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

static struct {
	char dir[PATH_MAX];
	pid_t owner;			/* a forked child's signal is not ours */
	atomic_bool used;
} slots[SLOTS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int nused;
static struct sigaction prev[NSIGS];	/* what the handler stands in for */
static bool standing[NSIGS];		/* the handler was put in for sigs[i] */

static void remove_all(void)
{
	pid_t self = getpid();

	for (int i = 0; i < SLOTS; i++)
		if (atomic_load_explicit(&slots[i].used, memory_order_acquire) && slots[i].owner == self)
			gf_rmtree_signal_safe(slots[i].dir);
}

static bool is_default(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;
	size_t i = 0;
	struct sigaction now;
	sigset_t pending;

	while (i < NSIGS - 1 && sigs[i] != sig)
		i++;
	if (is_default(&prev[i])) {
		/* The signal ends the process: the directories go first.  Raised
		 * again, it stays pending until this handler returns. */
		remove_all();
		memset(&now, 0, sizeof(now));
		now.sa_handler = SIG_DFL;
		sigaction(sig, &now, NULL);
		raise(sig);
	} else if (prev[i].sa_flags & SA_SIGINFO) {
		prev[i].sa_sigaction(sig, info, ctx);
	} else if (prev[i].sa_handler != SIG_IGN) {
		prev[i].sa_handler(sig);
	}
	/* The handler stood in for chose to die of the signal. */
	if (!is_default(&prev[i]) && !sigaction(sig, NULL, &now) && is_default(&now) && !sigpending(&pending) &&
	    sigismember(&pending, sig) == 1)
		remove_all();
	errno = saved;
}

static bool is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_signal;
}

static void stand_in(void)
{
	for (size_t i = 0; i < NSIGS; i++) {
		struct sigaction cur, sa;

		standing[i] = false;
		if (sigaction(sigs[i], NULL, &cur))
			continue;
		if (is_ours(&cur)) {
			/* Put back by code that had saved it: prev[i] still holds
			 * what it stands in for. */
			standing[i] = true;
			continue;
		}
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
			continue;		/* ignored: it ends nothing */
		prev[i] = cur;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | (cur.sa_flags & (SA_RESTART | SA_ONSTACK));
		sa.sa_mask = cur.sa_mask;
		for (size_t j = 0; j < NSIGS; j++)
			sigaddset(&sa.sa_mask, sigs[j]);
		standing[i] = !sigaction(sigs[i], &sa, NULL);
	}
}

static void step_down(void)
{
	for (size_t i = 0; i < NSIGS; i++) {
		struct sigaction cur;

		/* A handler put in after this one is left alone. */
		if (standing[i] && !sigaction(sigs[i], NULL, &cur) && is_ours(&cur))
			sigaction(sigs[i], &prev[i], NULL);
		standing[i] = false;
	}
}

/* The three signals held off in this thread while the table changes. */
static void hold(sigset_t *saved)
{
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < NSIGS; i++)
		sigaddset(&block, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

int gf_sigclean_mkdtemp(char *tmpl, int *slot)
{
	sigset_t saved;
	int ret = 0;

	*slot = -1;
	hold(&saved);
	if (!mkdtemp(tmpl)) {
		ret = -errno;
		goto out;
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < SLOTS; i++)
		if (!atomic_load_explicit(&slots[i].used, memory_order_relaxed)) {
			*slot = i;
			break;
		}
	if (*slot >= 0 && strlen(tmpl) < sizeof(slots[0].dir)) {
		strcpy(slots[*slot].dir, tmpl);
		slots[*slot].owner = getpid();
		atomic_store_explicit(&slots[*slot].used, true, memory_order_release);
		if (nused++ == 0)
			stand_in();
	} else {
		*slot = -1;
	}
	pthread_mutex_unlock(&lock);
out:
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return ret;
}

void gf_sigclean_drop(int slot)
{
	sigset_t saved;

	if (slot < 0 || slot >= SLOTS)
		return;
	hold(&saved);
	pthread_mutex_lock(&lock);
	if (atomic_load_explicit(&slots[slot].used, memory_order_relaxed)) {
		atomic_store_explicit(&slots[slot].used, false, memory_order_release);
		if (--nused == 0)
			step_down();
	}
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}
