#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of a run's report.html for test_report_formats.sh.

  report_html_check.py static HTML REPORT_MD DIR
      the page is self-contained (no script, no stylesheet link, every src
      and href a data: URI or an anchor in the page, no url() but data:),
      has a viewport, one <h2> for every '## ' heading of report.md and one
      embedded image per SVG in DIR, each the bytes of that SVG.
  report_html_check.py dom DOM REPORT_MD LOG
      Chromium's rendered DOM (--dump-dom) shows every section heading of
      report.md and every table row count it has, and its log (stderr with
      --enable-logging) has no console message: the page has no script, so
      any message is the browser reporting a problem with it.
"""
import base64
import glob
import os
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.h2, self.imgs, self.refs, self.meta = [], [], [], [], {}
        self._in_h2 = None
        self.rows = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        for k in ("src", "href"):
            if k in a:
                self.refs.append(a[k])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "meta" and "name" in a:
            self.meta[a["name"]] = a.get("content", "")
        if tag == "h2":
            self._in_h2 = ""
        if tag == "tr":
            self.rows += 1

    def handle_endtag(self, tag):
        if tag == "h2" and self._in_h2 is not None:
            self.h2.append(self._in_h2.strip())
            self._in_h2 = None

    def handle_data(self, data):
        if self._in_h2 is not None:
            self._in_h2 += data


def parse(path):
    p = Page()
    text = open(path, encoding="utf-8").read()
    p.feed(text)
    return p, text


def md_sections(md_path):
    md = open(md_path, encoding="utf-8").read()
    heads, rows, fence = [], 0, False
    for l in md.splitlines():
        if l.startswith("```"):
            fence = not fence
        elif fence:
            continue
        elif l.startswith("## "):
            heads.append(l[3:].strip())
        elif l.startswith("|") and not l.startswith("|-") and not re.fullmatch(r"\|( *\|)+", l):
            rows += 1  # a row of empty cells is an empty header, not shown
    return heads, rows


def need(cond, what):
    if not cond:
        print("report.html:", what, file=sys.stderr)
        sys.exit(1)


def static(html, md, d):
    p, text = parse(html)
    heads, _ = md_sections(md)
    need(heads, "report.md has no sections")
    need("width=device-width" in p.meta.get("viewport", ""), "no viewport meta")
    need("script" not in p.tags and "link" not in p.tags, "a script or a stylesheet link")
    for r in p.refs:
        need(r.startswith("data:") or r.startswith("#"), "an external reference: " + r[:80])
    for u in re.findall(r"url\(\s*['\"]?([^)'\"]*)", text):
        need(u.startswith("data:"), "an external url(): " + u)
    need(p.h2 == heads, "sections %s, report.md has %s" % (p.h2, heads))
    svgs = sorted(glob.glob(os.path.join(d, "*.svg")))
    need(len(p.imgs) == len(svgs) > 0, "%d images for %d SVGs" % (len(p.imgs), len(svgs)))
    embedded = set()
    for src in p.imgs:
        pre = "data:image/svg+xml;base64,"
        need(src.startswith(pre), "an image that is not an embedded SVG")
        embedded.add(base64.b64decode(src[len(pre):]))
    for s in svgs:
        need(open(s, "rb").read() in embedded, os.path.basename(s) + " is not embedded as it is")
    print("report.html: self-contained, viewport, %d sections, %d plots embedded"
          % (len(heads), len(svgs)))


def dom(dom_path, md, log):
    p, _ = parse(dom_path)
    heads, rows = md_sections(md)
    need(p.h2 == heads, "rendered sections %s, report.md has %s" % (p.h2, heads))
    need(p.rows == rows, "rendered %d table rows, report.md has %d" % (p.rows, rows))
    msgs = [l for l in open(log, errors="replace") if ":CONSOLE" in l]
    need(not msgs, "console messages while rendering:\n" + "".join(msgs))
    print("report.html in Chromium: %d sections, %d table rows, no console message"
          % (len(heads), rows))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "static":
        static(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "dom":
        dom(*sys.argv[2:])
    else:
        sys.exit(__doc__)
