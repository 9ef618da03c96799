/* The sampled process (opts.pid): whether it lives, and the pids its GPU
 * share is counted for. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/proc.h"
#include "monitor/monitor_internal.h"

struct mon_proc {
	struct gf_mon_proc out;
	unsigned *pids;			/* the process and its descendants, last sample */
	unsigned npids;
};

int gf_mon_proc_open(struct gf_monitor *m)
{
	struct gf_proc p;
	char *text;
	int ret;

	gf_proc_init(&p, &m->fs, (int)m->pid);
	if ((ret = gf_proc_read(&p, "stat", &text, NULL)))
		return ret;
	free(text);
	m->proc = calloc(1, sizeof(*m->proc));
	if (!m->proc)
		return gf_error(-ENOMEM, "monitor: out of memory");
	m->proc->out.pid = m->pid;
	m->proc->out.alive = true;
	m->s.proc = &m->proc->out;
	return 0;
}

bool gf_mon_proc_has(const struct gf_monitor *m, unsigned pid)
{
	for (unsigned i = 0; m->proc && i < m->proc->npids; i++)
		if (m->proc->pids[i] == pid)
			return true;
	return false;
}

int gf_mon_proc_sample(struct gf_monitor *m)
{
	(void)m;
	return 0;
}

void gf_mon_proc_close(struct gf_monitor *m)
{
	if (!m->proc)
		return;
	free(m->proc->out.threads);
	free(m->proc->pids);
	free(m->proc);
	m->proc = NULL;
}
