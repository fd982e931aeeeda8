#!/bin/bash
# Record the perf.data seeds of fuzz/corpus/perfdata/ with Linux perf
# (Debian's linux-perf), then write the crafted ones (fuzz/mkperfdata.py).
# Run as root, like fuzz/mkcorpus.sh (which calls it): the recordings are
# made in private mount, UTS and PID namespaces, so that they carry no
# path, host name or process of the machine that made them: the program
# recorded is tests/programs/callers.c built as /mnt/perf-object on a
# tmpfs, the host is "host", and perf -a sees only the processes started
# here (samples of others are pid 0).  Recordings differ from run to run;
# each is kept small (a long period, a short run): under 64 KiB.
#
# Every seed starts with fuzz_perfdata's option byte (see
# fuzz/fuzz_perfdata.c): 0 for a file, 1 for a stream (also read through
# a pipe); the perf.data bytes follow.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$PWD/fuzz/corpus/perfdata
if [[ ${1-} != --in-namespace ]]; then
	command -v perf >/dev/null || { echo "mkperfdata: no perf" >&2; exit 1; }
	mkdir -p "$out"
	exec unshare -m -u -p -f --mount-proc "$0" --in-namespace
fi
hostname host
mount -t tmpfs none /mnt
obj=/mnt/perf-object
cc -O2 -g -fno-omit-frame-pointer -fdebug-prefix-map="$PWD"=. -o "$obj" \
	tests/programs/callers.c
cd /mnt

# perf record, quiet, no build-id cache in $HOME; the seed is the option
# byte then the recording.
rec() {
	local name=$1
	shift
	perf record -q -N -o /mnt/rec.data "$@" 2>/dev/null
	{ printf '\x00'; cat /mnt/rec.data; } >"$out/$name"
	rm -f /mnt/rec.data
}
# The same, perf writing its pipe format to stdout.
rec_pipe() {
	local name=$1
	shift
	{ printf '\x01'; perf record -q -N -o - "$@" 2>/dev/null; } >"$out/$name"
}

period=(-e cpu-clock -c 2000000)
rec flat "${period[@]}" -- "$obj" 30
rec events -e cpu-clock/period=2000000/,task-clock/period=3000000/ \
	-e page-faults/period=20/ -- "$obj" 30
rec fp "${period[@]}" -g -- "$obj" 30
rec dwarf "${period[@]}" --call-graph dwarf,1024 -- "$obj" 20
rec system "${period[@]}" -a -- sleep 0.02
rec compressed "${period[@]}" -z -- "$obj" 30
rec switches "${period[@]}" --switch-events -- \
	sh -c "$obj 10; sleep 0.01; $obj 10"
rec_pipe pipe "${period[@]}" -- "$obj" 30
rec_pipe pipe-dwarf "${period[@]}" --call-graph dwarf,1024 -- "$obj" 10
rec_pipe pipe-compressed "${period[@]}" -z -g -- "$obj" 30
rm -f "$obj"

cd - >/dev/null
python3 fuzz/mkperfdata.py "$out"
