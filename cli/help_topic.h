/* The documentation built into the binary (scripts/embed-docs.sh): README
 * and the pages of docs/, so 'gpufeed help TOPIC' shows a page with no tree and no
 * installed copy at hand. */
#ifndef GF_CLI_HELP_TOPIC_H
#define GF_CLI_HELP_TOPIC_H

#include <stdio.h>

struct gf_doc_page {
	const char *topic;	/* "loader": the file's name without .md, lower case */
	const char *path;	/* "docs/loader.md", as --help footers cite it */
	const char *text;	/* the Markdown, as in the tree */
};

extern const struct gf_doc_page gf_doc_pages[];
extern const int gf_doc_npages;

/* The page a word names: "loader", "loader.md" or "docs/loader.md"; NULL
 * when none does. */
const struct gf_doc_page *gf_doc_find(const char *word);
/* The nearest topic to a mistyped one, or NULL. */
const char *gf_doc_suggest(const char *word);
/* "Topics (...):" and the topics, wrapped under width columns. */
void gf_doc_list_topics(FILE *f, int width);

#endif
