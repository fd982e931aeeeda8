#!/usr/bin/env python3
"""Lines per directory, .c and .h counted separately, over the files git
tracks (physical lines as wc -l counts them, and non-blank lines).

Usage: loc.py [REPO]          (default: the current directory)
Prints a markdown table: one row per directory holding C files, then the
top-level directories rolled up, then the total.
"""
import subprocess
import sys
from collections import defaultdict

repo = sys.argv[1] if len(sys.argv) > 1 else "."
files = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--", "*.c", "*.h"],
                       check=True, capture_output=True, text=True).stdout.split("\0")
files = [f for f in files if f]

per_dir = defaultdict(lambda: defaultdict(int))
per_top = defaultdict(lambda: defaultdict(int))
total = defaultdict(int)
for f in files:
    with open(f"{repo}/{f}", encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n, nb = len(lines), sum(1 for l in lines if l.strip())
    ext = "c" if f.endswith(".c") else "h"
    d = f.rsplit("/", 1)[0] if "/" in f else "."
    top = f.split("/", 1)[0] if "/" in f else "."
    for acc in (per_dir[d], per_top[top], total):
        acc[ext] += n
        acc[ext + "f"] += 1
        acc[ext + "nb"] += nb


def row(name, a):
    return (f"| {name} | {a['c']} ({a['cf']}) | {a['h']} ({a['hf']}) | "
            f"{a['c'] + a['h']} | {a['cnb'] + a['hnb']} |")


print("| directory | .c lines (files) | .h lines (files) | total | non-blank |")
print("|---|---:|---:|---:|---:|")
for d in sorted(per_dir):
    print(row(d + "/", per_dir[d]))
if len(per_top) != len(per_dir):
    for d in sorted(per_top):
        if d in per_dir and not any(k.startswith(d + "/") for k in per_dir):
            continue
        print(row(f"**{d}/ (all)**", per_top[d]))
print(row("**all**", total))
lib = defaultdict(int)
for d in ("common", "symbolize", "formats"):
    for k, v in per_top[d].items():
        lib[k] += v
print(row("**library** (common+symbolize+formats)", lib))
prod = defaultdict(int)
for d, a in per_top.items():
    if d in ("common", "symbolize", "formats", "uprofile", "kprofile"):
        for k, v in a.items():
            prod[k] += v
print(row("**product** (library + uprofile/ + kprofile/)", prod))
