#!/bin/bash
# Are the basic blocks of sym_code() (symbolize/blocks.c) right?  The
# oracle is valgrind's callgrind, which counts every executed instruction
# exactly: every instruction of a basic block runs as often as the others.
#
# Usage: bench/blocks-vs-callgrind.sh [-k DIR] [BLOCKCHECK-OPTION...] -- \
#            COMMAND [ARG...]
#
# Runs COMMAND under callgrind (--dump-instr=yes: a count per instruction;
# --skip-plt=no: PLT stubs counted as their own code, not added to the
# caller's call instruction; -v -v -v: the log names every object with its
# svma/avma, from which the load bias is known), then build/tests/blockcheck
# on the result.  blockcheck prints, per object and in total, the blocks
# checked, the blocks passing (all instructions with the same count), the
# share passing weighted by executed instructions, and the heaviest failing
# blocks (see tests/tools/blockcheck.c).  Options before "--" go to
# blockcheck: --min PCT (exit 1 below), --object NAME, --list N.
#
# The callgrind output and the log are written to a temporary directory,
# removed afterwards unless -k DIR names a directory to keep them in.
# COMMAND's stdout is discarded (gzip -c FILE); its stderr stays.
# Exit status: blockcheck's (0, 1 below --min, 2 bad input), or 125 when
# valgrind is missing or COMMAND fails under it.
set -euo pipefail
# COMMAND runs in the caller's directory; the tools come from the checkout.
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$root/$BUILD
keep=
if [[ ${1:-} == -k ]]; then
	keep=$2
	shift 2
fi
opts=()
while [[ $# -gt 0 && $1 != -- ]]; do
	opts+=("$1")
	shift
done
[[ ${1:-} == -- ]] || {
	echo "usage: $0 [-k DIR] [BLOCKCHECK-OPTION...] -- COMMAND [ARG...]" >&2
	exit 2
}
shift
[[ $# -gt 0 ]] || {
	echo "blocks-vs-callgrind: no command given" >&2
	exit 2
}
command -v valgrind >/dev/null || {
	echo "blocks-vs-callgrind: valgrind is not installed" >&2
	exit 125
}
[[ -x $BUILD/tests/blockcheck ]] || {
	echo "blocks-vs-callgrind: '$BUILD/tests/blockcheck' missing; run make" >&2
	exit 125
}
if [[ -n $keep ]]; then
	mkdir -p "$keep"
	dir=$keep
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
# Only the first process is checked: children would overwrite the file.
if ! valgrind --tool=callgrind --dump-instr=yes --skip-plt=no \
	--callgrind-out-file="$dir/callgrind.out" \
	-v -v -v --log-file="$dir/valgrind.log" "$@" >/dev/null; then
	echo "blocks-vs-callgrind: '$1' failed under valgrind" \
		"(log: $dir/valgrind.log)" >&2
	exit 125
fi
exec "$BUILD/tests/blockcheck" "${opts[@]}" "$dir/callgrind.out" \
	"$dir/valgrind.log"
