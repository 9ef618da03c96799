/* The page cache from /proc/meminfo: Cached, Dirty, Writeback and
 * MemAvailable (proc(5), "/proc/meminfo"; the kernel's
 * Documentation/filesystems/proc.rst, "meminfo").  Levels, so a recording
 * has them too. */
#include <stdlib.h>

#include "monitor/monitor_internal.h"

int gf_mon_pagecache_sample(struct gf_monitor *m)
{
	struct gf_mon_pagecache *pc = &m->s.pagecache;
	char *text;

	pc->cached = pc->dirty = pc->writeback = pc->mem_available = GF_MON_NONE;
	if (gf_fs_read(&m->fs, "/proc/meminfo", &text, NULL))
		return 0;
	pc->cached = gf_mon_meminfo_value(text, "Cached");
	pc->dirty = gf_mon_meminfo_value(text, "Dirty");
	pc->writeback = gf_mon_meminfo_value(text, "Writeback");
	pc->mem_available = gf_mon_meminfo_value(text, "MemAvailable");
	free(text);
	return 0;
}
