/* Shared by the audit tests (test_audit_*.c): a private copy of a fixture
 * machine to plant settings in, and one check run against it.
 *
 *     struct afx *fx = afx_new("ci-vm");
 *     afx_put(fx, "/proc/sys/vm/swappiness", "60\n");
 *     afx_expect(fx, "mem.swappiness", NULL, GF_CHECK_WARN);
 *     afx_free(fx);
 */
#ifndef GF_TEST_AUDIT_FIXTURE_H
#define GF_TEST_AUDIT_FIXTURE_H

#include <gpufeed/audit.h>
#include <gpufeed/error.h>
#include "helpers.h"

struct afx {
	char *dir;			/* the recording's root (a temp copy) */
	enum gf_profile profile;
	const char *const *env;		/* NULL: DIR/gpufeed-recording.json's */
	struct gf_audit *last;		/* the last run, freed by the next one */
};

/* A copy of tests/fixtures/machines/NAME/root ("" or NULL: an empty root
 * holding only what discovery needs to run), its files hard links to the
 * shared fixture: afx_put and afx_rm replace them, never write through. */
struct afx *afx_new(const char *machine);
/* The same with files of its own, for code under test that writes into the
 * root in place (tune and revert on a recording). */
struct afx *afx_new_owned(const char *machine);
void afx_free(struct afx *fx);
/* Write, replace or remove a machine file of the copy. */
void afx_put(struct afx *fx, const char *path, const char *text);
void afx_rm(struct afx *fx, const char *path);
/* Run only check `id`; the result for `subject` (NULL: the first one). */
const struct gf_check_result *afx_run(struct afx *fx, const char *id, const char *subject);
/* afx_run, then assert the status (the message shows the result). */
const struct gf_check_result *afx_expect(struct afx *fx, const char *id, const char *subject,
					 enum gf_check_status want);

/* Records the copy with gpufeed record and asserts that every
 * check of ids[] gives `want` on both the copy and the recording, and that
 * every other check gives the same status on both: what the checks read is
 * what record copies. */
void afx_record_keeps(struct afx *fx, const char *const *ids, size_t n, enum gf_check_status want);
/* Every check gives the same results (subjects, statuses) on fx and rec. */
void afx_same_results(struct afx *fx, struct afx *rec);

#endif
