#!/bin/sh
# The mechanical part of issue 12, one commit per layer, each building:
#   0  Makefile: LIB_SRC over the layer directories, a flat -I list
#   1-7 git mv of whole files into their layer (no content change)
#   8  includes written with their path from the root, -I. only
# Usage: restructure-moves.sh CLONE [--build]   (CLONE: a scratch clone;
# --build runs make after every commit and stops at the first failure).
# Splits of files (frontend.c, profileme.c, ...) come after, by hand.
set -eu
cd "$1"
build=${2:-}
check() {
	if [ "$build" = --build ]; then
		make -j"$(nproc)" >/dev/null 2>build.err ||
			{ echo "build failed after: $1" >&2; cat build.err >&2; exit 1; }
		echo "builds: $1"
	fi
}
commit() { git commit -qam "$1"; check "$1"; }

# 0: the Makefile knows the layer directories; the old ones still work.
python3 - <<'PY'
import re
m = open("Makefile").read()
m = m.replace("CPPFLAGS_ALL := -I. -Icommon -Isymbolize -Iformats ",
    "# Transitional (issue 12): every layer directory on the path, so files\n"
    "# move without touching their includes.\n"
    "CPPFLAGS_ALL := -I. -Icommon -Icommon/util -Icommon/stats -Icommon/profile \\\n"
    "\t-Icommon/collect -Icommon/engine -Icommon/run -Icommon/cli \\\n"
    "\t-Isymbolize -Iformats -Iformats/report ")
m = m.replace("LIB_SRC := $(wildcard common/*.c symbolize/*.c formats/*.c)",
    "# The library's layers, bottom to top (docs/layers.txt).\n"
    "LIB_DIRS := common/util common/stats common/profile symbolize \\\n"
    "\tcommon/collect common/engine formats/report formats common/run \\\n"
    "\tcommon/cli\n"
    "LIB_SRC := $(wildcard common/*.c $(LIB_DIRS:%=%/*.c))")
open("Makefile", "w").write(m)
PY
commit "Makefile: the library's sources and include path by layer directory"

# Move, and rewrite the path where docs and comments name it (text files).
mv1() {	# OLD NEW
	mkdir -p "$(dirname "$2")"
	git mv "$1" "$2"
	git grep -lIzF "$1" -- . |
		xargs -0r sed -i "s|$(printf %s "$1" | sed 's/\./\\./g')|$2|g"
}
mv_to() {	# DIR FILE...
	d=$1; shift
	for f; do mv1 "$f" "$d/$(basename "$f")"; done
}
mv_to common/util common/util/array.c common/util/array.h common/util/error.c \
	common/util/regfile.c common/util/regfile.h \
	common/util/error.h common/util/parse.c common/util/parse.h common/util/outfile.c \
	common/util/outfile.h
commit "Move array, error, regfile, parse, outfile to common/util/"
mv_to common/stats common/stats/stats.c common/stats/stats.h common/stats/stats_models.c
commit "Move the statistics table and resolution to common/stats/"
mv_to common/profile common/profile/profile.c common/profile/profile.h
commit "Move the profile file to common/profile/"
mv_to common/collect common/collect/collect.c common/collect/collect.h
commit "Move the collector to common/collect/"
mv_to common/engine common/engine/perf.c common/engine/perf.h common/engine/profileme.c \
	common/engine/profileme.h common/engine/sim.c common/engine/sim.h common/engine/launch.c \
	common/engine/launch.h common/engine/privilege.c common/engine/privilege.h
commit "Move the engines (perf, profile-me, sim, launch, privilege) to common/engine/"
mv1 common/run/plan.c common/run/plan.c
mv1 common/run/simrun.c common/run/simrun.c
mv1 common/run/frontend.c common/run/frontend.c
mv1 common/run/frontend_int.h common/run/frontend_int.h
mv1 common/cli/frontend.h common/cli/frontend.h
mv1 common/cli/options.c common/cli/options.c
commit "Move the run (plan, perf and sim runs) to common/run/, options to common/cli/"
mv1 formats/report/report.h formats/report/report.h
mv1 formats/report/model.c formats/report/model.c
commit "Move the report model to formats/report/"

# 8: every include names its file from the root; -I. only.
python3 - <<'PY'
import os, re, subprocess
files = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True,
                       text=True, check=True).stdout.split()
have = set(files)
ipaths = [".", "common", "common/util", "common/stats", "common/profile",
          "common/collect", "common/engine", "common/run", "common/cli",
          "symbolize", "formats", "formats/report"]
inc = re.compile(r'^(\s*#\s*include\s+)"([^"]+)"')
for f in files:
    if f.startswith("tests/programs/"):
        continue
    src = open(f).read().split("\n")
    out = []
    for line in src:
        m = inc.match(line)
        if m:
            for d in [os.path.dirname(f)] + ipaths:
                p = os.path.normpath(os.path.join(d, m.group(2)))
                if p in have:
                    # same directory: stays bare; else the path from the root
                    name = (os.path.basename(p)
                            if os.path.dirname(p) == os.path.dirname(f) else p)
                    line = f'{m.group(1)}"{name}"' + line[m.end():]
                    break
        out.append(line)
    open(f, "w").write("\n".join(out))
m = open("Makefile").read()
m = re.sub(r"# Transitional \(issue 12\).*?\n(CPPFLAGS_ALL := )-I\..*?-Iformats/report ",
           r"\1-I. ", m, flags=re.S)
m = m.replace("LIB_SRC := $(wildcard common/*.c $(LIB_DIRS:%=%/*.c))",
              "LIB_SRC := $(wildcard $(LIB_DIRS:%=%/*.c))")
open("Makefile", "w").write(m)
PY
git add -A
commit "Includes name their file from the root (\"common/stats/stats.h\"); -I. only"
