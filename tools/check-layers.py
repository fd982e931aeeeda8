#!/usr/bin/env python3
"""Check the include graph, and the calls and exported names of a build,
against the declared layers.

Usage: check-layers.py [--layers FILE] [--map FILE] [-I DIR ...]
                       [--objects DIR] [--doc FILE] [REPO]
  REPO          the tree to check (default .): the files git tracks, or,
                outside a git checkout, every *.c and *.h below REPO.
  --layers FILE the layers (default REPO/docs/layers.txt), format below.
  --map FILE    rename files virtually ("OLD NEW" per line) before the
                check: what a planned move would break, without moving.
  -I DIR        include path, in order (default: the -I flags of the
                Makefile's CPPFLAGS_ALL, else just -I.).
  --objects DIR also check calls: DIR holds the objects of a build, one
                per source (build/obj/X.o for X.c); a symbol an object
                uses that another object defines is an edge like an
                include (catches a private header that declares functions
                of several layers); and every global symbol an object
                defines must begin with a prefix of its layer, for the
                layers that declare prefixes; and no two files of the
                library (the layers that declare prefixes) call each
                other, directly or around a circle (a file that calls
                one that calls it back is one job in two files, or two
                jobs tangled).  Needs nm.
  --doc FILE    also check that FILE (docs/architecture.md) names every
                .c file of the library in its table of layers: the table
                under the heading "## The layers", one row per layer,
                its first cell the layer's name; a file is named in its
                layer's row as `NAME.c` in backquotes (its path below the
                layer's directory).

Layers file: one layer per line, from the bottom up:

    NAME: PATH... [-> LAYER...]

A file belongs to the layer with the longest PATH that is a prefix of its
path (a directory "common/util/" or one file "formats/report/report.h").  A file
may include files of its own layer and of the LAYERs listed after "->",
which must be declared on earlier lines (so the layers cannot form a
cycle); "-> *" allows every layer declared earlier.  '#' starts a comment.

A second kind of line declares the prefixes of a layer's exported names:

    prefixes NAME: PREFIX...

for a layer declared on an earlier line, at most one such line per layer.
With --objects, a global symbol defined by an object of that layer must
begin with one of its PREFIXes; the symbols of a layer without a prefixes
line (programs: tools, tests) are not checked.  Two layers may share a
prefix (the report model and its writers both export report_*).

Each quote include "x.h" is resolved as the compiler does (the including
file's directory, then each -I directory).  Fails (status 1) with one line
per problem, each naming the file, line and include:
  - an include of a layer the file's layer may not include;
  - an include that resolves to no file of the tree;
  - a file in no layer;
  - with --objects, a call to a layer the file's layer may not include,
    and an exported name without a prefix of its layer (named with the
    line that defines it, when a line at column 0 of the source does);
  - with --objects, a circle of calls between files of the library:
    each file of it, and each call of the circle with its symbols;
  - with --doc, a file of the library its layer's row does not name,
    and a library layer with no row.
Status 2: the layers file is malformed.  Status 0: prints "layers: ok".
"""
import argparse
import os
import re
import subprocess
import sys

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PREFIXES = re.compile(r"^prefixes\s+([\w.-]+)\s*:\s*(.*)$")
IDENT = re.compile(r"^[A-Za-z_]\w*$")
# nm's letters for symbols an object defines with global binding (lower
# case letters are local, but for GNU's unique globals).
GLOBAL_DEFS = set("BCDGRSTVWu")


def die(msg):
    print(f"layers: {msg}", file=sys.stderr)
    sys.exit(2)


def read_layers(path):
    layers, order, owner, prefixes = {}, [], {}, {}
    try:
        lines = open(path).read().split("\n")
    except OSError as e:
        die(f"cannot read '{path}': {e.strerror}")
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = PREFIXES.match(line)
        if m:
            name, pfx = m.group(1), m.group(2).split()
            if not pfx or not all(IDENT.match(p) for p in pfx):
                die(f"{path}:{n}: expected 'prefixes NAME: PREFIX...', "
                    f"each PREFIX the start of a C name")
            if name not in layers:
                die(f"{path}:{n}: prefixes of '{name}', which is no layer "
                    f"declared above")
            if name in prefixes:
                die(f"{path}:{n}: prefixes of '{name}' declared twice")
            prefixes[name] = pfx
            continue
        m = re.match(r"^([\w.-]+)\s*:\s*([^>]*?)\s*(?:->\s*(.*))?$", line)
        if not m or not m.group(2):
            die(f"{path}:{n}: expected 'NAME: PATH... [-> LAYER...]'")
        name, paths, deps = m.group(1), m.group(2).split(), (m.group(3) or "").split()
        if name in layers:
            die(f"{path}:{n}: layer '{name}' declared twice")
        if deps == ["*"]:
            deps = list(order)
        for d in deps:
            if d not in layers:
                die(f"{path}:{n}: layer '{name}' may include '{d}', which "
                    f"is not declared above it (layers go bottom to top)")
        for p in paths:
            if p in owner:
                die(f"{path}:{n}: '{p}' is already in layer '{owner[p]}'")
            owner[p] = name
        layers[name] = set(deps)
        order.append(name)
    return layers, order, owner, prefixes


def layer_of(path, owner):
    best = None
    for p, name in owner.items():
        if path == p or (p.endswith("/") and path.startswith(p)) or \
                path.startswith(p.rstrip("/") + "/"):
            if best is None or len(p) > len(best[0]):
                best = (p, name)
    return best[1] if best else None


def tree_files(repo):
    try:
        # The work tree's files, tracked or new (not ignored): a file
        # moved before it is committed is checked where it is now.
        out = subprocess.run(["git", "-C", repo, "ls-files", "--cached",
                              "--others", "--exclude-standard", "--",
                              "*.c", "*.h"],
                             check=True, capture_output=True, text=True)
        if os.path.samefile(subprocess.run(
                ["git", "-C", repo, "rev-parse", "--show-toplevel"],
                check=True, capture_output=True, text=True).stdout.strip(), repo):
            return sorted(set(f for f in out.stdout.split()
                              if os.path.exists(os.path.join(repo, f))))
    except (subprocess.CalledProcessError, FileNotFoundError):
        pass
    files = []
    for dp, dns, fns in os.walk(repo):
        dns[:] = [d for d in dns if not d.startswith(".") and
                  not (dp == repo and d.startswith("build"))]
        for f in fns:
            if f.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(dp, f), repo))
    return sorted(files)


def makefile_ipaths(repo):
    try:
        text = open(os.path.join(repo, "Makefile")).read().replace("\\\n", " ")
    except OSError:
        return ["."]
    m = re.search(r"^CPPFLAGS_ALL\s*:?=(.*)$", text, re.M)
    return re.findall(r"-I(\S+)", m.group(1)) if m else ["."]


def def_line(repo, src, sym, cache):
    """The line of src that defines sym: the first line at column 0 that
    names it and is no static, extern or typedef (the file's own style
    puts a definition's name on a line that starts at column 0).  None
    when there is no such line."""
    if src not in cache:
        try:
            with open(os.path.join(repo, src), encoding="utf-8",
                      errors="replace") as fh:
                cache[src] = fh.read().split("\n")
        except OSError:
            cache[src] = []
    pat = re.compile(r"^(?!static\b|extern\b|typedef\b)(?=[A-Za-z_]).*?\b" +
                     re.escape(sym) + r"\s*(?:[(\[=;]|$)")
    for n, line in enumerate(cache[src], 1):
        if pat.match(line):
            return n
    return None


def check_objects(objroot, repo, ren, owner, layers, prefixes):
    defs, uses, exports = {}, {}, []
    # An object whose source is gone (a file moved or deleted since the
    # build) is left out: it is no part of the tree being checked.
    objs = sorted(os.path.join(dp, fn) for dp, _, fns in os.walk(objroot)
                  for fn in fns if fn.endswith(".o") and os.path.exists(
                      os.path.join(repo, os.path.relpath(
                          os.path.join(dp, fn), objroot)[:-2] + ".c")))
    if not objs:
        return [f"no objects under '{objroot}'"]
    out = subprocess.run(["nm", "-A"] + objs, check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        o, _, rest = line.partition(".o:")
        orig = os.path.relpath(o + ".o", objroot)[:-2] + ".c"
        src = ren.get(orig, orig)
        f = rest.split()
        if len(f) == 2 and f[0] == "U":
            uses.setdefault(src, set()).add(f[1])
        elif len(f) == 3 and f[1] in GLOBAL_DEFS:
            defs[f[2]] = src
            # Names with two leading underscores are the compiler's
            # (ASan's __odr_asan.NAME), not ours to prefix.
            if not f[2].startswith("__"):
                exports.append((orig, src, f[2]))
    bad = {}
    for src, syms in uses.items():
        fl = layer_of(src, owner)
        for s in syms:
            dst = defs.get(s)
            tl = layer_of(dst, owner) if dst else None
            if fl and tl and tl != fl and tl not in layers[fl]:
                bad.setdefault((src, dst, fl, tl), []).append(s)
    problems = [f"{src}: uses {', '.join(sorted(syms))} of {dst}: layer "
                f"'{fl}' may not use layer '{tl}'"
                for (src, dst, fl, tl), syms in sorted(bad.items())]
    unprefixed, cache = [], {}
    for orig, src, sym in exports:
        fl = layer_of(src, owner)
        if fl not in prefixes or sym.startswith(tuple(prefixes[fl])):
            continue
        n = def_line(repo, orig, sym, cache)
        unprefixed.append((src, n or 0, sym, fl))
    problems += [f"{src}{f':{n}' if n else ''}: exports '{sym}' without a "
                 f"prefix of layer '{fl}' ({' '.join(prefixes[fl])})"
                 for src, n, sym, fl in sorted(unprefixed)]
    return problems + call_cycles(uses, exports, owner, prefixes)


def sccs(nodes, succ):
    """Tarjan's strongly connected components with more than one node,
    each sorted, without recursion (a long chain of calls is no error)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
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
    return sorted(out)


def call_cycles(uses, exports, owner, prefixes):
    """The circles of calls between files of the library (what
    tools/layout/linkgraph.py shows): one problem per strongly connected
    component, naming its files and each call between them."""
    lib = lambda f: layer_of(f, owner) in prefixes
    # Only the library's definitions: a test program may define a name
    # of the library again (a stub), and is no part of it.
    defs = {sym: src for _, src, sym in exports if lib(src)}
    succ, syms = {}, {}
    for src, used in uses.items():
        if not lib(src):
            continue
        for s in used:
            dst = defs.get(s)
            if dst and dst != src:
                succ.setdefault(src, set()).add(dst)
                syms.setdefault((src, dst), set()).add(s)
    problems = []
    for comp in sccs(set(succ), succ):
        calls = "; ".join(f"{f} -> {t}: {', '.join(sorted(syms[(f, t)]))}"
                          for f in comp for t in comp if (f, t) in syms)
        problems.append(f"{', '.join(comp)}: call each other ({calls}): "
                        f"move what both need into a file below them")
    return problems


def doc_rows(path):
    """The rows of the table under "## The layers" in path: {first cell:
    (line, the row's text)}."""
    rows, inside = {}, False
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as e:
        die(f"cannot read '{path}': {e.strerror}")
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            inside = line.startswith("## The layers")
        elif inside and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] and not set(cells[0]) <= set("-: "):
                rows.setdefault(cells[0], (n, line))
    return rows


def check_doc(path, files, ren, owner, prefixes):
    """Every .c file of the library named in its layer's row of path."""
    rows, problems, dirs = doc_rows(path), [], {}
    for p, name in owner.items():
        dirs.setdefault(name, []).append(p)
    for name in prefixes:
        if name not in rows:
            problems.append(f"{path}: no row for layer '{name}' in the "
                            f"table of layers")
    for f in files:
        f = ren.get(f, f)
        fl = layer_of(f, owner)
        if not f.endswith(".c") or fl not in prefixes or fl not in rows:
            continue
        # Its path below its layer's directory (the longest that holds it).
        base = max((p for p in dirs[fl] if f.startswith(p.rstrip("/") + "/")),
                   key=len, default=os.path.dirname(f) + "/")
        rel = f[len(base.rstrip("/")) + 1:]
        if f"`{rel}`" not in rows[fl][1]:
            problems.append(f"{f}: not named in {path}:{rows[fl][0]}, the "
                            f"row of layer '{fl}' (say what it holds, "
                            f"with `{rel}`)")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default=".")
    ap.add_argument("--layers")
    ap.add_argument("--map")
    ap.add_argument("-I", dest="ipaths", action="append")
    ap.add_argument("--objects")
    ap.add_argument("--doc")
    a = ap.parse_args()
    repo = a.repo
    layers, order, owner, prefixes = read_layers(a.layers or
                                       os.path.join(repo, "docs/layers.txt"))
    ren = {}
    if a.map:
        for line in open(a.map):
            f = line.split("#", 1)[0].split()
            if len(f) == 2:
                ren[f[0]] = f[1]
    files = tree_files(repo)
    have = set(files)
    ipaths = a.ipaths or makefile_ipaths(repo)
    problems = []
    for f in files:
        fl = layer_of(ren.get(f, f), owner)
        if fl is None:
            problems.append(f"{ren.get(f, f)}: in no layer (add its "
                            f"directory to the layers file)")
        with open(os.path.join(repo, f), encoding="utf-8",
                  errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INC.match(line)
                if not m:
                    continue
                name = m.group(1)
                hit = None
                for d in [os.path.dirname(f)] + ipaths:
                    p = os.path.normpath(os.path.join(d, name))
                    if p in have:
                        hit = p
                        break
                src = ren.get(f, f)
                if hit is None:
                    problems.append(f"{src}:{n}: includes \"{name}\", which "
                                    f"is no file of the tree "
                                    f"(-I{' -I'.join(ipaths)})")
                    continue
                dst = ren.get(hit, hit)
                tl = layer_of(dst, owner)
                if fl is None or tl is None or tl == fl or tl in layers[fl]:
                    continue
                allowed = ", ".join(x for x in order if x in layers[fl]) or "nothing"
                shown = f" ({dst})" if dst != name else ""
                problems.append(
                    f"{src}:{n}: includes \"{name}\"{shown}: layer '{fl}' "
                    f"may not include layer '{tl}' ('{fl}' may include: "
                    f"{allowed})")
    if a.objects:
        problems += check_objects(a.objects, repo, ren, owner, layers,
                                  prefixes)
    if a.doc:
        problems += check_doc(a.doc, files, ren, owner, prefixes)
    for p in problems:
        print(f"layers: {p}")
    if problems:
        print(f"layers: {len(problems)} problem(s); the layers are "
              f"declared in {a.layers or 'docs/layers.txt'}")
        return 1
    print(f"layers: ok ({len(files)} files, {len(order)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
