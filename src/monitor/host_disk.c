/* Block devices the model knows, from /proc/diskstats with iostat's
 * arithmetic: bytes from sectors (always 512 bytes there, whatever the
 * device's block size), %util from io_ticks, aqu-sz from the weighted
 * time in queue.  The kernel's Documentation/admin-guide/iostats.rst,
 * "I/O statistics fields"; sysstat's iostat(1). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "monitor/monitor_internal.h"

/* The model's fastest path from a GPU to the drive: its narrowest link is
 * the drive's own PCIe link but for a drive behind a slower switch. */
static double disk_limit(const struct gf_topo *t, int block)
{
	const struct gf_matrix *mx = &t->matrix;
	double best = 0;

	for (int j = 0; j < mx->n; j++) {
		if (mx->dev[j].kind != GF_DEV_NVME || mx->dev[j].ref != block)
			continue;
		for (int i = 0; i < t->npaths; i++) {
			const struct gf_path *p = &t->paths[i];

			if (p->kind == GF_PATH_GPU_NVME && p->to == j && p->limit == GF_LIMIT_PCIE &&
			    p->gb_per_s > best)
				best = p->gb_per_s;
		}
	}
	return best > 0 ? best * 1e9 : NAN;
}

int gf_mon_disks_open(struct gf_monitor *m)
{
	const struct gf_topo *t = m->topo;
	unsigned n = 0;

	if (t->nblocks > 0) {
		m->s.disks = calloc((size_t)t->nblocks, sizeof(*m->s.disks));
		m->disk_prev = calloc((size_t)t->nblocks, sizeof(*m->disk_prev));
		m->disk_block = calloc((size_t)t->nblocks, sizeof(*m->disk_block));
		if (!m->s.disks || !m->disk_prev || !m->disk_block)
			return gf_error(-ENOMEM, "monitor: out of memory");
	}
	for (int b = 0; b < t->nblocks; b++) {
		struct gf_mon_disk *d;

		/* loop, zram, dm and md have no device of their own behind them. */
		if (t->blocks[b].virtual_dev)
			continue;
		d = &m->s.disks[n];
		gf_strlcpy(d->name, t->blocks[b].name, sizeof(d->name));
		d->limit_bps = disk_limit(t, b);
		m->disk_block[n++] = b;
	}
	m->s.ndisks = n;
	return 0;
}

struct diskstat {
	char name[32];
	unsigned long long rd_ios, rd_merges, rd_sectors, rd_ticks;
	unsigned long long wr_ios, wr_merges, wr_sectors, wr_ticks;
	unsigned long long in_flight, io_ticks, time_in_queue;
};

static void rates(struct gf_mon_disk *d, struct mon_disk_prev *p, const struct diskstat *ds, double dt)
{
	if (p->have) {
		d->read_bps = gf_mon_rate(ds->rd_sectors * 512, p->rd_sectors * 512, dt);
		d->write_bps = gf_mon_rate(ds->wr_sectors * 512, p->wr_sectors * 512, dt);
		d->read_iops = gf_mon_rate(ds->rd_ios, p->rd_ios, dt);
		d->write_iops = gf_mon_rate(ds->wr_ios, p->wr_ios, dt);
		/* Both are milliseconds: per second of interval, /1000. */
		d->busy = gf_mon_rate(ds->io_ticks, p->io_ticks, dt) / 1000;
		if (d->busy > 1)
			d->busy = 1;	/* a tick counted at the interval's edge */
		d->queue = gf_mon_rate(ds->time_in_queue, p->time_in_queue, dt) / 1000;
	}
	p->rd_ios = ds->rd_ios;
	p->rd_sectors = ds->rd_sectors;
	p->wr_ios = ds->wr_ios;
	p->wr_sectors = ds->wr_sectors;
	p->io_ticks = ds->io_ticks;
	p->time_in_queue = ds->time_in_queue;
	p->have = true;
}

int gf_mon_disks_sample(struct gf_monitor *m)
{
	bool *seen = NULL;
	char *text = NULL;
	int ret = 0;

	for (unsigned i = 0; i < m->s.ndisks; i++) {
		struct gf_mon_disk *d = &m->s.disks[i];

		d->read_bps = d->write_bps = d->read_iops = d->write_iops = d->busy = d->queue = NAN;
	}
	if (!m->s.ndisks || !m->live || gf_fs_read(&m->fs, "/proc/diskstats", &text, NULL))
		return 0;
	seen = calloc(m->s.ndisks, sizeof(*seen));
	if (!seen) {
		ret = gf_error(-ENOMEM, "monitor: out of memory");
		goto out;
	}
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		struct diskstat ds;
		unsigned major, minor;

		if (nl)
			*nl = '\0';
		if (sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &major, &minor,
			   ds.name, &ds.rd_ios, &ds.rd_merges, &ds.rd_sectors, &ds.rd_ticks, &ds.wr_ios,
			   &ds.wr_merges, &ds.wr_sectors, &ds.wr_ticks, &ds.in_flight, &ds.io_ticks,
			   &ds.time_in_queue) == 14) {
			for (unsigned i = 0; i < m->s.ndisks; i++) {
				if (strcmp(m->s.disks[i].name, ds.name))
					continue;
				rates(&m->s.disks[i], &m->disk_prev[i], &ds, m->dt);
				seen[i] = true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	/* A drive that left: its next appearance starts afresh. */
	for (unsigned i = 0; i < m->s.ndisks; i++)
		if (!seen[i])
			m->disk_prev[i].have = false;
out:
	free(seen);
	free(text);
	return ret;
}
