/* Quoting for the text other tools read back: POSIX shell words (docker
 * lines, env exports), YAML scalars (pod specs, kubelet snippets), CEL
 * string literals (DRA device selectors) and XML attribute values (NCCL
 * topology files), and text placed inside a comment of any of them.  Each
 * writes into a FILE so the emitters stay streaming; each returns 0 or
 * -EIO.  Strings from a machine or a recording can hold any byte: what
 * these write parses back to the same string, or, for bytes that are not
 * UTF-8, to U+FFFD in their place (as gf_jstr does for JSON). */
#ifndef GF_CORE_QUOTE_H
#define GF_CORE_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/* True when s needs no quoting as a shell word: [A-Za-z0-9_@%+=:,./-]+. */
bool gf_shell_word_plain(const char *s);
/* s as one shell word: as is when plain, else in single quotes with each '
 * written as '\''. */
int gf_shell_quote(FILE *f, const char *s);
/* s as a YAML double-quoted scalar: "..." with \" and \\, and everything
 * but printable ASCII as \xXX (control characters), \uXXXX or \UXXXXXXXX,
 * which YAML 1.1 and 1.2 readers both read back as the same code point. */
int gf_yaml_quote(FILE *f, const char *s);
/* s as a CEL string literal ("..."), escaped as gf_yaml_quote escapes: no
 * quote in s can end the literal. */
int gf_cel_quote(FILE *f, const char *s);
/* s with & < > " ' escaped, for an XML attribute value (no quotes written);
 * other characters outside printable ASCII as &#xH; references, those XML
 * 1.0 does not allow as U+FFFD. */
int gf_xml_escape(FILE *f, const char *s);
/* s inside a comment (#, <!-- -->): printable ASCII as is, any other byte
 * as '?', so a line break cannot end the comment; with xml, the second '-'
 * of "--" as '?' too (XML forbids "--" in a comment, and "-->" ends it). */
int gf_comment_text(FILE *f, const char *s, bool xml);

#endif
