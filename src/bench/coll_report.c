/* `bench coll` output: nccl-tests' table with gpufeed's columns after it
 * (p50, p99, the slowest rank, % of the ring's limit), and the JSON
 * (gpufeed-bench-coll/1) whose rows carry nccl-tests' -J names beside the
 * raw per-iteration samples (docs/coll.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include "bench/coll_bench.h"
#include "bench/output.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

double gf_bench_coll_percent(const struct gf_bench_coll *p, const struct gf_coll_result *r)
{
	return p->limit.gb_per_s > 0 ? 100.0 * r->busbw / p->limit.gb_per_s : NAN;
}

static bool above_limit(const struct gf_bench_coll *p, const struct gf_coll_result *r)
{
	return p->limit.gb_per_s > 0 && r->busbw > p->limit.gb_per_s;
}

unsigned gf_bench_coll_findings(const struct gf_bench_coll *p)
{
	unsigned n = 0;

	if (!p)
		return 0;
	/* a rank other than 0 has its own wrong elements, rank 0 everyone's */
	for (unsigned i = 0; i < p->nsizes; i++)
		n += (p->res[i].wrong > 0) + (p->rank == 0 && above_limit(p, &p->res[i]));
	return n;
}

static const char *placement(const struct gf_bench_coll *p)
{
	return p->o.in_place ? "in_place" : "out_of_place";
}

static json_t *jnum_or_null(double v)
{
	return isnan(v) ? json_null() : gf_bench_jnum(v);
}

static const struct gf_nccl_choice *choice_at(const struct gf_bench_coll *p, unsigned i)
{
	return p->choice && p->choice[i].algo[0] ? &p->choice[i] : NULL;
}

static json_t *row_json(const struct gf_bench_coll *p, unsigned i)
{
	const struct gf_coll_result *r = &p->res[i];
	const struct gf_nccl_choice *c = choice_at(p, i);
	json_t *o = json_object(), *nt = json_object(), *samples = json_array(), *ranks = json_array();
	bool reduces = gf_coll_op_reduces(p->op), rooted = gf_coll_op_rooted(p->op);

	/* nccl-tests' -J names first, so a row reads as one of theirs */
	json_object_set_new(o, "size", json_integer((json_int_t)r->bytes));
	json_object_set_new(o, "count", json_integer((json_int_t)r->count));
	json_object_set_new(o, "type", json_string(gf_coll_dtype_name(p->dtype)));
	json_object_set_new(o, "redop", json_string(reduces ? gf_coll_redop_name(p->redop) : "none"));
	json_object_set_new(o, "root", json_integer(rooted ? (json_int_t)p->o.root : -1));
	json_object_set_new(nt, "time", gf_bench_jnum(r->time_s * 1e6));
	json_object_set_new(nt, "alg_bw", gf_bench_jnum(r->algbw));
	json_object_set_new(nt, "bus_bw", gf_bench_jnum(r->busbw));
	json_object_set_new(nt, "nwrong", p->o.check ? json_integer(r->wrong) : json_null());
	json_object_set_new(o, placement(p), nt);
	json_object_set_new(o, "actual_iterations", json_integer(r->iters));
	/* gpufeed's */
	json_object_set_new(o, "time_us", gf_bench_jnum(r->time_s * 1e6));
	json_object_set_new(o, "algbw_gb_per_s", gf_bench_jnum(r->algbw));
	json_object_set_new(o, "busbw_gb_per_s", gf_bench_jnum(r->busbw));
	json_object_set_new(o, "wrong", p->o.check ? json_integer(r->wrong) : json_null());
	json_object_set_new(o, "check_iterations", json_integer(r->checked));
	json_object_set_new(o, "p50_us", gf_bench_jnum(r->p50_s * 1e6));
	json_object_set_new(o, "p99_us", gf_bench_jnum(r->p99_s * 1e6));
	json_object_set_new(o, "slowest_rank", json_integer(r->slowest_rank));
	for (unsigned j = 0; j < r->iters; j++)
		json_array_append_new(samples, gf_bench_jnum(r->iter_s[j] * 1e6));
	json_object_set_new(o, "iteration_us", samples);
	for (int k = 0; r->rank_s && k < r->nranks; k++)
		json_array_append_new(ranks, gf_bench_jnum(r->rank_s[k] * 1e6));
	json_object_set_new(o, "rank_time_us", r->rank_s ? ranks : (json_decref(ranks), json_null()));
	json_object_set_new(o, "percent_of_limit", jnum_or_null(gf_bench_coll_percent(p, r)));
	json_object_set_new(o, "above_limit", json_boolean(above_limit(p, r)));
	json_object_set_new(o, "nccl_algorithm", c ? json_string(c->algo) : json_null());
	json_object_set_new(o, "nccl_protocol", c ? json_string(c->proto) : json_null());
	json_object_set_new(o, "nccl_channels", c && c->nchannels > 0 ? json_integer(c->nchannels) : json_null());
	return o;
}

static double average_busbw(const struct gf_bench_coll *p)
{
	double sum = 0;

	for (unsigned i = 0; i < p->nsizes; i++)
		sum += p->res[i].busbw;
	return p->nsizes ? sum / p->nsizes : 0;
}

int gf_bench_coll_write_json(const struct gf_bench_coll *p, FILE *f)
{
	json_t *root, *cfg, *gpus, *rows, *nccl, *lim;
	char ver[32];

	if (!p || !f)
		return gf_error(-EINVAL, "bench coll: gf_bench_coll_write_json: NULL argument");
	if (p->rank != 0)
		return 0;	/* rank 0 writes the job's figures */
	root = json_object();
	gf_json_stamp(root, GF_BENCH_COLL_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(p->topo));
	snprintf(ver, sizeof(ver), "%d.%d.%d", p->nccl_version / 10000, p->nccl_version / 100 % 100,
		 p->nccl_version % 100);
	nccl = json_object();
	json_object_set_new(nccl, "version", json_string(ver));
	json_object_set_new(nccl, "version_code", json_integer(p->nccl_version));
	json_object_set_new(nccl, "library", json_string(p->nccl_library));
	json_object_set_new(nccl, "choice_source",
			    json_string("NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING for one untimed call per size "
					"after the timed ones: rank 0's \"Bytes -> Algo\" line"));
	json_object_set_new(nccl, "choice_absent", p->choice_why[0] ? json_string(p->choice_why) : json_null());
	json_object_set_new(root, "nccl", nccl);
	cfg = json_object();
	json_object_set_new(cfg, "op", json_string(gf_coll_op_name(p->op)));
	json_object_set_new(cfg, "nccl_tests_binary", json_sprintf("%s_perf", gf_coll_op_name(p->op)));
	json_object_set_new(cfg, "mode", json_string(p->multi ? "multi-process" : "single-process"));
	json_object_set_new(cfg, "launcher", p->multi ? json_string(p->world.launcher) : json_null());
	json_object_set_new(cfg, "nranks", json_integer(p->nranks));
	json_object_set_new(cfg, "minimum_bytes", json_integer((json_int_t)p->o.min_bytes));
	json_object_set_new(cfg, "maximum_bytes", json_integer((json_int_t)p->o.max_bytes));
	json_object_set_new(cfg, "step_factor", p->o.step_bytes ? json_null()
								: json_integer(p->o.step_factor ? p->o.step_factor : 2));
	json_object_set_new(cfg, "step_bytes", p->o.step_bytes ? json_integer((json_int_t)p->o.step_bytes) : json_null());
	json_object_set_new(cfg, "warmup_iters", json_integer(p->o.warmup_iters));
	json_object_set_new(cfg, "iterations", json_integer(p->o.iters));
	json_object_set_new(cfg, "check_iterations", json_integer(p->o.check));
	json_object_set_new(cfg, "type", json_string(gf_coll_dtype_name(p->dtype)));
	json_object_set_new(cfg, "redop", json_string(gf_coll_redop_name(p->redop)));
	json_object_set_new(cfg, "root", json_integer(p->o.root));
	json_object_set_new(cfg, "in_place", json_boolean(p->o.in_place));
	json_object_set_new(cfg, "timeout_s", gf_bench_jnum(p->o.timeout_s));
	json_object_set_new(root, "config", cfg);
	gpus = json_array();
	for (int i = 0; i < p->nranks; i++) {
		/* a job's other ranks' GPUs are known by address only */
		json_t *g = json_pack("{s:i, s:s}", "rank", i, "pci", p->ring[i]);

		json_object_set_new(g, "gpu", i < p->ngpus ? json_integer(p->indexes[i]) : json_null());
		json_array_append_new(gpus, g);
	}
	json_object_set_new(root, "gpus", gpus);
	lim = json_object();
	json_object_set_new(lim, "gb_per_s", p->limit.gb_per_s > 0 ? gf_bench_jnum(p->limit.gb_per_s) : json_null());
	json_object_set_new(lim, "link", json_string(p->limit.text));
	json_object_set_new(root, "limit", lim);
	json_object_set_new(root, "conventions",
			    json_string("nccl-tests' (src/common.cu, src/<coll>.cu): time = wall clock from the first "
					"launch to the end of every stream / iterations, averaged over the ranks; algbw = "
					"bytes / time (1 GB = 1e9 bytes); busbw = algbw x 2(n-1)/n (all_reduce), (n-1)/n "
					"(all_gather, reduce_scatter, alltoall), 1 (broadcast, reduce, sendrecv); "
					"iteration_us: each iteration between CUDA events, the slowest rank's"));
	rows = json_array();
	for (unsigned i = 0; i < p->nsizes; i++)
		json_array_append_new(rows, row_json(p, i));
	json_object_set_new(root, "results", rows);
	json_object_set_new(root, "average_bus_bandwidth", json_pack("{s:o}", "bandwidth",
								     gf_bench_jnum(average_busbw(p))));
	json_object_set_new(root, "findings", json_integer(gf_bench_coll_findings(p)));
	return gf_json_dump(root, f);
}

int gf_bench_coll_print(const struct gf_bench_coll *p, FILE *f)
{
	bool reduces, rooted;

	if (!p || !f)
		return gf_error(-EINVAL, "bench coll: gf_bench_coll_print: NULL argument");
	if (p->rank != 0)
		return 0;
	reduces = gf_coll_op_reduces(p->op);
	rooted = gf_coll_op_rooted(p->op);
	fprintf(f, "%s: %s, %d rank%s (%s), NCCL %d.%d.%d (%s)\n", p->topo->machine.hostname, gf_coll_op_name(p->op),
		p->nranks, p->nranks == 1 ? "" : "s",
		p->multi ? "one per process" : "one process", p->nccl_version / 10000, p->nccl_version / 100 % 100,
		p->nccl_version % 100, p->nccl_library);
	for (int i = 0; i < p->nranks; i++)
		fprintf(f, "rank %d: GPU %s%s%s\n", i, p->ring[i], p->gpu_name[0] ? " " : "", p->gpu_name);
	fprintf(f, "ring's narrowest link: %s%s", p->limit.text, p->limit.gb_per_s > 0 ? "" : "\n");
	if (p->limit.gb_per_s > 0)
		fprintf(f, " (%.1f GB/s)\n", p->limit.gb_per_s);
	fprintf(f, "%s, %u iterations after %u warm-up; time: nccl-tests' average; p50/p99: per iteration "
		"(CUDA events)\n", p->o.in_place ? "in place" : "out of place", p->o.iters, p->o.warmup_iters);
	if (p->choice_why[0])
		fprintf(f, "NCCL's choice: not shown: %s\n\n", p->choice_why);
	else
		fprintf(f, "NCCL's choice: algorithm/protocol/channels from its log of one more, untimed call per "
			"size\n\n");
	fprintf(f, "%12s %12s %8s %6s %5s %10s %8s %8s %7s %10s %10s %7s %7s  %s\n", "size", "count", "type",
		"redop", "root", "time", "algbw", "busbw", "#wrong", "p50", "p99", "slowest", "%limit", "NCCL chose");
	fprintf(f, "%12s %12s %8s %6s %5s %10s %8s %8s %7s %10s %10s %7s %7s  %s\n", "(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "rank", "", "(algo/proto/ch)");
	for (unsigned i = 0; i < p->nsizes; i++) {
		const struct gf_coll_result *r = &p->res[i];
		const struct gf_nccl_choice *c = choice_at(p, i);
		double pct = gf_bench_coll_percent(p, r);
		char wrong[24], pcts[16], chose[80] = "-";

		snprintf(wrong, sizeof(wrong), p->o.check ? "%lld" : "N/A", r->wrong);
		if (isnan(pct))
			snprintf(pcts, sizeof(pcts), "-");
		else
			snprintf(pcts, sizeof(pcts), "%.1f", pct);
		if (c && c->nchannels > 0)
			snprintf(chose, sizeof(chose), "%s/%s/%d", c->algo, c->proto, c->nchannels);
		else if (c)
			snprintf(chose, sizeof(chose), "%s/%s/?", c->algo, c->proto);
		fprintf(f, "%12llu %12zu %8s %6s %5d %10.2f %8.2f %8.2f %7s %10.2f %10.2f %7d %7s  %s\n",
			(unsigned long long)r->bytes, r->count, gf_coll_dtype_name(p->dtype),
			reduces ? gf_coll_redop_name(p->redop) : "none", rooted ? (int)p->o.root : -1, r->time_s * 1e6,
			r->algbw, r->busbw, wrong, r->p50_s * 1e6, r->p99_s * 1e6, r->slowest_rank, pcts, chose);
	}
	fprintf(f, "# Avg bus bandwidth    : %g\n", average_busbw(p));
	for (unsigned i = 0; i < p->nsizes; i++) {
		const struct gf_coll_result *r = &p->res[i];

		if (r->wrong)
			fprintf(f, "error: %llu bytes: %lld wrong elements in %u check iteration%s\n",
				(unsigned long long)r->bytes, r->wrong, r->checked, r->checked == 1 ? "" : "s");
		if (above_limit(p, r))
			fprintf(f, "error: %llu bytes: busbw %.2f GB/s is above the ring's %.2f GB/s: a measurement "
				"error\n", (unsigned long long)r->bytes, r->busbw, p->limit.gb_per_s);
	}
	return ferror(f) ? -EIO : 0;
}
