#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man pages in docs/man/ against what they document, so they cannot drift:

- every page is lint-clean (`mandoc -T lint`, every level, its cross
  references resolved against the pages themselves);
- ovlperf-SUB(1) lists as `.It Fl ...` items exactly the options
  `ovlperf SUB --help` prints (and ovlperf(1) those of `ovlperf --help`),
  -h/--help aside;
- ovlperf(1) names every command `ovlperf --help` lists, each with a page;
- ovlperf-scenario(5) documents, section by section, exactly the keys of the
  scenario reader's key tables (src/scenario/scenario_keys.c);
- ovlperf-tunnel.conf(5) exactly the [interface] and [peer] keys the
  tunnel's configuration reader takes (tunnel/config.c).

Usage: check.py OVLPERF   (run from the top of the tree). Exits 1 naming
every difference.
"""
import os
import re
import subprocess
import sys

MAN = "docs/man"
problems = []


def fail(msg):
    problems.append(msg)


def help_text(ovlperf, *args):
    r = subprocess.run([ovlperf, *args, "--help"], capture_output=True, text=True)
    return r.stdout + r.stderr


# An option in a --help text: -x or --long-name after the start of a line,
# a blank, a comma, '[' or '|' (so "ovp-NAME-0" or "rate-layer" are not).
OPT = re.compile(r"(?:^|(?<=[\s,\[|]))(--?[A-Za-z0-9][A-Za-z0-9-]*)")
IGNORED = {"-h", "--help"}


# Where a --help text lists options: its usage lines and the option column
# (a line that starts with blanks and a dash, up to the gap before the
# description). Options inside descriptions or shell examples ("head -c 32")
# are not the command's own.
USAGE = re.compile(r"^(?:Usage:|\s+ovlperf\b)")
OPT_COLUMN = re.compile(r"^\s+(-\S.*?)(?:\s{2,}|$)")


def help_options(text):
    opts = set()
    for line in text.splitlines():
        if USAGE.match(line):
            part = line
        else:
            m = OPT_COLUMN.match(line)
            if not m:
                continue
            part = m.group(1)
        for m in OPT.finditer(part):
            o = m.group(1)
            if o.startswith("--") or len(o) == 2:
                opts.add(o)
    return opts - IGNORED


def page_options(path):
    """The options a page lists: the `Fl` words of its `.It` lines."""
    opts = set()
    with open(path) as f:
        for line in f:
            if not line.startswith(".It "):
                continue
            words = line.split()
            for i, w in enumerate(words[:-1]):
                if w == "Fl":
                    opts.add("-" + words[i + 1])
    return opts - IGNORED


def compare(what, documented, actual, source):
    for o in sorted(actual - documented):
        fail(f"{what}: {o} is in {source} but not documented")
    for o in sorted(documented - actual):
        fail(f"{what}: documents {o}, which {source} does not have")


def commands(ovlperf):
    text = help_text(ovlperf)
    m = re.search(r"Commands:\n((?:  \S.*\n)+)", text)
    if not m:
        fail("ovlperf --help lists no commands")
        return text, []
    return text, [l.split()[0] for l in m.group(1).splitlines()]


def check_commands(ovlperf):
    text, cmds = commands(ovlperf)
    # the global options: the usage line and the lines after the commands
    compare("ovlperf.1", page_options(f"{MAN}/ovlperf.1"), help_options(
        re.sub(r"Commands:\n(?:  \S.*\n)+", "", text)), "ovlperf --help")
    top = open(f"{MAN}/ovlperf.1").read()
    for c in cmds:
        page = f"{MAN}/ovlperf-{c}.1"
        if not os.path.exists(page):
            fail(f"{page}: missing (ovlperf --help lists '{c}')")
            continue
        if not re.search(rf"^\.It Cm {c}$", top, re.M):
            fail(f"ovlperf.1: command {c} not listed")
        compare(f"ovlperf-{c}.1", page_options(page),
                help_options(help_text(ovlperf, c)), f"ovlperf {c} --help")


def c_tables(path):
    """scenario_keys.c: {section: set(keys)} from its keydef tables and the
    kinds[] table that maps them to section names."""
    src = open(path).read()
    tables = {}
    for m in re.finditer(r"static const struct keydef (\w+)\[\] = \{(.*?)\n\};", src, re.S):
        tables[m.group(1)] = set(re.findall(r"(?:KEY0?|REF)\(\s*\"(\w+)\"|\{\s*\"(\w+)\"",
                                            m.group(2)))
    for k, v in tables.items():
        tables[k] = {a or b for a, b in v}
    kinds = re.search(r"\} kinds\[\] = \{(.*?)\n\};", src, re.S)
    out = {}
    for name, table in re.findall(r"\{\s*\"([\w.]+)\",\s*\w+,\s*\w+,\s*(\w+)\s*\}",
                                  kinds.group(1) if kinds else ""):
        out[name] = tables.get(table, set())
    if not out:
        fail(f"{path}: no key tables found (has its layout changed?)")
    return out


def page_sections(path):
    """{section: set(keys)}: `.Ss \\(lBname\\(rB` or `.Ss \\(lBname.NAME\\(rB`
    headings ("[name]"; a bare ] is a delimiter to mdoc) and
    the `Cm` words of the `.It` lines under them."""
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"\.Ss \\\(lB(\w+\.?)", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, set())
        elif line.startswith(".Sh "):
            cur = None
        elif cur and line.startswith(".It "):
            words = line.split()
            out[cur] |= {words[i + 1] for i, w in enumerate(words[:-1]) if w == "Cm"}
    return out


def compare_sections(what, documented, actual, source):
    for sec in sorted(set(actual) | set(documented)):
        label = f"[{sec}NAME]" if sec.endswith(".") else f"[{sec}]"
        if sec not in documented:
            fail(f"{what}: section {label} of {source} is not documented")
        elif sec not in actual:
            fail(f"{what}: documents section {label}, which {source} does not have")
        else:
            compare(f"{what} {label}", {"key " + k for k in documented[sec]},
                    {"key " + k for k in actual[sec]}, source)


def tunnel_keys(path):
    src = open(path).read()
    out = {}
    for sec in ("interface", "peer"):
        # SEC_key() and the steps it calls, SEC_<what>_key()
        out[sec] = set()
        for m in re.finditer(rf"static \w+ {sec}(_\w+)?_key\(.*?\n\}}\n", src, re.S):
            out[sec] |= set(re.findall(r"key_is\(name, \"(\w+)\"\)", m.group(0)))
        if not out[sec]:
            fail(f"{path}: no keys found in {sec}_key() (has its layout changed?)")
    return out


def lint():
    """mandoc -T lint on every page. mandoc looks the targets of `Xr` up in
    the installed manuals, where these pages are not (yet): a "referenced
    manual not found" for a page of docs/man/ is checked here instead (the
    page must exist); every other message fails."""
    pages = sorted(f"{MAN}/{n}" for n in os.listdir(MAN) if n.rsplit(".", 1)[-1] in ("1", "5"))
    ours = {os.path.basename(p).rsplit(".", 1)[0] + " " + p.rsplit(".", 1)[1] for p in pages}
    r = subprocess.run(["mandoc", "-T", "lint", *pages], capture_output=True, text=True)
    out = (r.stdout + r.stderr).splitlines()
    for line in out:
        m = re.search(r"STYLE: referenced manual not found: Xr (\S+ \d)", line)
        if m and m.group(1) in ours:
            continue
        fail(line)
    if r.returncode > 1 and not out:
        fail(f"mandoc -T lint exited {r.returncode}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ovlperf = sys.argv[1]
    lint()
    check_commands(ovlperf)
    compare_sections("ovlperf-scenario.5", page_sections(f"{MAN}/ovlperf-scenario.5"),
                     c_tables("src/scenario/scenario_keys.c"), "scenario_keys.c")
    compare_sections("ovlperf-tunnel.conf.5", page_sections(f"{MAN}/ovlperf-tunnel.conf.5"),
                     tunnel_keys("tunnel/config.c"), "tunnel/config.c")
    for p in problems:
        print("man-check:", p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("man-check: %s pages lint-clean and in step with --help, the scenario keys "
          "and the tunnel configuration keys" % len(os.listdir(MAN)))


main()
