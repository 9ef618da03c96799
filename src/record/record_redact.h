/* record --redact: the identities in a finished recording (host name, MAC
 * addresses, serial numbers, UUIDs and GUIDs) replaced by pseudonyms, so
 * a user can send it to a vendor or a public issue. */
#ifndef GF_RECORD_RECORD_REDACT_H
#define GF_RECORD_RECORD_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum gf_redact_kind {
	GF_REDACT_HOSTNAME,
	GF_REDACT_MAC,
	GF_REDACT_SERIAL,
	GF_REDACT_UUID,
	GF_REDACT_GUID,
	GF_REDACT_NKINDS,
};

struct gf_redact_id {
	enum gf_redact_kind kind;
	char *orig, *pseudo;
	size_t len;
	bool hex;		/* matched without regard to case, case kept */
};

struct gf_redact {
	uint64_t key;		/* random per recording: pseudonyms cannot be
				 * recomputed from a guessed serial */
	struct gf_redact_id *ids;
	int n, cap;
	int counts[GF_REDACT_NKINDS];
};

/* A fresh key; 0 or -errno with a message. */
int gf_redact_init(struct gf_redact *r);
void gf_redact_fini(struct gf_redact *r);

/* One identity found elsewhere (the host name the model read).  Values that
 * identify nothing (empty, "localhost", all zeros, with spaces: "To Be
 * Filled By O.E.M.") are left alone.  0 or -ENOMEM. */
int gf_redact_add(struct gf_redact *r, enum gf_redact_kind kind, const char *value);

/* Finds the identities in the recording at `dir` by where they live:
 * proc/sys/kernel/hostname, etc/hostname, a netdev's address, DMI, NVMe,
 * block-device and InfiniBand serials, GUIDs and GIDs, the UUIDs in
 * nvml.json and /proc/driver/nvidia, and the Device Serial Number in a
 * PCI device's config space (replaced where it is, by 8 keyed bytes).
 * 0 or -errno with a message. */
int gf_redact_collect(struct gf_redact *r, const char *dir);

/* Replaces every one of them, wherever it stands as a whole word (no
 * letter or digit beside it), in every file's bytes, link target and
 * (all but the host name) entry name under `dir`.  A pseudonym has the
 * original's length and character classes (a digit for a digit, a hex
 * digit for a hex digit, case kept; a MAC stays a unicast, locally
 * administered address), and one original always gets one pseudonym.
 * 0 or -errno with a message naming the file. */
int gf_redact_apply(struct gf_redact *r, const char *dir);

/* {"hostname": N, "mac": N, ...}: what was replaced, never the values. */
json_t *gf_redact_summary(const struct gf_redact *r);

#endif
