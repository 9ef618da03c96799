#!/usr/bin/env python3
"""The bench figures of a gpufeed report --html page (or of Chromium's
--dump-dom of it), one line each: "DOCUMENT VALUE LIMIT", DOCUMENT the
position of its --bench file, VALUE "failed" for a failed point, LIMIT "-"
when the document gives none.  Standard library only.

    html_figures.py PAGE"""
import html.parser
import sys


class Figures(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.doc, self.rows = None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "bench":
            self.doc = a["data-file"]
        elif tag == "tr" and a.get("class") == "figure":
            self.rows.append([self.doc, "failed", "-"])
        elif tag == "td" and "data-value" in a:
            self.rows[-1][1] = a["data-value"]
        elif tag == "td" and "data-limit" in a:
            self.rows[-1][2] = a["data-limit"]


def main(path):
    parser = Figures()
    with open(path, encoding="utf-8") as f:
        parser.feed(f.read())
    for row in parser.rows:
        print(" ".join(row))


if __name__ == "__main__":
    main(sys.argv[1])
