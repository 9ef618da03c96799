/* A reader for the part of Python's pickle format that plain data uses
 * (protocols 2 to 5: dicts, lists, tuples, sets, str, bytes, int, float,
 * bool, None, the memo), into a jansson tree, so PyTorch's Flight Recorder
 * dumps can be read without Python.  Everything that would run code in
 * Python (GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT...) is
 * refused, and depth, sizes and the memo are bounded: a dump is input
 * from another machine and is read as such. */
#ifndef GF_NCCL_PICKLE_H
#define GF_NCCL_PICKLE_H

#include <stddef.h>
#include <jansson.h>

/* Bounds on what one pickle may build. */
#define GF_PICKLE_MAX_DEPTH	64		/* nested containers */
#define GF_PICKLE_MAX_STACK	65536		/* values on the stack */
#define GF_PICKLE_MAX_MEMO	(1 << 20)	/* memo slots */
#define GF_PICKLE_MAX_NODES	(1 << 22)	/* values built, memo copies included */

/* Reads the pickle in buf[0..len) into *out (dicts become JSON objects with
 * their str or int keys as strings, tuples and sets arrays, bytes strings
 * with U+FFFD for what is not UTF-8, non-finite floats null).  0, or
 * -EPROTO / -EBADMSG with a message naming `name` and the byte offset:
 * "rank0: offset 12: opcode 0x63 'c' (GLOBAL) would run code: refused". */
int gf_nccl_pickle_load(const void *buf, size_t len, const char *name, json_t **out);

#endif
