/* Fault injection for the I/O engine (see fault.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include <gpufeed/io.h>
#include "core/error.h"
#include "io/fault.h"

#define MAX_FAULTS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	struct gf_io_fault f;
	unsigned seen, fired;
} faults[MAX_FAULTS];
static atomic_int nfaults;
static unsigned fired_total;

/* Adds all n or none. */
static int add_all(const struct gf_io_fault *f, int n)
{
	int rc = 0, have;

	pthread_mutex_lock(&lock);
	have = atomic_load(&nfaults);
	if (have + n > MAX_FAULTS) {
		rc = gf_error(-ENOSPC, "fault injection: at most %d faults", MAX_FAULTS);
	} else {
		for (int i = 0; i < n; i++) {
			faults[have + i].f = f[i];
			faults[have + i].seen = faults[have + i].fired = 0;
		}
		atomic_store(&nfaults, have + n);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int gf_io_fault_add(const struct gf_io_fault *f)
{
	return add_all(f, 1);
}

void gf_io_fault_clear(void)
{
	pthread_mutex_lock(&lock);
	atomic_store(&nfaults, 0);
	fired_total = 0;
	pthread_mutex_unlock(&lock);
}

unsigned gf_io_fault_fired(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = fired_total;
	pthread_mutex_unlock(&lock);
	return n;
}

long long gf_io_fault_apply(int op, uint64_t off, long long res)
{
	int n = atomic_load_explicit(&nfaults, memory_order_acquire);

	if (!n)
		return res;
	pthread_mutex_lock(&lock);
	n = atomic_load(&nfaults);
	for (int i = 0; i < n; i++) {
		struct gf_io_fault *f = &faults[i].f;

		if (f->op >= 0 && f->op != op)
			continue;
		if (f->len && (off < f->off || off - f->off >= f->len))
			continue;
		if (faults[i].seen++ < f->skip)
			continue;
		if (f->count && faults[i].fired >= f->count)
			continue;
		faults[i].fired++;
		fired_total++;
		if (f->err)
			res = f->err;
		else if (f->cut >= 0 && res > f->cut)
			res = f->cut;
		break;
	}
	pthread_mutex_unlock(&lock);
	return res;
}

static int parse_u64(const char **p, uint64_t *v)
{
	char *end;

	/* Digits only: strtoull would take blanks, a sign, and wrap "-1". */
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 0);
	if (end == *p || errno)
		return -1;
	*p = end;
	return 0;
}

static int parse_one(const char *s, size_t len, struct gf_io_fault *f)
{
	static const struct { const char *name; int op; } ops[] = {
		{ "read", GF_IO_READ }, { "write", GF_IO_WRITE }, { "fsync", GF_IO_FSYNC }, { "any", -1 },
	};
	static const struct { const char *name; int err; } kinds[] = {
		{ "eio", -EIO }, { "enospc", -ENOSPC }, { "eintr", -EINTR }, { "eagain", -EAGAIN },
		{ "short", 0 },
	};
	char buf[128];
	const char *p;
	char *colon;
	size_t i;
	uint64_t v;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(f, 0, sizeof(*f));
	f->cut = -1;
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(buf, ops[i].name))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return -1;
	f->op = ops[i].op;
	p = colon + 1;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].name);
		if (!strncmp(p, kinds[i].name, n) && strchr("=@*", p[n]))
			break;
	}
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return -1;
	f->err = kinds[i].err;
	p += strlen(kinds[i].name);
	if (*p == '=') {
		p++;
		if (f->err || parse_u64(&p, &v))
			return -1;
		f->cut = (long long)v;
	} else if (!f->err) {
		return -1;	/* short needs =N */
	}
	if (*p == '@') {
		p++;
		if (parse_u64(&p, &f->off))
			return -1;
		f->len = 1;
		if (*p == '+') {
			p++;
			if (parse_u64(&p, &f->len) || !f->len)
				return -1;
		}
	}
	if (*p == '*') {
		p++;
		if (parse_u64(&p, &v) || v > 1000000)
			return -1;
		f->count = (unsigned)v;
	}
	return *p ? -1 : 0;
}

int gf_io_fault_parse(const char *spec)
{
	struct gf_io_fault f[MAX_FAULTS];
	const char *s = spec;
	int n = 0;

	/* All or nothing: parse every entry before adding any. */
	while (*s) {
		size_t len = strcspn(s, ",");

		if (n == MAX_FAULTS)
			return gf_error(-ENOSPC, "GPUFEED_IO_FAULT: at most %d faults", MAX_FAULTS);
		if (parse_one(s, len, &f[n]))
			return gf_error(-EINVAL, "GPUFEED_IO_FAULT: cannot parse '%.*s' (want "
					"OP:KIND[=N][@OFF[+LEN]][*COUNT], e.g. read:eio@0)", (int)len, s);
		n++;
		s += len;
		if (*s == ',')
			s++;
	}
	return add_all(f, n);
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_rc;
static char env_msg[256];

static void load_env(void)
{
	const char *spec = gf_env_str(GF_ENV_IO_FAULT);

	if (spec && *spec) {
		env_rc = gf_io_fault_parse(spec);
		if (env_rc)
			strncpy(env_msg, gf_last_error(), sizeof(env_msg) - 1);
	}
}

int gf_io_fault_from_env(void)
{
	pthread_once(&env_once, load_env);
	if (env_rc)
		return gf_error(env_rc, "%s", env_msg);
	return 0;
}
