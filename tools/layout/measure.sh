#!/bin/sh
# All the figures of metrics-before.md (and, after the restructure, of the
# closing note), for one checkout.
# Usage: measure.sh REPO OUTDIR
#   Builds REPO's objects into OUTDIR/build (for the link graph; REPO's own
#   build/ is not touched) and writes OUTDIR/{loc,funclen,incgraph,
#   linkgraph,globals}.md.
set -eu
repo=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
git -C "$repo" rev-parse HEAD >"$out/commit"
make -s -C "$repo" -j"$(nproc)" BUILD="$out/build" \
	"$out/build/uprofile" "$out/build/kprofile" >/dev/null
"$here/loc.py" "$repo" >"$out/loc.md"
"$here/funclen.py" -n 10 "$repo" >"$out/funclen.md"
"$here/incgraph.py" "$repo" >"$out/incgraph.md"
(cd "$repo" && "$here/linkgraph.py" --build "$out/build" --files .) \
	>"$out/linkgraph.md"
"$here/globals.py" "$repo" >"$out/globals.md"
echo "measured $(cat "$out/commit") into $out"
