/* Fault injection: make chosen issues fail or come back short, on either
 * back end, so tests (and `GPUFEED_IO_FAULT=...` in the CLI tests) can
 * drive every error path without a broken disk.
 *
 * Faults are applied to the raw result of an issue after the real system
 * call ran, so an injected write error still wrote its data: the caller
 * must treat the request as failed, which is the point. */
#ifndef GF_IO_FAULT_H
#define GF_IO_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gf_io_fault {
	int op;			/* GF_IO_READ, GF_IO_WRITE, GF_IO_FSYNC, -1 any */
	uint64_t off, len;	/* issues starting in [off, off+len); len 0 = any */
	int err;		/* -EIO, -EINTR, ...; 0 = no error */
	long long cut;		/* >= 0: the result is cut to this many bytes */
	unsigned skip;		/* let this many matching issues pass first */
	unsigned count;		/* fire this many times, 0 = every time */
};

/* 0 or -ENOSPC (at most 16 faults in all). */
int gf_io_fault_add(const struct gf_io_fault *f);
void gf_io_fault_clear(void);
/* How many times faults fired since the last clear. */
unsigned gf_io_fault_fired(void);
/* "OP:KIND[=N][@OFF[+LEN]][*COUNT],..." with OP read|write|fsync|any and
 * KIND eio|enospc|eintr|eagain|short (short=N bytes), e.g.
 * "read:eio@1048576", "any:short=4096*3"; numbers are decimal, 0x hex or
 * 0 octal.  All or nothing: 0, or -EINVAL / -ENOSPC with a message and no
 * fault added. */
int gf_io_fault_parse(const char *spec);
/* Loads GPUFEED_IO_FAULT once per process (called by gf_io_open). */
int gf_io_fault_from_env(void);
/* The result the caller sees for an issue that returned res. */
long long gf_io_fault_apply(int op, uint64_t off, long long res);

#endif
