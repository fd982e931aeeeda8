#!/usr/bin/env python3
"""Longest C functions, for code in kernel/git style: a function body opens
with '{' alone at column 0 and closes with the next '}' at column 0.

Usage: funclen.py [-n N] [--all] [REPO]
  REPO   a git checkout (default .); files are those git tracks.
  -n N   how many to print (default 10).
  --all  include tests/ and fuzz/ (default: the product code only).
Prints a markdown table: rank, function, file:first-line, lines, where
"lines" counts from the line of the opening '{' to the closing '}'
inclusive (the body), and "with signature" from the first line of the
declaration (return type) to the closing '}'.
"""
import argparse
import re
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("repo", nargs="?", default=".")
ap.add_argument("-n", type=int, default=10)
ap.add_argument("--all", action="store_true")
args = ap.parse_args()

files = subprocess.run(["git", "-C", args.repo, "ls-files", "--", "*.c"],
                       check=True, capture_output=True, text=True).stdout.split()
if not args.all:
    files = [f for f in files if not f.startswith(("tests/", "fuzz/"))]

IDENT_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*\(")


def signature_start(lines, i):
    """Index of the first line of the declaration whose body opens at i."""
    j = i - 1
    while j >= 0:
        s = lines[j].rstrip()
        if (not s or s.endswith(";") or s.endswith("}") or s.startswith("#")
                or s.endswith("*/")):
            break
        j -= 1
    return j + 1


funcs = []
for f in files:
    with open(f"{args.repo}/{f}", encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "{":
            start = signature_start(lines, i)
            sig = " ".join(l.strip() for l in lines[start:i])
            m = IDENT_BEFORE_PAREN.search(sig)
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            if m:
                funcs.append((end - i + 1, end - start + 1, m.group(1), f,
                              start + 1))
            i = end
        i += 1

funcs.sort(key=lambda t: (-t[0], t[3], t[4]))
print(f"{len(funcs)} functions in {len(files)} files; "
      f"{sum(1 for t in funcs if t[0] > 100)} longer than 100 lines, "
      f"{sum(1 for t in funcs if t[0] > 50)} longer than 50.\n")
print("| # | function | file:line | lines ({ to }) | with signature |")
print("|---:|---|---|---:|---:|")
for k, (body, whole, name, f, line) in enumerate(funcs[:args.n], 1):
    print(f"| {k} | `{name}` | {f}:{line} | {body} | {whole} |")
