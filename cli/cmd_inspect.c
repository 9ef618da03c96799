/* gpufeed inspect DIR|PREFIX: a dataset (gpufeed's or a Megatron pair) at a
 * glance: counts, sizes, a size histogram, its shards. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dataset_out.h"

#define BUCKETS 65	/* 0, then [2^(k-1), 2^k) for k = 1..64 */

struct inspect_args {
	uint64_t head;		/* samples to list from the first */
	uint64_t sample;	/* one sample to list, when has_sample */
	bool has_sample;
};

static int opt_head(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct inspect_args *a = ctx;

	if (gf_parse_count(arg, 0, UINT64_MAX, &a->head))
		return gf_cli_usage(cli, "--head: %s", gf_last_error());
	return 0;
}

static int opt_sample(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct inspect_args *a = ctx;

	if (gf_parse_count(arg, 0, UINT64_MAX, &a->sample))
		return gf_cli_usage(cli, "--sample: %s", gf_last_error());
	a->has_sample = true;
	return 0;
}

static const struct gf_opt inspect_opts[] = {
	GF_OPT_CALLBACK(0, "head", "N", opt_head,
			"also list the first N samples: shard, record, offset,\n"
			"size, checksum and key"),
	GF_OPT_CALLBACK(0, "sample", "I", opt_sample, "also list sample I (numbered from 0) the same way"),
	GF_OPT_COMMON("json", "print the dataset as JSON: its figures (\"samples\" the\n"
		      "total), the size histogram and the shards"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("color", "accepted for uniformity; inspect prints no colour"),
	GF_OPT_COMMON("quiet", NULL),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_inspect_def = {
	.name = "inspect",
	.args = "[OPTIONS] DIR|MANIFEST|MEGATRON_PREFIX",
	.summary = "print a dataset: counts, sizes, a size histogram and its shards",
	.description =
		"Opens the dataset 'gpufeed pack' wrote in DIR (or its manifest.json), or a\n"
		"Megatron-LM indexed dataset PREFIX.bin/PREFIX.idx (PREFIX, or either file\n"
		"named), checks every index against its data file's size, and prints the\n"
		"number of samples, the bytes of records and of files, the record sizes\n"
		"(one size, or the range and a histogram in powers of two), the checksum,\n"
		"the alignment and each shard.  Records are not read: 'gpufeed pack\n"
		"--verify' checks them.\n",
	.opts = inspect_opts,
	.exits = { "", NULL, "", "not a dataset; a truncated shard, a corrupt index or manifest, a\n"
		   "missing shard (named)", NULL },
	.footer = "The format: docs/dataset-format.md.  See also gpufeed-pack(1).\n",
	.run = gf_cmd_inspect,
};

/* One sample's line (text) or object (JSON). */
static int list_sample(const struct gf_dataset *d, uint64_t i, bool json, bool first)
{
	struct gf_sample_loc at;
	const char *key;
	size_t klen;
	int ret;

	if ((ret = gf_dataset_sample(d, i, &at)) || (ret = gf_dataset_key(d, i, &key, &klen)))
		return ret;
	if (json) {
		printf("%s\n    {\"sample\": %llu, \"shard\": %u, \"record\": %llu, \"offset\": %llu, \"size\": %llu, "
		       "\"checksum\": \"%016llx\", \"key\": ", first ? "" : ",", (unsigned long long)i, at.shard,
		       (unsigned long long)at.record, (unsigned long long)at.offset, (unsigned long long)at.size,
		       (unsigned long long)at.checksum);
		gf_cli_json_str(stdout, key, klen);
		printf("}");
	} else {
		printf("  %10llu %5u %10llu %12llu %10llu  %016llx  ", (unsigned long long)i, at.shard,
		       (unsigned long long)at.record, (unsigned long long)at.offset, (unsigned long long)at.size,
		       (unsigned long long)at.checksum);
		fwrite(key, 1, klen, stdout);
		printf("\n");
	}
	return 0;
}

/* The samples --head and --sample ask for. */
static int list_samples(const struct gf_dataset *d, const struct gf_dataset_info *in, const struct inspect_args *a,
			bool json)
{
	uint64_t n = a->head < in->samples ? a->head : in->samples;
	int ret;

	if (!n && !a->has_sample)
		return 0;
	if (json)
		printf(",\n  \"listed\": [");
	else
		printf("Samples:\n  %10s %5s %10s %12s %10s  %-16s  %s\n", "sample", "shard", "record", "offset", "size",
		       "checksum", "key");
	for (uint64_t i = 0; i < n; i++)
		if ((ret = list_sample(d, i, json, !i)))
			return ret;
	if (a->has_sample && (ret = list_sample(d, a->sample, json, !n)))
		return ret;
	if (json)
		printf("\n  ]");
	return 0;
}

static unsigned bucket_of(uint64_t size)
{
	return size ? 64 - (unsigned)__builtin_clzll(size) : 0;
}

static uint64_t bucket_from(unsigned b)
{
	return b ? 1ull << (b - 1) : 0;
}

static void print_json(const struct gf_dataset *d, const struct gf_dataset_info *in, const uint64_t *hist)
{
	bool first = true;

	printf("{\n  \"schema\": \"gpufeed-inspect/1\",\n  \"kind\": \"%s\",\n  \"path\": ", gf_dataset_kind_name(in->kind));
	gf_cli_json_str(stdout, in->path, strlen(in->path));
	printf(",\n  \"name\": ");
	gf_cli_json_str(stdout, in->name, strlen(in->name));
	printf(",\n  \"samples\": %llu,\n  \"data_bytes\": %llu,\n  \"file_bytes\": %llu,\n",
	       (unsigned long long)in->samples, (unsigned long long)in->data_bytes,
	       (unsigned long long)in->file_bytes);
	if (in->record_size)
		printf("  \"record_size\": %zu,\n", in->record_size);
	printf("  \"min_size\": %llu,\n  \"max_size\": %llu,\n  \"checksum\": \"%s\",\n  \"align\": %u,\n",
	       (unsigned long long)in->min_size, (unsigned long long)in->max_size, gf_checksum_name(in->checksum),
	       in->align);
	printf("  \"size_histogram\": [");
	for (unsigned b = 0; b < BUCKETS; b++) {
		if (!hist[b])
			continue;
		printf("%s\n    {\"from\": %llu, \"below\": %llu, \"count\": %llu}", first ? "" : ",",
		       (unsigned long long)bucket_from(b), (unsigned long long)(b ? bucket_from(b) * 2 - 1 : 0) + 1,
		       (unsigned long long)hist[b]);
		first = false;
	}
	printf("%s],\n  \"shards\": [", first ? "" : "\n  ");
	for (unsigned s = 0; s < in->shards; s++) {
		struct gf_shard_info sh;

		gf_dataset_shard(d, s, &sh);
		printf("%s\n    {\"data\": ", s ? "," : "");
		gf_cli_json_str(stdout, sh.data_path, strlen(sh.data_path));
		printf(", \"index\": ");
		gf_cli_json_str(stdout, sh.index_path, strlen(sh.index_path));
		printf(", \"first_sample\": %llu, \"samples\": %llu, \"data_bytes\": %llu, \"file_bytes\": %llu, "
		       "\"align\": %u}", (unsigned long long)sh.first_sample, (unsigned long long)sh.samples,
		       (unsigned long long)sh.data_bytes, (unsigned long long)sh.file_bytes, sh.align);
	}
	printf("%s]", in->shards ? "\n  " : "");
}

static void print_text(const struct gf_dataset *d, const struct gf_dataset_info *in, const uint64_t *hist)
{
	char a[32], b[32];
	uint64_t most = 1;

	printf("%s: %s dataset", in->path, in->kind == GF_DATASET_MEGATRON ? "Megatron-LM (MMIDIDX)" : "gpufeed");
	if (*in->name)
		printf(" '%s'", in->name);
	printf("\n  samples:     %llu\n  shards:      %u\n", (unsigned long long)in->samples, in->shards);
	printf("  data:        %s in records (%llu bytes), %s of files\n", gf_cli_bytes(in->data_bytes, a, sizeof(a)),
	       (unsigned long long)in->data_bytes, gf_cli_bytes(in->file_bytes, b, sizeof(b)));
	if (in->record_size)
		printf("  record size: %zu bytes, every record\n", in->record_size);
	else if (in->samples)
		printf("  sizes:       %llu to %llu bytes, %.1f on average\n", (unsigned long long)in->min_size,
		       (unsigned long long)in->max_size, (double)in->data_bytes / (double)in->samples);
	printf("  checksum:    %s\n  alignment:   %u\n", gf_checksum_name(in->checksum), in->align);
	if (!in->record_size && in->samples) {
		printf("Sizes:\n");
		for (unsigned k = 0; k < BUCKETS; k++)
			most = hist[k] > most ? hist[k] : most;
		for (unsigned k = 0; k < BUCKETS; k++) {
			char range[64];
			int bar;

			if (!hist[k])
				continue;
			if (!k)
				snprintf(range, sizeof(range), "0 B");
			else
				snprintf(range, sizeof(range), "%s - <%s", gf_cli_bytes(bucket_from(k), a, sizeof(a)),
					 gf_cli_bytes(bucket_from(k) * 2, b, sizeof(b)));
			bar = (int)((hist[k] * 40 + most - 1) / most);
			printf("  %-22s %10llu  %.*s\n", range, (unsigned long long)hist[k], bar,
			       "########################################");
		}
	}
	printf("Shards:\n  %5s %12s %12s %12s  %s\n", "shard", "samples", "data", "file", "data file");
	for (unsigned s = 0; s < in->shards; s++) {
		struct gf_shard_info sh;
		char c[32];

		gf_dataset_shard(d, s, &sh);
		printf("  %5u %12llu %12s %12s  %s\n", s, (unsigned long long)sh.samples,
		       gf_cli_bytes(sh.data_bytes, a, sizeof(a)), gf_cli_bytes(sh.file_bytes, c, sizeof(c)), sh.data_path);
	}
}

int gf_cmd_inspect(int argc, char **argv)
{
	uint64_t hist[BUCKETS] = { 0 };
	struct inspect_args a = { 0 };
	struct gf_dataset_info in;
	struct gf_dataset *d;
	struct gf_cli cli;
	const char *path;
	int ret;

	gf_cli_init(&cli, "inspect");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_inspect_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_one_operand(&cli, argc, argv, "DIR", &path)) >= 0)
		return ret;
	if ((ret = gf_dataset_open(path, &d)))
		return gf_cli_fail(&cli, ret);
	gf_dataset_info(d, &in);
	for (uint64_t i = 0; i < in.samples; i++) {
		struct gf_sample_loc at;

		gf_dataset_sample(d, i, &at);
		hist[bucket_of(at.size)]++;
	}
	if (a.has_sample && a.sample >= in.samples) {
		gf_dataset_close(d);
		return gf_cli_usage(&cli, "--sample %llu: the dataset has %llu samples", (unsigned long long)a.sample,
				    (unsigned long long)in.samples);
	}
	if (cli.json)
		print_json(d, &in, hist);
	else if (!cli.quiet)
		print_text(d, &in, hist);
	if ((cli.json || !cli.quiet) && (ret = list_samples(d, &in, &a, cli.json))) {
		gf_dataset_close(d);
		return gf_cli_fail(&cli, ret);
	}
	if (cli.json)
		printf("\n}\n");
	gf_dataset_close(d);
	return GF_EXIT_OK;
}
