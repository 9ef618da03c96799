#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/strutil.h"

static json_t *member(struct gf_jr *jr, json_t *obj, const char *key)
{
	json_t *v;

	if (jr->err || !json_is_object(obj))
		return NULL;
	v = json_object_get(obj, key);
	return json_is_null(v) ? NULL : v;
}

static bool wrong(struct gf_jr *jr, const char *where, const char *key, const char *what)
{
	if (!jr->err)
		jr->err = gf_error(-EBADMSG, "%s: %s%s%s: expected %s", jr->file,
				   where ? where : "", where && *where ? "." : "", key, what);
	return false;
}

bool gf_jr_ll(struct gf_jr *jr, json_t *obj, const char *where, const char *key, long long *out)
{
	json_t *v = member(jr, obj, key);

	if (!v)
		return false;
	if (!json_is_integer(v))
		return wrong(jr, where, key, "an integer");
	*out = json_integer_value(v);
	return true;
}

bool gf_jr_int(struct gf_jr *jr, json_t *obj, const char *where, const char *key, int *out)
{
	long long v;

	if (!gf_jr_ll(jr, obj, where, key, &v))
		return false;
	if (v < -2147483647LL - 1 || v > 2147483647LL)
		return wrong(jr, where, key, "a 32-bit integer");
	*out = (int)v;
	return true;
}

bool gf_jr_bool(struct gf_jr *jr, json_t *obj, const char *where, const char *key, int *out)
{
	json_t *v = member(jr, obj, key);

	if (!v)
		return false;
	if (!json_is_boolean(v))
		return wrong(jr, where, key, "true or false");
	*out = json_is_true(v);
	return true;
}

bool gf_jr_str(struct gf_jr *jr, json_t *obj, const char *where, const char *key,
	       char *buf, size_t size)
{
	json_t *v = member(jr, obj, key);

	if (!v)
		return false;
	if (!json_is_string(v))
		return wrong(jr, where, key, "a string");
	if (json_string_length(v) >= size)
		return wrong(jr, where, key, "a shorter string");
	gf_strlcpy(buf, json_string_value(v), size);
	return true;
}

json_t *gf_jr_array(struct gf_jr *jr, json_t *obj, const char *where, const char *key)
{
	json_t *v = member(jr, obj, key);

	if (v && !json_is_array(v)) {
		wrong(jr, where, key, "an array");
		return NULL;
	}
	return v;
}

json_t *gf_jr_object(struct gf_jr *jr, json_t *obj, const char *where, const char *key)
{
	json_t *v = member(jr, obj, key);

	if (v && !json_is_object(v)) {
		wrong(jr, where, key, "an object");
		return NULL;
	}
	return v;
}

void gf_jw_ll_known(json_t *obj, const char *key, long long v)
{
	if (v != -1)
		json_object_set_new(obj, key, json_integer(v));
}

void gf_jw_str_known(json_t *obj, const char *key, const char *s)
{
	if (s && *s)
		json_object_set_new(obj, key, gf_jstr(s));
}

void gf_jw_bool_known(json_t *obj, const char *key, int v)
{
	if (v >= 0)
		json_object_set_new(obj, key, json_boolean(v));
}

static int utf8_len(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		(s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (n == 2 && s[0] < 0xc2)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

json_t *gf_jstr(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	json_t *j = json_string(str);
	char *clean, *o;

	if (j)
		return j;
	/* Invalid UTF-8 (jansson refuses it): replace the bad bytes. */
	clean = malloc(strlen(str) * 3 + 1);
	if (!clean)
		return json_string("?");
	for (o = clean; *s;) {
		int n = utf8_len(s);

		if (n == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
		} else {
			memcpy(o, s, (size_t)n);
			o += n;
			s += n;
		}
	}
	*o = '\0';
	j = json_string(clean);
	free(clean);
	return j ? j : json_string("?");
}
