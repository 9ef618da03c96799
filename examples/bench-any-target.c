/* Any `gpufeed bench` target from a program, the way the CLI runs it: list
 * the targets and their options, set options by name, run, print JSON.
 *
 *     bench-any-target                       list the targets and options
 *     bench-any-target mem nodes=0 quick     run one: OPTION=VALUE or FLAG
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gpufeed/gpufeed.h>

static void list(void)
{
	const struct gf_bench_target *t;
	const struct gf_bench_option *o;

	for (unsigned i = 0; (t = gf_bench_target_at(i)); i++) {
		printf("%s%s%s: %s\n", t->name, t->operand ? " " : "", t->operand ? t->operand : "", t->summary);
		for (unsigned k = 0; (o = gf_bench_option_at(t, k)); k++)
			printf("  --%s%s%s\n", o->name, o->argh ? " " : "", o->argh ? o->argh : "");
	}
}

int main(int argc, char **argv)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	struct gf_bench *b;
	int rc;

	if (argc < 2) {
		list();
		return 0;
	}
	if (gf_bench_new(argv[1], &b)) {
		fprintf(stderr, "bench-any-target: %s\n", gf_last_error());
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq = '\0';
		rc = !strcmp(argv[i], "operand") && eq ? gf_bench_set_operand(b, eq + 1)
						       : gf_bench_set(b, argv[i], eq ? eq + 1 : NULL);
		if (rc) {
			fprintf(stderr, "bench-any-target: %s\n", gf_last_error());
			gf_bench_free(b);
			return 2;
		}
	}
	if ((rc = gf_bench_check(b)) || (rc = gf_bench_run(b, &ro))) {
		fprintf(stderr, "bench-any-target: %s\n", gf_last_error());
		gf_bench_free(b);
		return rc == -ENOSYS || rc == -ENODEV ? 4 : 3;
	}
	gf_bench_write_json(b, stdout);
	rc = gf_bench_outcome(b) == GF_BENCH_CLEAN ? 0 : 1;
	gf_bench_free(b);
	return rc;
}
