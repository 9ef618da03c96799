/* CPU busy and iowait per NUMA node, from /proc/stat's per-CPU lines
 * summed over the node's CPUs (mpstat's arithmetic: busy is every state
 * but idle and iowait; guest time is already inside user), and the node's
 * memory from its meminfo.  proc(5), "/proc/stat"; the kernel's
 * Documentation/filesystems/proc.rst, "1.8 Miscellaneous kernel statistics". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "monitor/monitor_internal.h"

struct cpu_sum {
	uint64_t busy, iowait, total;
};

int gf_mon_nodes_open(struct gf_monitor *m)
{
	const struct gf_topo *t = m->topo;
	unsigned n = t->numa.nnodes > 0 ? (unsigned)t->numa.nnodes : 1;

	m->s.nodes = calloc(n, sizeof(*m->s.nodes));
	m->cpu_prev = calloc(n, sizeof(*m->cpu_prev));
	if (!m->s.nodes || !m->cpu_prev)
		return gf_error(-ENOMEM, "monitor: out of memory");
	m->s.nnodes = n;
	for (unsigned i = 0; i < n; i++) {
		/* Without NUMA in the kernel the whole machine is one node. */
		m->s.nodes[i].node = t->numa.nnodes > 0 ? t->numa.node[i].id : 0;
		m->s.nodes[i].cpu_busy = m->s.nodes[i].cpu_iowait = NAN;
	}
	return 0;
}

/* "cpu12 user nice system idle iowait irq softirq steal guest guest_nice":
 * the CPU's number and its sums, or -1 for any other line. */
static int parse_cpu_line(const char *line, struct cpu_sum *c)
{
	unsigned long long v[8] = { 0 };
	int cpu;

	if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
		return -1;
	if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 5)
		return -1;
	c->iowait = v[4];
	c->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	c->total = c->busy + v[3] + v[4];
	return cpu;
}

static int read_cpu(struct gf_monitor *m)
{
	const struct gf_topo *t = m->topo;
	struct cpu_sum *sum;
	char *text = NULL;
	int ret = 0;

	for (unsigned i = 0; i < m->s.nnodes; i++)
		m->s.nodes[i].cpu_busy = m->s.nodes[i].cpu_iowait = NAN;
	if (!m->live || gf_fs_read(&m->fs, "/proc/stat", &text, NULL))
		return 0;
	sum = calloc(m->s.nnodes, sizeof(*sum));
	if (!sum) {
		ret = gf_error(-ENOMEM, "monitor: out of memory");
		goto out;
	}
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		struct cpu_sum c;
		int cpu;

		if (nl)
			*nl = '\0';
		cpu = parse_cpu_line(line, &c);
		for (unsigned i = 0; cpu >= 0 && i < m->s.nnodes; i++) {
			if (t->numa.nnodes > 0 && !gf_cpuset_isset(&t->numa.node[i].cpus, (unsigned)cpu))
				continue;
			sum[i].busy += c.busy;
			sum[i].iowait += c.iowait;
			sum[i].total += c.total;
		}
		line = nl ? nl + 1 : NULL;
	}
	for (unsigned i = 0; i < m->s.nnodes; i++) {
		struct mon_cpu_prev *p = &m->cpu_prev[i];

		if (p->have && m->dt > 0 && sum[i].total > p->total && sum[i].busy >= p->busy &&
		    sum[i].iowait >= p->iowait) {
			double dtot = (double)(sum[i].total - p->total);

			m->s.nodes[i].cpu_busy = (double)(sum[i].busy - p->busy) / dtot;
			m->s.nodes[i].cpu_iowait = (double)(sum[i].iowait - p->iowait) / dtot;
		}
		p->busy = sum[i].busy;
		p->iowait = sum[i].iowait;
		p->total = sum[i].total;
		p->have = sum[i].total > 0;
	}
out:
	free(sum);
	free(text);
	return ret;
}

static void read_node_memory(struct gf_monitor *m)
{
	for (unsigned i = 0; i < m->s.nnodes; i++) {
		struct gf_mon_node *n = &m->s.nodes[i];
		char path[96], *text;

		if (m->topo->numa.nnodes > 0)
			snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n->node);
		else
			snprintf(path, sizeof(path), "/proc/meminfo");
		n->mem_total = n->mem_free = GF_MON_NONE;
		if (gf_fs_read(&m->fs, path, &text, NULL))
			continue;
		n->mem_total = gf_mon_meminfo_value(text, "MemTotal");
		n->mem_free = gf_mon_meminfo_value(text, "MemFree");
		free(text);
	}
}

int gf_mon_nodes_sample(struct gf_monitor *m)
{
	int ret = read_cpu(m);

	read_node_memory(m);
	return ret;
}
