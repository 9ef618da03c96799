/* "Did you mean": the nearest of a list of names to a mistyped word, as
 * git's help.c suggests a command (an edit distance with a transposition
 * counted as one edit, and a bound that keeps far guesses out). */
#ifndef GF_CLI_SUGGEST_H
#define GF_CLI_SUGGEST_H

#include <stddef.h>

/* Walks a set of names: each call to gf_suggest_consider() offers one. */
struct gf_suggest {
	const char *word;	/* what was typed */
	const char *best;	/* the nearest name offered so far, NULL: none near */
	size_t best_dist;
	int ties;		/* names as near as best: the guess is not offered */
};

void gf_suggest_init(struct gf_suggest *s, const char *word);
void gf_suggest_consider(struct gf_suggest *s, const char *name);
/* The one nearest name, or NULL when none is near enough or two are. */
const char *gf_suggest_result(const struct gf_suggest *s);

/* The nearest command ("topo" for "tpo"), top-level only. */
const char *gf_suggest_command(const char *word);

struct gf_cmd;
/* The nearest subcommand of cmd ("io" for "bench oi"), its last word. */
const char *gf_suggest_sub(const struct gf_cmd *cmd, const char *word);
/* The nearest documented long option of cmd, without its dashes ("json"
 * for "jsn"); word is the typed name without dashes, "=VALUE" ignored. */
const char *gf_suggest_option(const struct gf_cmd *cmd, const char *word);

#endif
