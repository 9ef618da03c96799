/* The sampler (<gpufeed/monitor.h>): one monitor holds the model, the fs
 * the counters are read through and each part's previous readings; a
 * sample is every part read once, rates taken against the previous call.
 * Each part lives in its own file (monitor_internal.h lists them). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"
#include "monitor/monitor_internal.h"

double gf_mon_rate(uint64_t now, uint64_t prev, double dt)
{
	if (!(dt > 0) || now < prev)
		return NAN;
	return (double)(now - prev) / dt;
}

uint64_t gf_mon_meminfo_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *p = line;
		unsigned long long v;
		char unit[8] = "";
		int node;
		int used = 0;

		/* A node's meminfo prefixes every line with "Node N ". */
		if (sscanf(p, "Node %d %n", &node, &used) == 1 && used > 0)
			p += used;
		if (!strncmp(p, key, klen) && p[klen] == ':' &&
		    sscanf(p + klen + 1, "%llu %7s", &v, unit) >= 1)
			return strncmp(unit, "kB", 2) ? (uint64_t)v : (uint64_t)v * 1024;
		line = nl ? nl + 1 : NULL;
	}
	return GF_MON_NONE;
}

static void clock_now(void *arg, double *mono, double *real)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*mono = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	clock_gettime(CLOCK_REALTIME, &ts);
	*real = (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int check_opts(const struct gf_monitor_opts *o, const char *func)
{
	int ret;

	if (!o)
		return gf_arg_error(func, "opts is NULL");
	ret = gf_opts_check(o->struct_size, offsetof(struct gf_monitor_opts, topo) + sizeof(o->topo), func,
			    "GF_MONITOR_OPTS_INIT");
	if (ret)
		return ret;
	if (o->parts & ~(unsigned)GF_MON_ALL)
		return gf_arg_error(func, "parts: unknown bits 0x%x (enum gf_mon_part)", o->parts & ~(unsigned)GF_MON_ALL);
	if (o->pid < 0)
		return gf_arg_error(func, "pid %d is negative (0: no process)", (int)o->pid);
	if (o->children && o->pid == 0)
		return gf_arg_error(func, "children needs a pid");
	return 0;
}

void gf_monitor_close(struct gf_monitor *m)
{
	if (!m)
		return;
	gf_mon_proc_close(m);
	gf_mon_gpus_close(m);
	free(m->s.nodes);
	free(m->s.disks);
	free(m->s.nics);
	free(m->cpu_prev);
	free(m->disk_prev);
	free(m->nic_src);
	free(m->disk_block);
	if (m->fs_open)
		gf_fs_fini(&m->fs);
	gf_topo_free(m->own_topo);
	free(m);
}

int gf_monitor_open_hooked(const struct gf_monitor_opts *opts, const struct gf_mon_hooks *hooks,
			   struct gf_monitor **out)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_monitor *m = NULL;
	const char *root;
	int ret;

	if (!out)
		return gf_arg_error("gf_monitor_open", "out is NULL");
	*out = NULL;
	if ((ret = check_opts(opts, "gf_monitor_open")))
		return ret;
	gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	m = calloc(1, sizeof(*m));
	if (!m)
		return gf_error(-ENOMEM, "monitor: out of memory");
	/* With both, the model is the caller's and the counters are root's. */
	root = o.root;
	if ((ret = gf_fs_init(&m->fs, root)))
		goto fail;
	m->fs_open = true;
	m->live = gf_fs_live(&m->fs) || (hooks && hooks->root_is_live);
	m->clock = hooks && hooks->clock ? hooks->clock : clock_now;
	m->clock_arg = hooks ? hooks->clock_arg : NULL;
	m->parts = o.parts;
	m->pid = o.pid;
	m->children = o.children;
	if (o.topo) {
		m->topo = o.topo;
	} else {
		struct gf_topo_options to = GF_TOPO_OPTS_INIT;

		to.root = root;
		if ((ret = gf_topo_discover(&to, &m->own_topo)))
			goto fail;
		m->topo = m->own_topo;
	}
	gf_strlcpy(m->s.hostname, m->topo->machine.hostname, sizeof(m->s.hostname));
	if ((m->parts & GF_MON_NUMA) && (ret = gf_mon_nodes_open(m)))
		goto fail;
	if ((m->parts & GF_MON_DISK) && (ret = gf_mon_disks_open(m)))
		goto fail;
	if ((m->parts & GF_MON_NIC) && (ret = gf_mon_nics_open(m)))
		goto fail;
	if ((m->parts & GF_MON_GPU) && (ret = gf_mon_gpus_open(m)))
		goto fail;
	/* The pid is sampled for the GPUs' share too, shown with GF_MON_PROC. */
	if (m->pid > 0 && (ret = gf_mon_proc_open(m)))
		goto fail;
	if (!(m->parts & GF_MON_PROC))
		m->s.proc = NULL;
	*out = m;
	return 0;
fail:
	gf_monitor_close(m);
	return ret;
}

GF_API int gf_monitor_open(const struct gf_monitor_opts *opts, struct gf_monitor **out)
{
	return gf_monitor_open_hooked(opts, NULL, out);
}

GF_API int gf_monitor_sample(struct gf_monitor *m, const struct gf_mon_sample **out)
{
	double mono, real;
	int ret = 0;

	if (out)
		*out = NULL;
	if (!m)
		return GF_NULL_ARG("m");
	if (!out)
		return GF_NULL_ARG("out");
	m->clock(m->clock_arg, &mono, &real);
	m->s.t = real;
	m->s.interval_s = m->primed ? mono - m->prev_mono : 0;
	/* A recording's counters are one moment: no rate comes from them. */
	m->dt = m->live && m->primed ? m->s.interval_s : 0;
	if (!ret && (m->parts & GF_MON_NUMA))
		ret = gf_mon_nodes_sample(m);
	if (!ret && (m->parts & GF_MON_DISK))
		ret = gf_mon_disks_sample(m);
	if (!ret && (m->parts & GF_MON_NIC))
		ret = gf_mon_nics_sample(m);
	if (!ret && (m->parts & GF_MON_PAGECACHE))
		ret = gf_mon_pagecache_sample(m);
	/* The process first: the GPUs' share is its pids'. */
	if (!ret && m->proc)
		ret = gf_mon_proc_sample(m);
	if (!ret && (m->parts & GF_MON_GPU))
		ret = gf_mon_gpus_sample(m);
	if (ret)
		return ret;
	m->prev_mono = mono;
	m->primed = true;
	*out = &m->s;
	return 0;
}

GF_API const struct gf_topo *gf_monitor_topo(const struct gf_monitor *m)
{
	if (!m) {
		GF_NULL_ARG("m");
		return NULL;
	}
	return m->topo;
}
