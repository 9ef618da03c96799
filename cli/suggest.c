/* "Did you mean": the nearest name to a mistyped word (suggest.h). */
#include <string.h>

#include "cli.h"
#include "suggest.h"

enum { GF_SUGGEST_MAX_LEN = 64 };

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of neighbours each cost one ("tpo" -> "top" is one). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[GF_SUGGEST_MAX_LEN + 1][GF_SUGGEST_MAX_LEN + 1];

	if (la > GF_SUGGEST_MAX_LEN || lb > GF_SUGGEST_MAX_LEN)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

void gf_suggest_init(struct gf_suggest *s, const char *word)
{
	*s = (struct gf_suggest){ .word = word, .best = NULL, .best_dist = (size_t)-1, .ties = 0 };
}

void gf_suggest_consider(struct gf_suggest *s, const char *name)
{
	size_t dist, len;

	if (!name || !*name || !strcmp(name, s->word))
		return;
	len = strlen(name);
	dist = edit_distance(s->word, name);
	/* Near means at most two edits and at most half the name's letters:
	 * "ls" is not a typo of "nccl". */
	if (dist > 2 || 2 * dist > len)
		return;
	if (dist < s->best_dist) {
		s->best = name;
		s->best_dist = dist;
		s->ties = 0;
	} else if (dist == s->best_dist && strcmp(name, s->best)) {
		s->ties++;
	}
}

const char *gf_suggest_result(const struct gf_suggest *s)
{
	return s->ties ? NULL : s->best;
}

const char *gf_suggest_command(const char *word)
{
	struct gf_suggest s;

	gf_suggest_init(&s, word);
	for (const struct gf_cmd *const *c = gf_commands; *c; c++)
		gf_suggest_consider(&s, (*c)->name);
	gf_suggest_consider(&s, "help");
	return gf_suggest_result(&s);
}

const char *gf_suggest_sub(const struct gf_cmd *cmd, const char *word)
{
	size_t skip = strlen(cmd->name) + 1;
	struct gf_suggest s;

	gf_suggest_init(&s, word);
	for (const struct gf_cmd *const *sub = cmd->subs; sub && *sub; sub++)
		gf_suggest_consider(&s, (*sub)->name + skip);
	return gf_suggest_result(&s);
}

const char *gf_suggest_option(const struct gf_cmd *cmd, const char *word)
{
	char name[GF_SUGGEST_MAX_LEN + 1];
	size_t len = strcspn(word, "=");
	struct gf_suggest s;

	if (len > GF_SUGGEST_MAX_LEN)
		return NULL;
	memcpy(name, word, len);
	name[len] = '\0';
	gf_suggest_init(&s, name);
	for (const struct gf_opt *o = cmd->opts; o && o->type != GF_OPT_END; o++) {
		struct gf_opt r = gf_opt_resolve(o);

		if (r.type != GF_OPT_END && !(r.flags & GF_OPT_HIDDEN))
			gf_suggest_consider(&s, r.long_name);
	}
	return gf_suggest_result(&s);
}
