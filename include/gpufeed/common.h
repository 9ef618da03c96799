/* Shared macros of the public headers. */
#ifndef GPUFEED_COMMON_H
#define GPUFEED_COMMON_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define GF_API __attribute__((visibility("default")))
#else
#define GF_API
#endif

/* Options structs that can grow (NCCL's ncclConfig_t habit).
 *
 * Every public options struct starts with `size_t struct_size;` and has an
 * initializer macro, GF_<NAME>_OPTS_INIT, that sets struct_size to the
 * sizeof() the caller was compiled with and every field to its default:
 *
 *     struct gf_io_opts o = GF_IO_OPTS_INIT;
 *     o.queue_depth = 32;
 *
 * New fields are only ever appended.  The library reads a field only when
 * the caller's struct holds it (GF_OPTS_HAS); a field a newer release adds
 * keeps its default for a program built against an older header.  A
 * struct_size of 0 (a struct zeroed by hand) is refused with -EINVAL and a
 * message naming the macro to use (gf_opts_check in src/core/opts.h). */
#define GF_OPTS_HAS(opts, type, field) \
	((opts)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* The text writers that take flags (gf_topo_print, gf_audit_print) fit
 * their lines to a width given in the flags' upper 16 bits, details wrapped
 * under their line: flags | GF_PRINT_WIDTH(80).  None given (0) is
 * GF_PRINT_WIDTH_DEFAULT columns; fewer than GF_PRINT_WIDTH_MIN count as
 * that many. */
#define GF_PRINT_WIDTH(cols)		(((unsigned)(cols) & 0xffffu) << 16)
#define GF_PRINT_WIDTH_OF(flags)	((int)(((unsigned)(flags) >> 16) & 0xffffu))
#define GF_PRINT_WIDTH_DEFAULT		100
#define GF_PRINT_WIDTH_MIN		40

#endif
