/* What topo offers gpufeed record (src/record): discovery through a file
 * system the caller holds, so the caller's recorder sees every read. */
#ifndef GF_TOPO_DISCOVER_H
#define GF_TOPO_DISCOVER_H

#include <gpufeed/topo.h>
#include "core/fs.h"
#include "vendor/nvml/nvml_facts.h"

/* The model of what `fs` holds (not released here), with NVML's `facts`
 * already collected (the caller's; discovery may correct them: indices
 * that cannot be NVML's are renumbered) or NULL, `nvml_note` saying why.
 * No locality override: a recording keeps what the machine says.  0 with
 * *out set (gf_topo_free), or -errno. */
int gf_topo_discover_fs(const struct gf_fs *fs, struct gf_nvml_facts *facts, const char *nvml_note,
			struct gf_topo **out);

#endif
