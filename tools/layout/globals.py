#!/usr/bin/env python3
"""Mutable static-storage variables: file-scope variables (static or
extern) and function-level `static` variables that are not const, found
by the compiler rather than by reading the text: each source is compiled
at -O0 (so GCC does not promote never-written statics to read-only) and
every object symbol in a writable data section (.data*, .bss*, .tdata,
.tbss, common; not .rodata, not .data.rel.ro*) is listed with its
declaration line (nm -l, from the debug information).

Usage: globals.py [--all] [REPO]
  REPO   a git checkout (default .); its Makefile gives the -I and -D flags.
  --all  include tests/tools/ and fuzz/ (test and fuzz harnesses; default:
         the product code only; tests/programs/ are workloads, never listed).
Also prints how often g_tool is read (occurrences of the identifier other
than its definition, extern declarations and assignments).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from incgraph import makefile_ipaths  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("repo", nargs="?", default=".")
ap.add_argument("--all", action="store_true")
a = ap.parse_args()
repo = os.path.abspath(a.repo)
files = subprocess.run(["git", "-C", repo, "ls-files", "--", "*.c"],
                       check=True, capture_output=True, text=True).stdout.split()
files = [f for f in files if not f.startswith("tests/programs/")
         and (a.all or not f.startswith(("tests/", "fuzz/")))]
flags = ["-O0", "-g", "-D_GNU_SOURCE", '-DPROF_VERSION="0"', "-c"]
flags += ["-I" + os.path.join(repo, p) for p in makefile_ipaths(repo)]

WRITABLE = re.compile(r"^(\.data(?!\.rel\.ro)|\.bss|\.tdata|\.tbss|\*COM\*)")


def enclosing_function(lines, n):
    """Name of the function whose body holds line n (1-based), or None."""
    i = n - 1
    while i >= 0:
        if lines[i].startswith("}"):
            return None
        if lines[i].rstrip() == "{":
            j = i - 1
            sig = []
            while j >= 0 and lines[j].strip() and not lines[j].rstrip().endswith((";", "}", "*/")):
                sig.insert(0, lines[j].strip())
                j -= 1
            m = re.search(r"([A-Za-z_]\w*)\s*\(", " ".join(sig))
            return m.group(1) if m else None
        i -= 1
    return None


rows = []
with tempfile.TemporaryDirectory() as tmp:
    for f in files:
        obj = os.path.join(tmp, f.replace("/", "_") + ".o")
        subprocess.run(["cc"] + flags + ["-o", obj, os.path.join(repo, f)],
                       check=True, cwd=repo)
        sect = {}
        for line in subprocess.run(["objdump", "-t", obj], check=True,
                                   capture_output=True, text=True).stdout.splitlines():
            p = line.split()
            # value flags... section size name ; object symbols have 'O'
            if " O " in line and len(p) >= 5:
                sect[p[-1]] = (p[-3], p[1])  # section, l/g
        src = open(os.path.join(repo, f), encoding="utf-8",
                   errors="replace").read().split("\n")
        for line in subprocess.run(["nm", "-l", "--defined-only", obj],
                                   check=True, capture_output=True,
                                   text=True).stdout.splitlines():
            p = line.split()
            if len(p) < 3 or p[1] not in "bBdDvVCG":
                continue
            name = p[2]
            sec, bind = sect.get(name, ("?", "?"))
            if not WRITABLE.match(sec):
                continue
            ln = int(p[3].rsplit(":", 1)[1]) if len(p) > 3 and ":" in p[3] else 0
            plain = name.split(".")[0]
            func = enclosing_function(src, ln) if ln else None
            kind = ("function static" if func else
                    "file static" if bind == "l" else "extern")
            decl = src[ln - 1].strip() if ln else ""
            where = f"{func}()" if func else ""
            rows.append((f, ln, plain, kind, where, sec, decl))

rows.sort()
print(f"{len(rows)} mutable static-storage variables in "
      f"{len(set(r[0] for r in rows))} files "
      f"({sum(r[3] == 'extern' for r in rows)} extern, "
      f"{sum(r[3] == 'file static' for r in rows)} file static, "
      f"{sum(r[3] == 'function static' for r in rows)} function static)\n")
print("| file:line | variable | kind | in | declaration |")
print("|---|---|---|---|---|")
for f, ln, name, kind, where, sec, decl in rows:
    decl = decl.replace("|", "\\|")
    print(f"| {f}:{ln} | `{name}` | {kind} | {where} | `{decl}` |")

# g_tool reads
tok = re.compile(r"\bg_tool\b")
reads, per = 0, {}
for f in subprocess.run(["git", "-C", repo, "ls-files", "--", "*.c", "*.h"],
                        check=True, capture_output=True, text=True).stdout.split():
    for line in open(os.path.join(repo, f), encoding="utf-8", errors="replace"):
        s = line.strip()
        n = len(tok.findall(line))
        if not n:
            continue
        if re.match(r"^(extern\s+)?const\s+struct\s+fe_tool\s*\*\s*g_tool\s*;", s) \
                or re.search(r"\bg_tool\s*=[^=]", s):
            n -= 1
        reads += n
        per[f] = per.get(f, 0) + n
print(f"\ng_tool reads: {reads} (" +
      ", ".join(f"{f} {n}" for f, n in sorted(per.items()) if n) + ")")
