/* The figures of `gpufeed bench ... --json` documents, for report --html
 * (report_bench.c): every measured figure with its unit, and its limit
 * where the document gives one. */
#ifndef GF_REPORT_BENCH_H
#define GF_REPORT_BENCH_H

#include <stdbool.h>

struct gf_report_figure {
	char label[200];		/* "direction host_to_device, memory pinned, gpu 0" */
	char unit[16];			/* "GB/s", "ns", ... */
	double value;			/* as the document has it */
	double limit;			/* same unit; 0: none given */
	char limited_by[128];		/* "PCIe Gen5 x16 at 0000:1b:00.0", "" */
	bool failed;			/* the point failed: error says why */
	char error[200];
};

struct gf_report_bench {
	char file[256];			/* as named on the command line */
	char target[32];		/* "h2d" of "gpufeed-bench-h2d/1" */
	char schema[64];
	char hostname[65];		/* the machine it ran on, "" unknown */
	struct gf_report_figure *fig;
	int nfig;
};

/* Reads path: 0, or -errno naming it (absent, not a regular file, not
 * JSON, not a gpufeed bench document: -EBADMSG).  Free with
 * gf_report_bench_free (also after a failure). */
int gf_report_bench_read(const char *path, struct gf_report_bench *b);
void gf_report_bench_free(struct gf_report_bench *b);

#endif
