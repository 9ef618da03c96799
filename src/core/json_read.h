/* Typed reads from a jansson tree with errors that name file and key:
 * "rec/nvml.json: gpus[2].pci: expected a string".  Absent keys and JSON
 * null leave the default in place; a wrong type is an error (the first one
 * is kept in jr->err). */
#ifndef GF_CORE_JSON_READ_H
#define GF_CORE_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct gf_jr {
	const char *file;
	int err;			/* 0 or -EBADMSG, message in gf_last_error() */
};

bool gf_jr_ll(struct gf_jr *jr, json_t *obj, const char *where, const char *key, long long *out);
bool gf_jr_int(struct gf_jr *jr, json_t *obj, const char *where, const char *key, int *out);
/* JSON true/false into 1/0. */
bool gf_jr_bool(struct gf_jr *jr, json_t *obj, const char *where, const char *key, int *out);
bool gf_jr_str(struct gf_jr *jr, json_t *obj, const char *where, const char *key,
	       char *buf, size_t size);
/* An array member (absent = NULL without error). */
json_t *gf_jr_array(struct gf_jr *jr, json_t *obj, const char *where, const char *key);
json_t *gf_jr_object(struct gf_jr *jr, json_t *obj, const char *where, const char *key);

/* A JSON string of s; bytes that are not UTF-8 (a host name, a model
 * string or a path from the machine can hold anything) become U+FFFD, so
 * the key is never dropped and the output always parses. */
json_t *gf_jstr(const char *s);

/* Writing helpers: set key to an integer/string/bool, or leave it out when
 * the value is the "unknown" one (-1, ""). */
void gf_jw_ll_known(json_t *obj, const char *key, long long v);
void gf_jw_str_known(json_t *obj, const char *key, const char *s);
void gf_jw_bool_known(json_t *obj, const char *key, int v);

#endif
