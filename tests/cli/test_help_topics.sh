#!/usr/bin/env bash
# The documentation built into the binary: 'gpufeed help TOPIC' prints
# docs/TOPIC.md as it is in the tree, from a copy of the binary run where no
# tree is; 'gpufeed help' lists every page; a mistyped topic gets a guess.
. "$(dirname "$0")/lib.sh"

away=$TMP/away
mkdir -p "$away/bin" "$away/cwd"
cp "$GPUFEED" "$away/bin/gpufeed"
# Run from an empty directory with no docs/ above it (GPUFEED_SRC unset).
in_away() { (cd "$away/cwd" && env -u GPUFEED_SRC "$away/bin/gpufeed" "$@"); }

run in_away help loader
if [ "$rc" = 0 ] && cmp -s "$out" "$SRC/docs/loader.md"; then ok "help loader prints docs/loader.md, away from the tree"
else not_ok "help loader: exit $rc, differs from docs/loader.md"; diff "$out" "$SRC/docs/loader.md" | head -5 | sed 's/^/#   /'; fi
run in_away help readme
if [ "$rc" = 0 ] && cmp -s "$out" "$SRC/README.md"; then ok "help readme prints README.md"; else not_ok "help readme: exit $rc"; fi

# Every page, by topic and by the path the --help footers cite.
bad=
for page in "$SRC"/docs/*.md; do
	topic=$(basename "$page" .md)
	in_away help "docs/$topic.md" 2>/dev/null | cmp -s - "$page" || bad="$bad docs/$topic.md"
done
if [ -z "$bad" ]; then ok "every docs page prints by its path (docs/NAME.md)"; else not_ok "pages that differ:$bad"; fi

run in_away help
expect_grep "$out" "^Topics" "help lists the topics"
missing=
for page in README.md "$SRC"/docs/*.md; do
	topic=$(basename "$page" .md | tr 'A-Z' 'a-z')
	grep -qw -- "$topic" "$out" || missing="$missing $topic"
done
if [ -z "$missing" ]; then ok "  every page is listed"; else not_ok "  not listed:$missing"; fi
expect_grep "$out" "^Commands:" "  after the commands"

# A command comes first; its page by the file's name.
run in_away help plan
expect_grep "$out" "^Usage: gpufeed plan" "help plan is the command's help"
run in_away help plan.md
if cmp -s "$out" "$SRC/docs/plan.md"; then ok "help plan.md is docs/plan.md"; else not_ok "help plan.md differs"; fi

expect_rc 2 "an unknown topic" in_away help loadr
expect_grep "$err" "no command or topic 'loadr'" "  is named"
expect_grep "$err" "Did you mean 'gpufeed help loader'?" "  with the nearest topic"
expect_rc 2 "--man takes commands only" in_away help --man loader

finish
