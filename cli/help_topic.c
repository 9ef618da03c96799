/* Finding and listing the built-in documentation pages (help_topic.h). */
#include <string.h>

#include "help_topic.h"
#include "suggest.h"

const struct gf_doc_page *gf_doc_find(const char *word)
{
	size_t len = strlen(word);

	for (int i = 0; i < gf_doc_npages; i++) {
		const struct gf_doc_page *p = &gf_doc_pages[i];
		size_t tl = strlen(p->topic);

		if (!strcmp(word, p->topic) || !strcmp(word, p->path))
			return p;
		/* "loader.md" */
		if (len == tl + 3 && !strncmp(word, p->topic, tl) && !strcmp(word + tl, ".md"))
			return p;
	}
	return NULL;
}

const char *gf_doc_suggest(const char *word)
{
	struct gf_suggest s;

	gf_suggest_init(&s, word);
	for (int i = 0; i < gf_doc_npages; i++)
		gf_suggest_consider(&s, gf_doc_pages[i].topic);
	return gf_suggest_result(&s);
}

void gf_doc_list_topics(FILE *f, int width)
{
	int col = 0;

	fprintf(f, "Topics ('gpufeed help TOPIC' prints docs/TOPIC.md, 'readme' the README;\n"
		   "a topic that is also a command by its file's name: 'gpufeed help plan.md'):\n");
	for (int i = 0; i < gf_doc_npages; i++) {
		int len = (int)strlen(gf_doc_pages[i].topic);

		if (col && col + 1 + len > width) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s%s", col ? " " : "  ", gf_doc_pages[i].topic);
	}
	if (col)
		fputc('\n', f);
}
