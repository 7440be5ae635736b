#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Finds files that include each other, directly or around a circle.

A module is a .c file with the header(s) that declare what it defines: a
header is only the promise of a definition, so "A includes B" means A uses
a name that B's .c defines (not static) and that A reaches through a
header. That is the edge the linker sees, read from the source so that
`make layout-check` needs no build. A shared private header (`lab_int.h`)
then makes no circle by itself; two files that each use what the other
defines do, as do three around a ring.

Usage: include_cycles.py [--count] [FILE...]   (default: src/ and tunnel/)
Prints each circle, one line per module set, and exits 1 if there is one;
--count prints only their number and exits 0.
"""
import glob
import os
import re
import sys

# A name used: not a struct, union or enum tag, not a member after . or ->.
USE = re.compile(r"(?<![\w.>])(?<!struct )(?<!union )(?<!enum )([A-Za-z_]\w*)")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else",
            "case", "_Static_assert", "struct", "union", "enum", "const", "__attribute__", "typeof", "defined"}


def strip(text):
    """The code without comments, strings, characters and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    # A preprocessor line (continued ones too) declares nothing the linker sees.
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)


def top_level(code):
    """The text at brace depth 0, one statement or definition head at a time,
    and the whole text's identifiers."""
    heads, cur, depth = [], [], 0
    for ch in code:
        if ch == "{":
            if depth == 0:
                head = "".join(cur)
                cur = []
                if re.match(r"[^(=]*\b(struct|union|enum)\b[^(=]*$", head):
                    # A type's body: its declarators follow it ("static
                    # const struct { ... } plots[] = {").
                    cur = list(head + " ")
                else:
                    heads.append((head, True))
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            if ch == ";":
                heads.append(("".join(cur), False))
                cur = []
            else:
                cur.append(ch)
    return heads


def definitions(code):
    """Names this file defines for others (not static): functions and objects."""
    names, own = set(), set()
    for head, braced in top_level(code):
        head = head.strip()
        if not head or head.startswith(("typedef", "extern")):
            continue
        if re.match(r"(struct|union|enum)\b\s*\w*\s*$", head):
            continue
        static = re.search(r"\bstatic\b", head) is not None
        m = re.match(r"([^=(]*?)\b([A-Za-z_]\w*)\s*\(", head)
        if m and braced and "=" not in head.split("(")[0]:
            name = m.group(2)
        else:
            if braced and "=" not in head:
                continue  # a struct or enum definition
            if "(" in head.split("=")[0] and not braced:
                m = re.match(r"[^=(]*?\b([A-Za-z_]\w*)\s*\(", head)
                if m:
                    own.add(m.group(1))  # a prototype: the name is known here
                continue
            m = re.search(r"\b([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*(=|$)", head.split("=")[0] + "=")
            if not m:
                continue
            name = m.group(1)
        own.add(name)
        if not static and name not in KEYWORDS:
            names.add(name)
    return names, own


def headers(path, seen):
    """The project's headers a file includes, directly or through another:
    beside it first, then in include/*/ (the Makefile's include path)."""
    for name in re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"',
                           open(path, encoding="utf-8").read(), flags=re.M):
        found = [p for p in [os.path.join(os.path.dirname(path), name)]
                 + glob.glob(os.path.join("include", "*", name)) if os.path.exists(p)]
        if found and found[0] not in seen:
            seen.add(found[0])
            headers(found[0], seen)
    return seen


def graph(files):
    code = {f: strip(open(f, encoding="utf-8").read()) for f in files}
    declared = {}
    for f in files:
        names = set()
        for h in headers(f, set()):
            names |= set(USE.findall(strip(open(h, encoding="utf-8").read())))
        declared[f] = names
    defined_by, own = {}, {}
    for f in files:
        names, own[f] = definitions(code[f])
        for n in names:
            defined_by[n] = f
    edges = {f: set() for f in files}
    for f in files:
        for n in (set(USE.findall(code[f])) & declared[f]) - own[f]:
            g = defined_by.get(n)
            if g and g != f:
                edges[f].add(g)
    return edges


def circles(edges):
    """Tarjan's strongly connected components with more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv):
    count = "--count" in argv
    files = [a for a in argv if not a.startswith("--")]
    if not files:
        files = sorted(f for f in glob.glob("src/**/*.c", recursive=True)
                       + glob.glob("tunnel/*.c"))
    edges = graph(files)
    found = circles(edges)
    if count:
        print(len(found))
        return 0
    for comp in found:
        uses = "; ".join(f"{a} uses {', '.join(sorted(edges[a] & set(comp)))}" for a in comp)
        print(f"include circle: {uses}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
