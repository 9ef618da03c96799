/* libFuzzer over the NCCL log reader: the input as log lines, analysed
 * and written as text and JSON.  `make fuzz-nccl-log` (clang with
 * libFuzzer; the recorded logs of tests/fixtures/nccl/h200x2/ as the seed
 * corpus).  The unit test test_nccl_log runs a bounded mutation fuzzer of
 * its own in every build. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <gpufeed/gpufeed.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct gf_nccl_log *l = NULL;
	const char *p = (const char *)data, *end = p + size;

	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	if (gf_nccl_log_new(NULL, &l))
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (gf_nccl_log_feed_line(l, "fuzz", p, n))
			__builtin_trap();
		p += n + 1;
	}
	if (gf_nccl_log_analyse(l, NULL) || gf_nccl_log_write_text(l, null) || gf_nccl_log_write_json(l, null))
		__builtin_trap();
	gf_nccl_log_free(l);
	return 0;
}
