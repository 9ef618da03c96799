/* The plain-data subset of Python's pickle format into a jansson tree
 * (pickle.h).  The opcodes are those of CPython's Lib/pickletools.py;
 * everything is read with bounds checked against what is left, so a
 * truncated or hostile file is an error, never a read past the end.
 *
 * Why a container fetched from the memo is copied rather than shared: a
 * shared one could be appended into itself ("a list that holds itself"),
 * which jansson's reference counts would never free and its writer would
 * never finish.  A copy is a snapshot, so the tree stays a tree; the node
 * budget caps what repeated copies can cost. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "nccl/pickle.h"

struct slot {
	json_t *v;
	int depth;			/* 0 for a scalar, 1 + deepest child */
};

struct rd {
	const uint8_t *p;
	size_t len, pos, op_at;
	unsigned op;			/* the opcode being read */
	const char *name;
	struct slot *stack;
	size_t nstack, capstack;
	size_t *marks;
	size_t nmarks, capmarks;
	json_t **memo;
	size_t capmemo, nmemo;		/* slots allocated, slots in use */
	size_t nodes;
};

static int fail(struct rd *r, int err, unsigned op, const char *fmt, ...) GF_PRINTF(4, 5);
static int fail(struct rd *r, int err, unsigned op, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (op >= 0x20 && op < 0x7f)
		return gf_error(err, "%s: offset %zu: opcode 0x%02x '%c' %s", r->name, r->op_at, op, (int)op, msg);
	return gf_error(err, "%s: offset %zu: opcode 0x%02x %s", r->name, r->op_at, op, msg);
}

static int need(struct rd *r, size_t n)
{
	if (n > r->len - r->pos)
		return gf_error(-EBADMSG, "%s: offset %zu: truncated: %zu bytes wanted, %zu left",
				r->name, r->op_at, n, r->len - r->pos);
	return 0;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int take_le(struct rd *r, size_t n, uint64_t *v)
{
	int ret = need(r, n);

	if (ret)
		return ret;
	*v = le(r->p + r->pos, n);
	r->pos += n;
	return 0;
}

static int count_node(struct rd *r, size_t n)
{
	if (n > GF_PICKLE_MAX_NODES - r->nodes)
		return fail(r, -EPROTO, r->op, "more than %d values: refused", GF_PICKLE_MAX_NODES);
	r->nodes += n;
	return 0;
}

static int push(struct rd *r, json_t *v, int depth)
{
	int ret;

	if (!v)
		return gf_error(-ENOMEM, "%s: offset %zu: out of memory", r->name, r->op_at);
	if ((ret = count_node(r, 1)))
		goto err;
	if (r->nstack == GF_PICKLE_MAX_STACK) {
		ret = fail(r, -EPROTO, r->op, "more than %d values on the stack: refused", GF_PICKLE_MAX_STACK);
		goto err;
	}
	if (r->nstack == r->capstack) {
		size_t cap = r->capstack ? r->capstack * 2 : 64;
		struct slot *s = realloc(r->stack, cap * sizeof(*s));

		if (!s) {
			ret = gf_error(-ENOMEM, "%s: out of memory", r->name);
			goto err;
		}
		r->stack = s;
		r->capstack = cap;
	}
	r->stack[r->nstack++] = (struct slot){ v, depth };
	return 0;
err:
	json_decref(v);
	return ret;
}

/* Text that may not be UTF-8 (bytes, or a str pickled with lone
 * surrogates): as is when it is, else with U+FFFD for each byte >= 0x80. */
static json_t *text(const uint8_t *s, size_t n)
{
	json_t *v = json_stringn((const char *)s, n);
	char *buf;

	if (v || n > SIZE_MAX / 3)
		return v;
	if (!(buf = malloc(n * 3 + 1)))
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x80) {
			buf[o++] = (char)s[i];
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
		}
	}
	v = json_stringn(buf, o);
	free(buf);
	return v;
}

static int push_text(struct rd *r, size_t lenbytes)
{
	uint64_t n;
	int ret;

	if ((ret = take_le(r, lenbytes, &n)) || (ret = need(r, n)))
		return ret;
	json_t *v = text(r->p + r->pos, (size_t)n);
	r->pos += (size_t)n;
	return push(r, v, 0);
}

static int push_int(struct rd *r, size_t nbytes, bool is_signed)
{
	uint64_t u;
	int ret;

	if ((ret = take_le(r, nbytes, &u)))
		return ret;
	if (is_signed && nbytes < 8 && nbytes > 0 && (u >> (nbytes * 8 - 1)) & 1)
		u |= ~(uint64_t)0 << (nbytes * 8);
	return push(r, json_integer((json_int_t)(int64_t)u), 0);
}

/* LONG1/LONG4: a two's complement little-endian integer of n bytes. */
static int push_long(struct rd *r, size_t lenbytes)
{
	uint64_t n;
	int ret;

	if ((ret = take_le(r, lenbytes, &n)))
		return ret;
	if (lenbytes == 4 && n > INT32_MAX)
		return fail(r, -EPROTO, r->op, "a negative length");
	if (n > 8)
		return fail(r, -EPROTO, r->op, "an integer of %" PRIu64 " bytes: wider than 64 bits", n);
	if ((ret = need(r, n)))
		return ret;
	return push_int(r, (size_t)n, true);
}

static int pop(struct rd *r, struct slot *s)
{
	if (r->nstack == 0 || (r->nmarks && r->nstack == r->marks[r->nmarks - 1]))
		return fail(r, -EPROTO, r->op, "the stack is empty");
	*s = r->stack[--r->nstack];
	return 0;
}

static struct slot *top(struct rd *r)
{
	if (r->nstack == 0 || (r->nmarks && r->nstack == r->marks[r->nmarks - 1]))
		return NULL;
	return &r->stack[r->nstack - 1];
}

static int pop_mark(struct rd *r, size_t *at)
{
	if (!r->nmarks)
		return fail(r, -EPROTO, r->op, "no MARK before it");
	*at = r->marks[--r->nmarks];
	return 0;
}

static int grow_depth(struct rd *r, struct slot *c, int child)
{
	if (child + 1 > c->depth)
		c->depth = child + 1;
	if (c->depth > GF_PICKLE_MAX_DEPTH)
		return fail(r, -EPROTO, r->op, "containers nested deeper than %d: refused", GF_PICKLE_MAX_DEPTH);
	return 0;
}

static int set_item(struct rd *r, struct slot *d, struct slot k, struct slot v)
{
	char num[32];
	const char *key;
	size_t klen;
	int ret = 0;

	if (!json_is_object(d->v)) {
		ret = fail(r, -EPROTO, r->op, "sets an item of something that is not a dict");
		goto out;
	}
	if (json_is_string(k.v)) {
		key = json_string_value(k.v);
		klen = json_string_length(k.v);
	} else if (json_is_integer(k.v)) {
		klen = (size_t)snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(k.v));
		key = num;
	} else if (json_is_boolean(k.v) || json_is_null(k.v)) {
		key = json_is_null(k.v) ? "None" : json_is_true(k.v) ? "True" : "False";
		klen = strlen(key);
	} else {
		ret = fail(r, -EPROTO, r->op, "a dict key that is not a str or an int: refused");
		goto out;
	}
	if ((ret = grow_depth(r, d, v.depth)))
		goto out;
	if (json_object_setn(d->v, key, klen, v.v))
		ret = fail(r, -EPROTO, r->op, "a dict key that cannot be stored");
out:
	json_decref(k.v);
	json_decref(v.v);
	return ret;
}

static int append(struct rd *r, struct slot *l, struct slot v)
{
	int ret = 0;

	if (!json_is_array(l->v))
		ret = fail(r, -EPROTO, r->op, "appends to something that is not a list or set");
	else if (!(ret = grow_depth(r, l, v.depth)) && json_array_append(l->v, v.v))
		ret = gf_error(-ENOMEM, "%s: out of memory", r->name);
	json_decref(v.v);
	return ret;
}

/* The values from the last MARK on, into the container below it (APPENDS,
 * SETITEMS, ADDITEMS) or into a new array (TUPLE, FROZENSET). */
static int from_mark(struct rd *r, unsigned op)
{
	size_t at = 0, i;
	int ret = 0;

	if ((ret = pop_mark(r, &at)))
		return ret;
	if (op == 't' || op == 0x91) {
		struct slot t = { json_array(), 1 };

		if (!t.v)
			return gf_error(-ENOMEM, "%s: out of memory", r->name);
		for (i = at; i < r->nstack; i++) {
			if (!ret && !(ret = grow_depth(r, &t, r->stack[i].depth)) && json_array_append(t.v, r->stack[i].v))
				ret = gf_error(-ENOMEM, "%s: out of memory", r->name);
			json_decref(r->stack[i].v);
		}
		r->nstack = at;
		return ret ? (json_decref(t.v), ret) : push(r, t.v, t.depth);
	}
	if (at == 0 || (r->nmarks && r->marks[r->nmarks - 1] == at)) {
		ret = fail(r, -EPROTO, op, "no container below the MARK");
	}
	struct slot *c = ret ? NULL : &r->stack[at - 1];
	if (op == 'u' && !ret && (r->nstack - at) % 2)
		ret = fail(r, -EPROTO, op, "an odd number of keys and values");
	for (i = at; i < r->nstack; i++) {
		if (ret) {
			json_decref(r->stack[i].v);
		} else if (op == 'u') {
			ret = set_item(r, c, r->stack[i], r->stack[i + 1]);
			i++;
		} else {
			ret = append(r, c, r->stack[i]);
		}
	}
	r->nstack = at;
	return ret;
}

static int tuple_n(struct rd *r, size_t n)
{
	struct slot t = { json_array(), 1 };
	int ret = 0;

	if (!t.v)
		return gf_error(-ENOMEM, "%s: out of memory", r->name);
	if (r->nstack < n || (r->nmarks && r->nstack - n < r->marks[r->nmarks - 1])) {
		json_decref(t.v);
		return fail(r, -EPROTO, r->op, "the stack is empty");
	}
	for (size_t i = r->nstack - n; i < r->nstack; i++) {
		if (!ret && !(ret = grow_depth(r, &t, r->stack[i].depth)) && json_array_append(t.v, r->stack[i].v))
			ret = gf_error(-ENOMEM, "%s: out of memory", r->name);
		json_decref(r->stack[i].v);
	}
	r->nstack -= n;
	return ret ? (json_decref(t.v), ret) : push(r, t.v, t.depth);
}

static int memo_put(struct rd *r, uint64_t idx)
{
	struct slot *t = top(r);

	if (!t)
		return fail(r, -EPROTO, r->op, "memoizes an empty stack");
	if (idx >= GF_PICKLE_MAX_MEMO)
		return fail(r, -EPROTO, r->op, "memo index %" PRIu64 " is above %d: refused", idx, GF_PICKLE_MAX_MEMO - 1);
	if (idx >= r->capmemo) {
		size_t cap = r->capmemo ? r->capmemo : 64;
		json_t **m;

		while (cap <= idx)
			cap *= 2;
		if (!(m = realloc(r->memo, cap * sizeof(*m))))
			return gf_error(-ENOMEM, "%s: out of memory", r->name);
		memset(m + r->capmemo, 0, (cap - r->capmemo) * sizeof(*m));
		r->memo = m;
		r->capmemo = cap;
	}
	if (r->memo[idx])
		json_decref(r->memo[idx]);
	else
		r->nmemo++;
	r->memo[idx] = json_incref(t->v);
	return 0;
}

/* Values and depth of a tree built here (so its depth is within bounds). */
static void measure(json_t *v, size_t *nodes, int *depth)
{
	const char *k;
	json_t *c;
	size_t i;
	int d = 0, cd;

	(*nodes)++;
	if (json_is_array(v)) {
		json_array_foreach(v, i, c) {
			cd = 0;
			measure(c, nodes, &cd);
			if (cd > d)
				d = cd;
		}
		d++;
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			cd = 0;
			measure(c, nodes, &cd);
			if (cd > d)
				d = cd;
		}
		d++;
	}
	*depth = d;
}

static int memo_get(struct rd *r, uint64_t idx)
{
	json_t *v;
	size_t nodes = 0;
	int depth = 0, ret;

	if (idx >= r->capmemo || !(v = r->memo[idx]))
		return fail(r, -EPROTO, r->op, "memo slot %" PRIu64 " was never set", idx);
	if (!json_is_array(v) && !json_is_object(v))
		return push(r, json_incref(v), 0);
	measure(v, &nodes, &depth);
	if ((ret = count_node(r, nodes - 1)))
		return ret;
	return push(r, json_deep_copy(v), depth);
}

static const char *code_op(unsigned op)
{
	switch (op) {
	case 'c': return "GLOBAL";
	case 0x93: return "STACK_GLOBAL";
	case 'R': return "REDUCE";
	case 'b': return "BUILD";
	case 'i': return "INST";
	case 'o': return "OBJ";
	case 0x81: return "NEWOBJ";
	case 0x92: return "NEWOBJ_EX";
	case 'P': return "PERSID";
	case 'Q': return "BINPERSID";
	case 0x82: return "EXT1";
	case 0x83: return "EXT2";
	case 0x84: return "EXT4";
	case 0x97: return "NEXT_BUFFER";
	case 0x98: return "READONLY_BUFFER";
	default: return NULL;
	}
}

static int step(struct rd *r, unsigned op, bool *stop)
{
	struct slot a, b;
	uint64_t u;
	double d;
	int ret;

	switch (op) {
	case 0x80:				/* PROTO */
		if ((ret = take_le(r, 1, &u)))
			return ret;
		if (u > 5)
			return fail(r, -EPROTO, op, "protocol %" PRIu64 " is newer than 5", u);
		return 0;
	case 0x95:				/* FRAME: a length hint */
		if ((ret = take_le(r, 8, &u)))
			return ret;
		return need(r, u);
	case '.':				/* STOP */
		if (r->nmarks || r->nstack != 1)
			return fail(r, -EPROTO, op, "STOP with %s", r->nmarks ? "a MARK open" : "not exactly one value on the stack");
		*stop = true;
		return 0;
	case '(':
		if (r->nmarks == r->capmarks) {
			size_t cap = r->capmarks ? r->capmarks * 2 : 16;
			size_t *m;

			if (cap > GF_PICKLE_MAX_STACK)
				return fail(r, -EPROTO, op, "more than %d MARKs: refused", GF_PICKLE_MAX_STACK);
			if (!(m = realloc(r->marks, cap * sizeof(*m))))
				return gf_error(-ENOMEM, "%s: out of memory", r->name);
			r->marks = m;
			r->capmarks = cap;
		}
		r->marks[r->nmarks++] = r->nstack;
		return 0;
	case '}': return push(r, json_object(), 1);
	case ']': case ')': case 0x8f: return push(r, json_array(), 1);
	case 'N': return push(r, json_null(), 0);
	case 0x88: return push(r, json_true(), 0);
	case 0x89: return push(r, json_false(), 0);
	case 'J': return push_int(r, 4, true);
	case 'K': return push_int(r, 1, false);
	case 'M': return push_int(r, 2, false);
	case 0x8a: return push_long(r, 1);
	case 0x8b: return push_long(r, 4);
	case 'G':
		if ((ret = need(r, 8)))
			return ret;
		u = 0;
		for (int i = 0; i < 8; i++)
			u = u << 8 | r->p[r->pos + (size_t)i];
		r->pos += 8;
		memcpy(&d, &u, sizeof(d));
		return push(r, isfinite(d) ? json_real(d) : json_null(), 0);
	case 'X': return push_text(r, 4);
	case 0x8c: return push_text(r, 1);
	case 0x8d: return push_text(r, 8);
	case 'C': case 'U': return push_text(r, 1);
	case 'B': case 'T': return push_text(r, 4);
	case 0x8e: case 0x96: return push_text(r, 8);
	case 'q': return (ret = take_le(r, 1, &u)) ? ret : memo_put(r, u);
	case 'r': return (ret = take_le(r, 4, &u)) ? ret : memo_put(r, u);
	case 0x94: return memo_put(r, r->nmemo);
	case 'h': return (ret = take_le(r, 1, &u)) ? ret : memo_get(r, u);
	case 'j': return (ret = take_le(r, 4, &u)) ? ret : memo_get(r, u);
	case 'a':
		if ((ret = pop(r, &a)))
			return ret;
		if (!top(r)) {
			json_decref(a.v);
			return fail(r, -EPROTO, op, "APPEND with no list below");
		}
		return append(r, top(r), a);
	case 's':
		if ((ret = pop(r, &b)))
			return ret;
		if ((ret = pop(r, &a))) {
			json_decref(b.v);
			return ret;
		}
		if (!top(r)) {
			json_decref(a.v);
			json_decref(b.v);
			return fail(r, -EPROTO, op, "SETITEM with no dict below");
		}
		return set_item(r, top(r), a, b);
	case 'e': case 'u': case 0x90: case 't': case 0x91:
		return from_mark(r, op);
	case 0x85: return tuple_n(r, 1);
	case 0x86: return tuple_n(r, 2);
	case 0x87: return tuple_n(r, 3);
	case '0':
		if ((ret = pop(r, &a)))
			return ret;
		json_decref(a.v);
		return 0;
	case '1': {
		size_t at = 0;

		if ((ret = pop_mark(r, &at)))
			return ret;
		while (r->nstack > at)
			json_decref(r->stack[--r->nstack].v);
		return 0;
	}
	default:
		if (code_op(op))
			return fail(r, -EPROTO, op, "(%s) would run code: refused", code_op(op));
		return fail(r, -EPROTO, op, "is not one this reader takes (plain data, protocols 2 to 5)");
	}
}

int gf_nccl_pickle_load(const void *buf, size_t len, const char *name, json_t **out)
{
	struct rd r = { .p = buf, .len = len, .name = name ? name : "pickle" };
	bool stop = false;
	int ret = 0;

	*out = NULL;
	while (!stop) {
		r.op_at = r.pos;
		if (r.pos >= r.len) {
			ret = gf_error(-EBADMSG, "%s: offset %zu: truncated: no STOP opcode", r.name, r.pos);
			break;
		}
		r.op = r.p[r.pos++];
		if ((ret = step(&r, r.op, &stop)))
			break;
	}
	if (!ret) {
		*out = r.stack[0].v;
		r.nstack = 0;
	}
	while (r.nstack)
		json_decref(r.stack[--r.nstack].v);
	for (size_t i = 0; i < r.capmemo; i++)
		json_decref(r.memo[i]);
	free(r.stack);
	free(r.marks);
	free(r.memo);
	return ret;
}
