/* Quoting for the text other tools read back: POSIX shell words (docker
 * lines, env exports), YAML scalars (pod specs, kubelet snippets) and XML
 * attribute values (NCCL topology files).  Each writes into a FILE so the
 * emitters stay streaming; each returns 0 or -EIO. */
#ifndef GF_CORE_QUOTE_H
#define GF_CORE_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/* True when s needs no quoting as a shell word: [A-Za-z0-9_@%+=:,./-]+. */
bool gf_shell_word_plain(const char *s);
/* s as one shell word: as is when plain, else in single quotes with each '
 * written as '\''. */
int gf_shell_quote(FILE *f, const char *s);
/* s as a YAML double-quoted scalar: "..." with \\, \", control characters
 * as \xXX (every YAML 1.1/1.2 parser reads it back byte for byte). */
int gf_yaml_quote(FILE *f, const char *s);
/* s with & < > " ' escaped, for an XML attribute value (no quotes written). */
int gf_xml_escape(FILE *f, const char *s);

#endif
