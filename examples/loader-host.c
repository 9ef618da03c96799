/* The loader on host memory: packs a tiny dataset of text lines into a
 * temporary directory, iterates two shuffled epochs of it in batches,
 * checks every sample came once, then saves the state mid-epoch and
 * resumes a second loader from it (as after a restart).
 *
 *     loader-host [SAMPLES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpufeed/gpufeed.h>

static int fail(const char *what)
{
	fprintf(stderr, "loader-host: %s: %s\n", what, gf_last_error());
	return 1;
}

/* One epoch: each batch's samples are text lines, packed bytes + offsets. */
static int one_epoch(struct gf_loader *l, uint64_t epoch, unsigned char *seen, uint64_t n)
{
	struct gf_batch *b;
	uint64_t batches = 0, samples = 0, once = 0;
	int rc;

	memset(seen, 0, n);
	if (gf_loader_set_epoch(l, epoch))
		return fail("set_epoch");
	while ((rc = gf_loader_next(l, &b)) == 0) {
		for (unsigned j = 0; j < b->count; j++)
			seen[b->samples[j]]++;
		if (!batches) {
			const char *text = (const char *)b->host + b->offsets[0];

			printf("epoch %llu: first sample #%llu is \"%.*s\"\n", (unsigned long long)epoch,
			       (unsigned long long)b->samples[0], (int)(b->offsets[1] - b->offsets[0]), text);
		}
		batches++;
		samples += b->count;
		gf_loader_release(l, b);
	}
	if (rc < 0)
		return fail("next");
	for (uint64_t i = 0; i < n; i++)
		once += seen[i] == 1;
	printf("epoch %llu: %llu batches, %llu samples, %llu of %llu seen exactly once\n", (unsigned long long)epoch,
	       (unsigned long long)batches, (unsigned long long)samples, (unsigned long long)once,
	       (unsigned long long)n);
	return once == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_counters c;
	struct gf_loader_state st;
	struct gf_loader *l, *again;
	struct gf_batch *b;
	char dir[4096], lines[4200], ds[4200], cmd[4400];
	const char *inputs[1] = { lines };
	unsigned char *seen = calloc(n ? n : 1, 1);
	FILE *f;
	int rc = 1;

	snprintf(dir, sizeof(dir), "%s/gpufeed-loader-host.XXXXXX", tmp);
	if (!n || !seen || !mkdtemp(dir)) {
		fprintf(stderr, "loader-host: SAMPLES must be > 0 and %s writable\n", tmp);
		return 1;
	}
	snprintf(lines, sizeof(lines), "%s/lines.txt", dir);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	if (!(f = fopen(lines, "w")))
		goto out;
	for (uint64_t i = 0; i < n; i++)
		fprintf(f, "sample %llu\n", (unsigned long long)i);
	fclose(f);
	po.input = GF_PACK_LINES;		/* one sample per line */
	if (gf_pack(inputs, 1, ds, &po, NULL)) {
		rc = fail("pack");
		goto out;
	}

	o.batch_size = 64;
	o.seed = 2024;
	o.threads = 2;
	if (gf_loader_open(ds, &o, &l)) {
		rc = fail("open");
		goto out;
	}
	printf("%llu samples a epoch in %llu batches\n", (unsigned long long)gf_loader_samples(l),
	       (unsigned long long)gf_loader_batches(l));
	rc = one_epoch(l, 0, seen, n) || one_epoch(l, 1, seen, n);

	/* Three batches into epoch 2, save the state; a new loader resumes. */
	gf_loader_set_epoch(l, 2);
	for (int i = 0; i < 3 && gf_loader_next(l, &b) == 0; i++)
		gf_loader_release(l, b);
	gf_loader_state(l, &st);
	gf_loader_counters(l, &c);
	printf("state: epoch %llu, position %llu; %llu bytes read so far, consumer waited %.3f ms\n",
	       (unsigned long long)st.epoch, (unsigned long long)st.position, (unsigned long long)c.bytes_read,
	       (double)c.wait_ns / 1e6);
	if (!gf_loader_open(ds, &o, &again)) {
		uint64_t left = 0;

		gf_loader_load_state(again, &st);
		while (gf_loader_next(again, &b) == 0) {
			left += b->count;
			gf_loader_release(again, b);
		}
		printf("resumed: %llu samples left in epoch 2\n", (unsigned long long)left);
		rc |= st.position + left != n;
		gf_loader_close(again);
	}
	gf_loader_close(l);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		rc = 1;
	free(seen);
	return rc;
}
