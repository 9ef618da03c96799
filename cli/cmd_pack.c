/* gpufeed pack INPUT... OUTDIR: samples into shards a loader reads with
 * large aligned reads; gpufeed pack --verify DIR: every record checked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dataset_out.h"

struct pack_args {
	struct gf_pack_opts po;
	bool verify;
	const char *name;
};

static int opt_input(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct pack_args *a = ctx;

	if (gf_pack_input_parse(arg, &a->po.input))
		return gf_cli_usage(cli, "--input: '%s' is not auto, files, lines, tar or records", arg);
	return 0;
}

static int opt_checksum(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct pack_args *a = ctx;

	if (gf_checksum_parse(arg, &a->po.checksum) || a->po.checksum == GF_CHECKSUM_NONE)
		return gf_cli_usage(cli, "--checksum: '%s' is not xxh3 or crc32c", arg);
	return 0;
}

static int size_arg(struct gf_cli *cli, const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (gf_parse_size(arg, v))
		return gf_cli_usage(cli, "%s: %s", opt, gf_last_error());
	if (*v < lo || *v > hi)
		return gf_cli_usage(cli, "%s: '%s' is out of range", opt, arg);
	return 0;
}

static int opt_record_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct pack_args *a = ctx;
	uint64_t v;
	int ret = size_arg(cli, "--record-size", arg, 1, SIZE_MAX, &v);

	a->po.record_size = (size_t)v;
	return ret;
}

static int opt_shard_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct pack_args *a = ctx;

	return size_arg(cli, "--shard-size", arg, 1, UINT64_MAX, &a->po.shard_bytes);
}

static int opt_align(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct pack_args *a = ctx;
	uint64_t v;
	int ret = size_arg(cli, "--align", arg, 1, 1u << 20, &v);

	if (ret)
		return ret;
	if (v & (v - 1))
		return gf_cli_usage(cli, "--align: '%s' is not a power of two", arg);
	a->po.align = (unsigned)v;
	return 0;
}

static const struct gf_opt pack_opts[] = {
	GF_OPT_CALLBACK_CHOICE(0, "input", "KIND", opt_input, "auto|files|lines|tar|records",
			"what the inputs are: auto (default: a directory is\n"
			"files, NAME.tar tar, NAME.jsonl/.txt/.json lines, else\n"
			"records with --record-size), files, lines, tar, records"),
	GF_OPT_CALLBACK(0, "record-size", "SIZE", opt_record_size,
			"bytes per record of a flat file of fixed-size records\n"
			"(K, M, G suffixes)"),
	GF_OPT_CALLBACK(0, "shard-size", "SIZE", opt_shard_size,
			"data bytes per shard before the next begins (default 1G;\n"
			"a record never spans two shards)"),
	GF_OPT_CALLBACK(0, "align", "SIZE", opt_align,
			"records start at multiples of SIZE, a power of two up to\n"
			"1M (default 4096: O_DIRECT reads)"),
	GF_OPT_CALLBACK_CHOICE(0, "checksum", "KIND", opt_checksum, "xxh3|crc32c", "xxh3 (default) or crc32c, one per record"),
	GF_OPT_STRING(0, "name", "NAME", struct pack_args, name, "the dataset's name (default: OUTDIR's)"),
	GF_OPT_BOOL(0, "verify", struct pack_args, verify,
		    "check the dataset in DIR instead: every record against\n"
		    "its checksum, every index against its data file"),
	GF_OPT_COMMON("json", "print a JSON summary of what was packed or verified"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("color", "accepted for uniformity; pack prints no colour"),
	GF_OPT_COMMON("quiet", "no summary and no progress"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_pack_def = {
	.name = "pack",
	.args = "[OPTIONS] INPUT... OUTDIR | --verify DIR",
	.summary = "pack samples into shards a data loader reads with large aligned reads",
	.description =
		"Reads the inputs in order and writes OUTDIR/shard-NNNNN.bin (the records,\n"
		"each starting at a multiple of --align, zeros between them), beside each\n"
		"its index shard-NNNNN.idx (offsets, sizes, keys and a checksum per record,\n"
		"flat little-endian arrays a reader maps), and OUTDIR/manifest.json last.\n"
		"An input is a directory tree (one sample per file, in byte order of the\n"
		"paths, key = the path below the directory), a text or JSON Lines file (one\n"
		"sample per non-empty line, key = FILE:LINE), a WebDataset .tar (the files\n"
		"of one key are one sample, stored as a small tar), or a flat file of\n"
		"--record-size records.\n"
		"Every file is written under a temporary name, synced, then renamed: a\n"
		"pack that fails or is stopped leaves no shard that looks whole and no\n"
		"manifest (a pack into the same OUTDIR removes what a killed one left),\n"
		"and OUTDIR holding a manifest already is refused.\n"
		"With --verify, reads every record of the dataset in DIR and checks it\n"
		"against its checksum, and the bytes between records against zeros; the\n"
		"first mismatch is reported naming the shard and the record (exit 3).\n"
		"'gpufeed inspect' prints a dataset; the loader (<gpufeed/loader.h>) reads it.\n",
	.opts = pack_opts,
	.exits = { "", NULL, "", "an input cannot be read or is malformed (a tar header, a record size\n"
		   "its size is not a multiple of); OUTDIR holds a dataset already; with\n"
		   "--verify, a truncated shard, a corrupt index, a checksum mismatch or a\n"
		   "missing shard, named with the record", NULL },
	.footer = "The format: docs/dataset-format.md.  See also gpufeed-inspect(1).\n",
	.run = gf_cmd_pack,
};

static void on_shard(void *user, unsigned shard, uint64_t samples, uint64_t bytes)
{
	char b[32];

	(void)user;
	fprintf(stderr, "gpufeed pack: shard %u: %llu samples, %s\n", shard, (unsigned long long)samples,
		gf_cli_bytes(bytes, b, sizeof(b)));
}

static void on_verified(void *user, unsigned shard, uint64_t records)
{
	const struct gf_dataset *d = user;
	struct gf_dataset_info info;

	gf_dataset_info(d, &info);
	fprintf(stderr, "gpufeed pack: verified shard %u of %u (%llu records so far)\n", shard + 1, info.shards,
		(unsigned long long)records);
}

static int verify(struct gf_cli *cli, const char *dir)
{
	struct gf_dataset *d;
	struct gf_dataset_info info;
	bool progress = !cli->quiet && !cli->json && isatty(STDERR_FILENO);
	int ret;

	if ((ret = gf_dataset_open(dir, &d)))
		return gf_cli_fail(cli, ret);
	gf_dataset_info(d, &info);
	ret = gf_dataset_verify(d, progress ? on_verified : NULL, d);
	if (ret) {
		gf_dataset_close(d);
		return gf_cli_fail(cli, ret);
	}
	if (cli->json) {
		printf("{\"schema\": \"gpufeed-pack-verify/1\", \"path\": ");
		gf_cli_json_str(stdout, dir, strlen(dir));
		printf(", \"kind\": \"%s\", \"samples\": %llu, \"shards\": %u, \"checksum\": \"%s\", \"result\": \"ok\"}\n",
		       gf_dataset_kind_name(info.kind), (unsigned long long)info.samples, info.shards,
		       gf_checksum_name(info.checksum));
	} else if (!cli->quiet) {
		printf("%s: %llu samples in %u shard%s verified: %s\n", dir, (unsigned long long)info.samples,
		       info.shards, info.shards == 1 ? "" : "s",
		       info.checksum == GF_CHECKSUM_NONE ? "every record read (this format has no checksums)"
							 : "every checksum matches");
	}
	gf_dataset_close(d);
	return GF_EXIT_OK;
}

int gf_cmd_pack(int argc, char **argv)
{
	struct pack_args a = { .po = GF_PACK_OPTS_INIT };
	struct gf_pack_result res;
	struct gf_cli cli;
	const char *out;
	int ret, n;

	gf_cli_init(&cli, "pack");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_pack_def, argc, argv, &a)) >= 0)
		return ret;
	n = argc - optind;
	if (a.verify) {
		if (n != 1 || !*argv[optind])
			return gf_cli_usage(&cli, "--verify takes one DIR");
		return verify(&cli, argv[optind]);
	}
	if (n < 2)
		return gf_cli_usage(&cli, "needs INPUT... OUTDIR");
	for (int i = optind; i < argc; i++)
		if (!*argv[i])
			return gf_cli_usage(&cli, "an empty path");
	if (a.po.input == GF_PACK_RECORDS && !a.po.record_size)
		return gf_cli_usage(&cli, "--input records needs --record-size");
	out = argv[argc - 1];
	a.po.name = a.name;
	if (!cli.quiet && !cli.json && isatty(STDERR_FILENO))
		a.po.on_shard = on_shard;
	ret = gf_pack((const char *const *)argv + optind, (unsigned)(n - 1), out, &a.po, &res);
	if (ret)
		return gf_cli_fail(&cli, ret);
	if (cli.json) {
		printf("{\"schema\": \"gpufeed-pack/1\", \"path\": ");
		gf_cli_json_str(stdout, out, strlen(out));
		printf(", \"samples\": %llu, \"shards\": %llu, \"data_bytes\": %llu, \"file_bytes\": %llu}\n",
		       (unsigned long long)res.samples, (unsigned long long)res.shards,
		       (unsigned long long)res.data_bytes, (unsigned long long)res.file_bytes);
	} else if (!cli.quiet) {
		char d[32], f[32];

		printf("Packed %llu samples (%s) into %llu shard%s in %s (%s with alignment)\n",
		       (unsigned long long)res.samples, gf_cli_bytes(res.data_bytes, d, sizeof(d)),
		       (unsigned long long)res.shards, res.shards == 1 ? "" : "s", out,
		       gf_cli_bytes(res.file_bytes, f, sizeof(f)));
	}
	return GF_EXIT_OK;
}
