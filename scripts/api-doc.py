#!/usr/bin/env python3
"""The public C API's reference (docs/api.md), written from the headers.

Every GF_API function in include/gpufeed/*.h is listed under its header with
the comment that documents it: the comment right above it, or the comment
above a run of declarations it belongs to (the headers group calls that way:
"gf_cpuset_and, _or, _andnot: dst = a & b, ..."), and each header opens with
the comment that says what it is for.  A function with no comment anywhere
above it in its group fails the check, so the reference cannot fall behind
the API (liburing documents each call in a man page; one page is enough here).

    scripts/api-doc.py                 write docs/api.md
    scripts/api-doc.py --check         exit 1 when docs/api.md is stale or a
                                       function is undocumented (make check)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(ROOT, "include", "gpufeed")
OUT = os.path.join(ROOT, "docs", "api.md")

# The order a reader meets them: the umbrella and conventions, the machine,
# what reads and changes it, then the data path.
ORDER = ["gpufeed.h", "common.h", "error.h", "log.h", "env.h", "parse.h", "cpuset.h", "topo.h", "record.h",
         "report.h", "audit.h", "tune.h", "bind.h", "launch.h", "verify.h", "place.h", "emit.h", "buf.h",
         "dlpack.h", "io.h", "xfer.h", "bench.h"]


def strip_comment(lines):
    """The text of a /* ... */ block, its decoration removed (indentation
    inside the comment kept: it marks examples)."""
    text = []
    for ln in lines:
        ln = ln.strip()
        ln = re.sub(r"\s*\*+/$", "", ln)
        if ln.startswith("/*"):
            ln = re.sub(r"^/\*+ ?", "", ln)
        else:
            ln = re.sub(r"^\* ?", "", ln)
        text.append(ln.rstrip())
    while text and not text[0]:
        text.pop(0)
    while text and not text[-1]:
        text.pop()
    return "\n".join(text)


def escape(line):
    """Prose as Markdown shows it literally: "<system>" is not an HTML tag,
    "gf_env_*()" no emphasis, a leading '#' or '>' no heading or quote;
    `code` spans are left as they are."""
    parts = line.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"(\*|<(?=[A-Za-z/!?]))", r"\\\1", parts[i])
    line = "`".join(parts)
    return re.sub(r"^(\s*)([#>+])", r"\1\\\2", line)


def markdown(comment):
    """A comment as Markdown: paragraphs and "- " lists as they are, and a
    run of lines indented two or more (outside a list item) as an example in
    a fenced block, so that `  gf_io_open(NULL, &io);` keeps its lines."""
    out, code, in_list = [], [], False

    def flush():
        if code:
            cut = min(len(c) - len(c.lstrip()) for c in code if c.strip())
            if out and out[-1]:
                out.append("")
            out.extend(["```"] + [c[cut:] for c in code] + ["```", ""])
            del code[:]

    for line in comment.split("\n"):
        indent = len(line) - len(line.lstrip())
        if re.match(r"^ ?- ", line):
            flush()
            in_list = True
            out.append(escape(line.lstrip()))
        elif not line.strip():
            if code:
                code.append("")
            else:
                in_list = False
                out.append("")
        elif indent >= 2 and not in_list:
            code.append(line)
        else:
            if code:
                while code and not code[-1].strip():
                    code.pop()
                flush()
            out.append(("  " if in_list else "") + escape(line.strip()))
    while code and not code[-1].strip():
        code.pop()
    flush()
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def parse(path):
    """(the header's opening comment, [(declaration, comment)], [undocumented names])."""
    src = open(path).read().split("\n")
    intro, entries, missing = "", [], []
    comment, in_comment, block, group_comment = [], False, [], None
    i = 0
    # The opening comment: the first comment before the include guard.
    while i < len(src) and not src[i].strip().startswith("/*"):
        i += 1
    if i < len(src):
        j = i
        while j < len(src) and "*/" not in src[j]:
            j += 1
        intro = strip_comment(src[i:j + 1])
        i = j + 1
    last_comment = None     # the comment block above the current group
    while i < len(src):
        line = src[i]
        s = line.strip()
        if s.startswith("/*"):
            j = i
            while j < len(src) and "*/" not in src[j]:
                j += 1
            last_comment = strip_comment(src[i:j + 1])
            i = j + 1
            continue
        if s.startswith("GF_API"):
            decl = [s]
            while not decl[-1].rstrip().endswith((";", "{")) and i + 1 < len(src):
                i += 1
                decl.append(src[i].strip())
            text = " ".join(decl).rstrip("{").strip()
            text = re.sub(r"\s+", " ", text.replace("GF_API ", "", 1))
            if not text.endswith(";"):
                text += ";"
            name = re.search(r"(\w+)\s*\(", text)
            name = name.group(1) if name else text
            if last_comment is None:
                missing.append(name)
            entries.append((text, last_comment, name))
            i += 1
            continue
        if not s or s.startswith(("struct", "enum", "typedef", "}")):
            # A blank line or a type ends a group: the next declarations
            # need their own comment.
            last_comment = None
        i += 1
    return intro, entries, missing


def render():
    headers = sorted(f for f in os.listdir(INC) if f.endswith(".h"))
    order = [h for h in ORDER if h in headers] + [h for h in headers if h not in ORDER]
    parsed = [(h,) + parse(os.path.join(INC, h)) for h in order]
    out = ["# The C API", "",
           "Written by `scripts/api-doc.py` from the comments in `include/gpufeed/*.h`; "
           "`make check` fails when this page and the headers differ. The conventions every "
           "function follows are in [design.md](design.md#public-abi): 0 or a negative errno with "
           "`gf_last_error()` naming the input, options structs that carry their size "
           "(`GF_..._OPTS_INIT`), one symbol node per release (`src/libgpufeed.map`).", "",
           "Headers: " + ", ".join("[%s](#gpufeed%sh)" % (h[:-2], h[:-2]) for h, _, e, _ in parsed
                                   if e) + ".", ""]
    missing_all, count = [], 0
    for h, intro, entries, missing in parsed:
        missing_all += ["%s: %s" % (h, m) for m in missing]
        out += ["## `<gpufeed/%s>`" % h, ""]
        if intro:
            out += [markdown(intro), ""]
        # Declarations that share a comment (a group) share one block.
        i = 0
        while i < len(entries):
            comment = entries[i][1]
            j = i
            while j < len(entries) and entries[j][1] == comment and (j == i or comment):
                j += 1
            if comment:
                out += [markdown(comment), ""]
            out += ["```c"] + [text for text, _, _ in entries[i:j]] + ["```", ""]
            count += j - i
            i = j
    out.append("%d functions." % count)
    return "\n".join(out) + "\n", missing_all


def main():
    page, missing = render()
    if missing:
        print("api-doc: public functions without a comment above them (or above their group):", file=sys.stderr)
        for m in missing:
            print("  " + m, file=sys.stderr)
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        have = open(OUT).read() if os.path.exists(OUT) else ""
        if have != page:
            print("api-doc: docs/api.md is not what the headers say: run scripts/api-doc.py", file=sys.stderr)
            return 1
        return 1 if missing else 0
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, OUT)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
