/* --only and --except: comma-separated check ids or categories. */
#include <errno.h>
#include <string.h>

#include <gpufeed/audit.h>
#include "core/error.h"
#include "tune/tune_internal.h"

static bool token_is(const char *tok, size_t n, const char *word)
{
	return strlen(word) == n && !strncmp(tok, word, n);
}

int select_check(const char *list, const char *what)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (int i = 0; i < gf_check_count() && !found && n; i++) {
			const struct gf_check_info *c = gf_check_info_at(i);

			found = token_is(p, n, c->id) || token_is(p, n, c->category);
		}
		if (!found)
			return gf_error(-EINVAL, "%s: '%.*s' is no check id or category (gpufeed check --list)", what,
					(int)n, p);
		p += n + (p[n] == ',');
	}
	return 0;
}

bool select_listed(const char *list, const struct gf_check_info *c)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");

		if (token_is(p, n, c->id) || token_is(p, n, c->category))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

bool select_names_id(const char *list, const struct gf_check_info *c)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");

		if (token_is(p, n, c->id))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}
