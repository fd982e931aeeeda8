#!/usr/bin/env python3
"""Include graph of the tree: files, modules (x.c + x.h) and directories,
with the strongly connected components (cycles) at each level.

Usage: incgraph.py [--map FILE] [-I DIR ...] [--edges] [REPO]
  REPO        a git checkout (default .); files are the tracked *.c, *.h.
  -I DIR      include path, in order (default: the -I flags found in the
              Makefile's CPPFLAGS_ALL, e.g. -I. -Icommon -Isymbolize -Iformats).
  --map FILE  rename files virtually before building the graph: lines
              "OLD NEW" (blank lines and '#' comments ignored), e.g.
              "common/stats/stats.c common/stats/stats.c".  Includes are resolved
              in the real tree, then both ends are renamed.
  --edges     also print every file-level edge.
A quote include "x.h" is resolved as the compiler does: the including
file's directory first, then each -I directory in order.  Angle includes
are system headers and ignored.  Exit status 0; this is a report, not a
check (see tools/check-layers.py for the check).
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def makefile_ipaths(repo):
    try:
        text = open(os.path.join(repo, "Makefile")).read()
    except OSError:
        return ["."]
    text = text.replace("\\\n", " ")
    m = re.search(r"^CPPFLAGS_ALL\s*:?=(.*)$", text, re.M)
    return re.findall(r"-I(\S+)", m.group(1)) if m else ["."]


def tracked(repo):
    out = subprocess.run(["git", "-C", repo, "ls-files", "--", "*.c", "*.h"],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def resolve_edges(repo, files, ipaths):
    """[(file, line, header-as-written, resolved-path-or-None)]"""
    have = set(files)
    edges = []
    for f in files:
        with open(os.path.join(repo, f), encoding="utf-8",
                  errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INC.match(line)
                if not m:
                    continue
                name = m.group(1)
                cands = [os.path.dirname(f)] + ipaths
                hit = None
                for d in cands:
                    p = os.path.normpath(os.path.join(d, name))
                    if p in have:
                        hit = p
                        break
                edges.append((f, n, name, hit))
    return edges


def read_map(path):
    m = {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if len(line) == 2:
            m[line[0]] = line[1]
    return m


def scc(nodes, succ):
    """Tarjan; returns components with more than one node (or a self loop)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
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
            if len(comp) > 1 or v in succ.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def module(path):
    base, ext = os.path.splitext(path)
    if base.endswith("_int"):
        base = base[:-4]
    return base


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default=".")
    ap.add_argument("-I", dest="ipaths", action="append")
    ap.add_argument("--map")
    ap.add_argument("--edges", action="store_true")
    a = ap.parse_args()
    files = tracked(a.repo)
    ipaths = a.ipaths or makefile_ipaths(a.repo)
    edges = resolve_edges(a.repo, files, ipaths)
    ren = read_map(a.map) if a.map else {}
    rn = lambda p: ren.get(p, p)

    print(f"include paths: {' '.join('-I' + p for p in ipaths)}")
    unresolved = [e for e in edges if e[3] is None]
    edges = [(rn(f), n, h, rn(t)) for f, n, h, t in edges if t]
    print(f"{len(edges)} quote includes resolved, {len(unresolved)} unresolved")
    for f, n, h, _ in unresolved:
        print(f"  unresolved: {f}:{n} \"{h}\"")

    if a.edges:
        print("\n## file edges\n")
        for f, n, h, t in sorted(edges):
            print(f"- {f}:{n} -> {t}")

    # directories
    dedges = defaultdict(list)
    for f, n, h, t in edges:
        df, dt = os.path.dirname(f) or ".", os.path.dirname(t) or "."
        if df != dt:
            dedges[(df, dt)].append(f"{f}:{n} \"{h}\"")
    print("\n## directory edges (from -> to: count, where)\n")
    print("| from | to | includes | where |")
    print("|---|---|---:|---|")
    for (df, dt), where in sorted(dedges.items()):
        print(f"| {df}/ | {dt}/ | {len(where)} | {'; '.join(where)} |")
    dsucc = defaultdict(set)
    for df, dt in dedges:
        dsucc[df].add(dt)
    dnodes = set(d for e in dedges for d in e)
    dcyc = scc(dnodes, dsucc)
    print("\n## directory cycles (strongly connected components)\n")
    if not dcyc:
        print("none")
    for comp in dcyc:
        print("- " + " <-> ".join(c + "/" for c in comp))

    # modules: x.c, x.h and x_int.h are one module
    msucc = defaultdict(set)
    mwhere = defaultdict(list)
    for f, n, h, t in edges:
        mf, mt = module(f), module(t)
        if mf != mt:
            msucc[mf].add(mt)
            mwhere[(mf, mt)].append(f"{f}:{n}")
    mnodes = set(module(rn(f)) for f in files)
    mcyc = scc(mnodes, msucc)
    print("\n## module cycles (x.c + x.h + x_int.h as one node)\n")
    if not mcyc:
        print("none")
    for comp in mcyc:
        print("- {" + ", ".join(comp) + "}")
        cs = set(comp)
        for (mf, mt), where in sorted(mwhere.items()):
            if mf in cs and mt in cs:
                print(f"  - {mf} -> {mt}: {', '.join(where)}")


if __name__ == "__main__":
    main()
