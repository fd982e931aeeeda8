#!/usr/bin/env python3
"""Link-level dependency graph: which object file uses a symbol (function
or variable) that another object file defines, from `nm` over a built
tree.  Shows the call cycles that the include graph cannot see (files
sharing one private header, e.g. common/run/frontend_int.h, symbolize_int.h).

Usage: linkgraph.py [--map FILE] [--build DIR] [--files] [REPO]
  REPO         a built checkout (default .), objects in DIR/obj (default
               build/obj, as `make` leaves them).
  --map FILE   virtual renames "OLD NEW" of source paths, as incgraph.py.
Prints the directory edges with the symbols they use, and the strongly
connected components between files and between directories.
"""
import argparse
import os
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from incgraph import read_map, scc  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("repo", nargs="?", default=".")
ap.add_argument("--build", default="build")
ap.add_argument("--map")
ap.add_argument("--files", action="store_true",
                help="also print every file edge with its symbols")
a = ap.parse_args()
ren = read_map(a.map) if a.map else {}
objroot = os.path.join(a.repo, a.build, "obj")

defs, undefs = {}, defaultdict(set)
for dp, _, fs in os.walk(objroot):
    for f in fs:
        if not f.endswith(".o"):
            continue
        o = os.path.join(dp, f)
        src = os.path.relpath(o, objroot)[:-2] + ".c"
        if src.startswith("tests/"):
            continue
        src = ren.get(src, src)
        out = subprocess.run(["nm", o], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefs[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCGSV":
                defs[parts[2]] = src

fsucc = defaultdict(set)
fsyms = defaultdict(set)
for src, syms in undefs.items():
    for s in syms:
        d = defs.get(s)
        if d and d != src:
            fsucc[src].add(d)
            fsyms[(src, d)].add(s)

print(f"{len(set(defs.values()) | set(undefs))} objects, "
      f"{sum(len(v) for v in fsucc.values())} file-to-file edges")
dsyms = defaultdict(set)
for (f, t), syms in fsyms.items():
    df, dt = os.path.dirname(f), os.path.dirname(t)
    if df != dt:
        dsyms[(df, dt)] |= {f"{os.path.basename(f)}->{os.path.basename(t)}:{s}"
                            for s in syms}
if a.files:
    print("\n## file edges\n")
    for (f, t), syms in sorted(fsyms.items()):
        print(f"- {f} -> {t}: {', '.join(sorted(syms))}")
print("\n## directory edges (symbols used across directories)\n")
for (df, dt), syms in sorted(dsyms.items()):
    print(f"- {df}/ -> {dt}/ ({len(syms)}): {', '.join(sorted(syms))}")
dsucc = defaultdict(set)
for df, dt in dsyms:
    dsucc[df].add(dt)
print("\n## directory cycles\n")
for comp in scc(set(d for e in dsyms for d in e), dsucc) or []:
    print("- " + " <-> ".join(c + "/" for c in comp))
print("\n## file cycles (strongly connected components), with the symbols\n")
comps = scc(set(fsucc) | {t for v in fsucc.values() for t in v}, fsucc)
if not comps:
    print("none")
for comp in comps:
    cs = set(comp)
    print("- {" + ", ".join(comp) + "}")
    for (f, t), syms in sorted(fsyms.items()):
        if f in cs and t in cs:
            print(f"  - {f} -> {t}: {', '.join(sorted(syms))}")
