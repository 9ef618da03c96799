/* One way to load a vendor library at run time (NCCL's cudawrap/ibvwrap
 * habit): NVML now, CUDA, cuFile, NCCL and ibverbs next.
 *
 * A vendor file describes its library once, statically:
 *
 *     static struct gf_nvml_ops ops;
 *     static const struct gf_dl_sym syms[] = {
 *             GF_DL_REQUIRED(struct gf_nvml_ops, init, "nvmlInit_v2"),
 *             GF_DL_OPTIONAL(struct gf_nvml_ops, name, "nvmlDeviceGetName"),
 *             GF_DL_RENAMED(struct gf_nvml_ops, clocks, "...EventReasons", "...ThrottleReasons"),
 *     };
 *     static struct gf_dl_lib lib = GF_DL_LIB_INIT("NVML", "libnvidia-ml.so.1",
 *             GF_ENV_NVML_LIBRARY, syms, &ops, "driver older than R450?");
 *
 * and calls gf_dl_load(&lib) before each use.  The first call opens the
 * library (the registered override variable, else the soname, else what
 * the library's search finds) and fills the
 * table; every later call, from any thread, returns the same result without
 * touching the loader.  An absent library or a missing required symbol is
 * -ENOSYS with a message naming the library and the symbol: callers turn it
 * into "not available", never into a crash. */
#ifndef GF_CORE_DL_H
#define GF_CORE_DL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <gpufeed/env.h>

struct gf_dl_sym {
	const char *name;	/* the versioned name we want: "nvmlInit_v2" */
	const char *fallback;	/* an older name of the same function, or NULL */
	size_t offset;		/* of the function pointer in the table */
	bool required;		/* absent: the whole library is "not available" */
};

#define GF_DL_SYM_(type, field, name, fallback, required) \
	{ (name), (fallback), offsetof(type, field), (required) }
#define GF_DL_REQUIRED(type, field, name) GF_DL_SYM_(type, field, name, NULL, true)
#define GF_DL_OPTIONAL(type, field, name) GF_DL_SYM_(type, field, name, NULL, false)
/* Optional, renamed by the vendor: the new name first, then the old one. */
#define GF_DL_RENAMED(type, field, name, old) GF_DL_SYM_(type, field, name, old, false)
/* Required, renamed by the vendor: a new ABI version first, then the old. */
#define GF_DL_REQUIRED_RENAMED(type, field, name, old) GF_DL_SYM_(type, field, name, old, true)

/* No override variable (tests that give a path as the soname). */
#define GF_DL_NO_OVERRIDE (-1)

struct gf_dl_lib {
	/* Description, constant. */
	const char *what;		/* "NVML": first word of every message */
	const char *soname;		/* "libnvidia-ml.so.1", or a path */
	int override;			/* enum gf_env_var, or GF_DL_NO_OVERRIDE */
	const struct gf_dl_sym *syms;
	size_t nsyms;
	void *table;			/* struct of function pointers to fill */
	const char *hint;		/* said after a missing required symbol, or NULL */
	/* Optional (GF_DL_LIB_INIT_SEARCH): a second variable read when
	 * `override` is unset, and where to look when the soname is not on
	 * the linker's path.  search() fills `path` with an existing file and
	 * returns 0, or returns -ENOENT with `looked` saying where it looked
	 * ("no PyTorch NCCL under /x/site-packages"). */
	int override2;
	int (*search)(char *path, size_t size, char *looked, size_t lsize);
	/* State, written once under `lock`, read after `done` is seen. */
	pthread_mutex_t lock;
	int done;			/* atomic: 0 not yet tried, 1 result final */
	int result;			/* 0 or -ENOSYS */
	void *handle;
	char path[512];			/* what was opened: override, soname or found */
	char why[768];			/* "libnvidia-ml.so.1 not found" */
};

#define GF_DL_LIB_INIT(what_, soname_, override_, syms_, table_, hint_) {		\
	.what = (what_), .soname = (soname_), .override = (override_),			\
	.syms = (syms_), .nsyms = sizeof(syms_) / sizeof((syms_)[0]),			\
	.table = (table_), .hint = (hint_), .override2 = GF_DL_NO_OVERRIDE,		\
	.lock = PTHREAD_MUTEX_INITIALIZER }
/* A library with two override variables (the first wins) and a search
 * after the soname (NCCL: GPUFEED_NCCL_LIBRARY, NCCL_LIBRARY, libnccl.so.2,
 * PyTorch's copy). */
#define GF_DL_LIB_INIT_SEARCH(what_, soname_, override_, override2_, search_, syms_, table_, hint_) {	\
	.what = (what_), .soname = (soname_), .override = (override_),			\
	.syms = (syms_), .nsyms = sizeof(syms_) / sizeof((syms_)[0]),			\
	.table = (table_), .hint = (hint_), .override2 = (override2_),			\
	.search = (search_), .lock = PTHREAD_MUTEX_INITIALIZER }

/* 0 when the library and every required symbol are there; -ENOSYS
 * otherwise, with gf_last_error() "NVML not available: <why>" (in this
 * thread, on every call).  Thread-safe; loads at most once. */
int gf_dl_load(struct gf_dl_lib *lib);
/* Why the load failed ("" after a success or before the first load):
 * "libnvidia-ml.so.1 not found", or, when the override variable chose the
 * file, "GPUFEED_NVML_LIBRARY=/x/libfoo.so lacks nvmlInit_v2 (...)". */
const char *gf_dl_why(const struct gf_dl_lib *lib);
/* The file that was opened (override, soname, or the search's full path);
 * "" before the first load. */
const char *gf_dl_path(const struct gf_dl_lib *lib);
/* Closes the library and forgets the result, so the next gf_dl_load reads
 * the override again.  For tests: no other thread may use the table. */
void gf_dl_unload(struct gf_dl_lib *lib);

#endif
