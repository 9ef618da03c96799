/* The arithmetic of coll/run.h that nccl-tests defines (2.19, its
 * src/<coll>.cu and src/common.cu): names, the element counts of a size,
 * algbw and busbw, the sizes of a sweep; and the data check's inputs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coll/run.h"
#include "core/error.h"

static const char *const op_names[GF_COLL_OPS] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast",
						    "reduce", "alltoall", "sendrecv" };
/* nccl-tests' test_typenames, by ncclDataType_t */
static const char *const dtype_names[GF_NCCL_NUM_TYPES] = { "int8", "uint8", "int32", "uint32", "int64",
							     "uint64", "half", "float", "double", "bfloat16",
							     "f8e4m3", "f8e5m2" };
static const size_t dtype_sizes[GF_NCCL_NUM_TYPES] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
static const char *const redop_names[] = { "sum", "prod", "max", "min", "avg" };
#define NREDOPS (sizeof(redop_names) / sizeof(redop_names[0]))

const char *gf_coll_op_name(enum gf_coll_op op)
{
	return (unsigned)op < GF_COLL_OPS ? op_names[op] : "?";
}

static int parse_name(const char *what, const char *name, const char *const *names, unsigned n, int *out)
{
	char list[256] = "";

	for (unsigned i = 0; name && i < n; i++)
		if (!strcmp(name, names[i])) {
			*out = (int)i;
			return 0;
		}
	for (unsigned i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names[i]);
	return gf_error(-EINVAL, "--%s: '%s' is not one of %s", what, name ? name : "", list);
}

int gf_coll_op_parse(const char *name, enum gf_coll_op *op)
{
	int i, rc = parse_name("op", name, op_names, GF_COLL_OPS, &i);

	if (!rc)
		*op = (enum gf_coll_op)i;
	return rc;
}

bool gf_coll_op_reduces(enum gf_coll_op op)
{
	return op == GF_COLL_ALL_REDUCE || op == GF_COLL_REDUCE_SCATTER || op == GF_COLL_REDUCE;
}

bool gf_coll_op_rooted(enum gf_coll_op op)
{
	return op == GF_COLL_BROADCAST || op == GF_COLL_REDUCE;
}

int gf_coll_dtype_parse(const char *name, gf_nccl_datatype *t)
{
	return parse_name("dtype", name, dtype_names, GF_NCCL_NUM_TYPES, t);
}

const char *gf_coll_dtype_name(gf_nccl_datatype t)
{
	return (unsigned)t < GF_NCCL_NUM_TYPES ? dtype_names[t] : "?";
}

size_t gf_coll_dtype_size(gf_nccl_datatype t)
{
	return (unsigned)t < GF_NCCL_NUM_TYPES ? dtype_sizes[t] : 0;
}

int gf_coll_redop_parse(const char *name, gf_nccl_redop *op)
{
	return parse_name("redop", name, redop_names, NREDOPS, op);
}

const char *gf_coll_redop_name(gf_nccl_redop op)
{
	return (unsigned)op < NREDOPS ? redop_names[op] : "?";
}

void gf_coll_counts_of(enum gf_coll_op op, size_t bytes, size_t elt, int nranks, struct gf_coll_counts *c)
{
	size_t count = bytes / elt, n = (size_t)nranks;
	/* all_gather, reduce_scatter, alltoall: a per-rank block rounded down
	 * to 16 bytes */
	size_t base = (count / n) & ~(16 / elt - 1);

	memset(c, 0, sizeof(*c));
	switch (op) {
	case GF_COLL_ALL_GATHER:
		c->send = c->param = base;
		c->recv = base * n;
		c->send_inplace_off = base;
		break;
	case GF_COLL_REDUCE_SCATTER:
		c->send = base * n;
		c->recv = c->param = base;
		c->recv_inplace_off = base;
		break;
	case GF_COLL_ALLTOALL:
		c->param = base;
		c->send = c->recv = base * n;
		break;
	default:
		c->send = c->recv = c->param = count;
		break;
	}
}

uint64_t gf_coll_row_bytes(const struct gf_coll_counts *c, size_t elt)
{
	return (uint64_t)(c->send > c->recv ? c->send : c->recv) * elt;
}

double gf_coll_bus_factor(enum gf_coll_op op, int nranks)
{
	double n = nranks;

	switch (op) {
	case GF_COLL_ALL_REDUCE:
		return 2 * (n - 1) / n;
	case GF_COLL_ALL_GATHER:
	case GF_COLL_REDUCE_SCATTER:
	case GF_COLL_ALLTOALL:
		return (n - 1) / n;
	default:
		return 1;
	}
}

void gf_coll_bw(enum gf_coll_op op, size_t param_count, size_t elt, double sec, int nranks, double *algbw,
		double *busbw)
{
	double bytes = (double)(param_count * elt);

	if (op == GF_COLL_ALL_GATHER || op == GF_COLL_REDUCE_SCATTER || op == GF_COLL_ALLTOALL)
		bytes *= nranks;
	*algbw = sec > 0 ? bytes / 1.0e9 / sec : 0;
	*busbw = *algbw * gf_coll_bus_factor(op, nranks);
}

unsigned gf_coll_sizes(uint64_t min, uint64_t max, unsigned factor, uint64_t step, uint64_t *out, unsigned max_n)
{
	unsigned n = 0;

	if (factor <= 1 && !step)
		return 0;
	for (uint64_t s = min; s <= max; s = factor > 1 ? s * factor : s + step) {
		if (n < max_n)
			out[n] = s;
		n++;
		if (factor > 1 && s > UINT64_MAX / factor)
			break;
		if (factor <= 1 && s > UINT64_MAX - step)
			break;
		if (!s)		/* 0 * factor never moves */
			break;
	}
	return n;
}

/* ---- the data check's values ---- */

/* Small integers every type holds exactly, and whose sums, products and
 * averages over 8 ranks stay exact in the widest type and close in fp8. */
double gf_coll_pattern(gf_nccl_redop redop, int rank, int nranks, size_t index, unsigned seed)
{
	if (redop == GF_NCCL_PROD)	/* one rank of each index gives 2, the rest 1 */
		return (index + (size_t)rank + seed) % (size_t)nranks == 0 ? 2 : 1;
	/* mixed, so a block landing at another rank's or index's place shows */
	uint64_t h = (uint64_t)index * 2654435761u + (uint64_t)rank * 40503u + seed;

	return (double)(1 + (h >> 7) % 3);
}
