#!/bin/bash
# Byte-for-byte comparison of every report view and export of two builds,
# on the same profiles: the acceptance test of a restructure that must
# change no output.
#
# Usage: compare-reports.sh BEFORE_BUILD AFTER_BUILD [WORKDIR]
#   BEFORE_BUILD, AFTER_BUILD: build directories (uprofile, kprofile,
#   tests/).  The profiles are made once, with BEFORE_BUILD's binaries
#   and test programs, into WORKDIR/profiles (default
#   /tmp/compare-reports) and kept: a second run reuses them (remove the
#   directory to make them again).  Each report is run with both builds;
#   stdout, stderr and the exit status are compared (pprof gunzipped).
#   Exit status: 0 when every output is the same, 1 otherwise (the diffs
#   are in WORKDIR/diffs/).
set -uf
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
work=${3:-/tmp/compare-reports}
prof=$work/profiles
mkdir -p "$prof" "$work/out" "$work/diffs"
rm -f "$work"/diffs/*
unset DEBUGINFOD_URLS
export LC_ALL=C

UP=$before/uprofile
KP=$before/kprofile
T=$before/tests

# ---- the profiles, made once with BEFORE's binaries ----

# sample NAME TOOL ARGS...: a profile NAME (skipped when it exists).
sample() {
	local name=$1 tool=$2
	shift 2
	[ -s "$prof/$name" ] && return 0
	echo "making $name" >&2
	(cd "$prof" && "$tool" -quiet -o "$name" "$@" >/dev/null 2>&1) ||
		echo "warning: cannot make $name" >&2
}

make_profiles() {
	sample spin.umon "$UP" -e cpu-clock -F 2000 "$T/spin2" 600
	sample inline.umon "$UP" -e cpu-clock -F 2000 "$T/inline" 400
	sample threads.umon "$UP" -e cpu-clock -F 2000 "$T/threads"
	sample stripped.umon "$UP" -e cpu-clock -F 2000 "$T/spin2-stripped" 300
	sample callers.umon "$UP" -g -e cpu-clock -F 2000 "$T/callers" 800
	sample callers2.umon "$UP" -g -e cpu-clock -F 2000 "$T/callers" 400
	sample nofp.umon "$UP" -g -e cpu-clock -F 2000 "$T/callers-nofp" 400
	sample plt.umon "$UP" -g -e cpu-clock -F 2000 "$T/plt"
	sample base.umon "$UP" -e cpu-clock -F 2000 "$T/diffwork" 500
	sample slow.umon "$UP" -e cpu-clock -F 2000 "$T/diffwork-slow" 500
	sample pixie.umon "$UP" -pixie -e cpu-clock -F 2000 "$T/spin2" 200
	sample k.kmon "$KP" -g -e cpu-clock -F 1000 "$T/kernelloop" read 2
	sample kidle.kmon "$KP" -e cpu-clock -F 500 -d 2
	if [ ! -s "$prof/sum.umon" ]; then
		(cd "$prof" && "$UP" -quiet --merge sum.umon callers.umon \
			callers2.umon >/dev/null 2>&1)
	fi
	if [ ! -s "$prof/packed.out" ]; then
		(cd "$prof" && "$UP" -quiet --archive packed.out spin.umon \
			>/dev/null 2>&1)
	fi
	# A program whose source is gone (-asm's missing-source note) and
	# one rebuilt since its profile (the stale note).
	if [ ! -s "$prof/gone.umon" ]; then
		cp "$before/../tests/programs/spin2.c" "$prof/gone.c" 2>/dev/null ||
			cp "$(dirname "$0")/../../tests/programs/spin2.c" \
				"$prof/gone.c"
		cc -O1 -g -fno-omit-frame-pointer -o "$prof/gone" "$prof/gone.c"
		sample gone.umon "$UP" -e cpu-clock -F 2000 "$prof/gone" 300
		rm -f "$prof/gone.c"
	fi
	if [ ! -s "$prof/stale.umon" ]; then
		cp "$T/spin2" "$prof/rebuilt"
		sample stale.umon "$UP" -e cpu-clock -F 2000 "$prof/rebuilt" 300
		cp "$T/inline" "$prof/rebuilt"
	fi
	# Objects gone since the profile: deleted, and replaced by a FIFO
	# (the unreadable and not-a-regular-file notes).
	if [ ! -s "$prof/deleted.umon" ]; then
		cp "$T/spin2" "$prof/deleted"
		sample deleted.umon "$UP" -e cpu-clock -F 2000 "$prof/deleted" 200
		rm -f "$prof/deleted"
	fi
	if [ ! -s "$prof/fifo.umon" ]; then
		cp "$T/spin2" "$prof/fifoprog"
		sample fifo.umon "$UP" -e cpu-clock -F 2000 "$prof/fifoprog" 200
		rm -f "$prof/fifoprog"
		mkfifo "$prof/fifoprog"
	fi
}

# ---- the reports ----

n=0
ndiff=0

# run1 BUILD OUT TOOL ARGS...: stdout, stderr and status of one report.
run1() {
	local build=$1 out=$2 tool=$3
	shift 3
	(cd "$prof" && "$build/$tool" "$@" >"$out.stdout" 2>"$out.stderr")
	echo "$?" >"$out.status"
	# The archive is unpacked under a fresh private directory.
	sed -i -E 's#/tmp/[a-z]*profile-archive[^/ ]*#/tmp/ARCHIVE#g' \
		"$out.stdout" "$out.stderr"
}

# cmp1 TOOL ARGS...: the same report with both builds, compared.
cmp1() {
	local id
	id=$(printf '%04d' "$n")
	n=$((n + 1))
	run1 "$before" "$work/out/$id.b" "$@"
	run1 "$after" "$work/out/$id.a" "$@"
	for part in stdout stderr status; do
		if ! cmp -s "$work/out/$id.b.$part" "$work/out/$id.a.$part"; then
			ndiff=$((ndiff + 1))
			{
				echo "== $* ($part)"
				diff "$work/out/$id.b.$part" \
					"$work/out/$id.a.$part" | head -40
			} >>"$work/diffs/$id"
			echo "DIFF: $* ($part)" >&2
		fi
	done
	echo "$*" >"$work/out/$id.cmd"
}

# cmp_pprof ARGS...: the pprof export of both builds, gunzipped.
cmp_pprof() {
	local id
	id=$(printf '%04d' "$n")
	n=$((n + 1))
	(cd "$prof" && "$before/uprofile" "$@" --format pprof |
		gunzip >"$work/out/$id.b.pb")
	(cd "$prof" && "$after/uprofile" "$@" --format pprof |
		gunzip >"$work/out/$id.a.pb")
	if ! cmp -s "$work/out/$id.b.pb" "$work/out/$id.a.pb" ||
	   [ ! -s "$work/out/$id.b.pb" ]; then
		ndiff=$((ndiff + 1))
		echo "DIFF: pprof $*" >&2
		echo "== pprof $*" >>"$work/diffs/$id"
	fi
}

views=(
	""
	"-lines" "-heavy" "-blocks" "-asm" "-asm -quit 1" "-asm -quit 30%"
	"-blocks -quit 3" "-stride 4 -asm" "-stride 0" "-numbers"
	"-inline" "-average" "-quit 2" "-quit 5%" "-lines -quit 5%" "-v"
	"-by comm" "-by pid" "-by tid" "-by cpu" "-by comm,object"
	"-only hot_*" "-exclude hot_b" "-only nomatch* -exclude zz*"
	"-asm -only hot_a" "-blocks -exclude main"
	"--format json" "--format json -lines" "--format json -asm"
	"--format json -blocks" "--format json -by pid"
	"--format json -only nomatch*" "--format json -asm -quit 1"
	"--format csv" "--format csv -lines" "--format csv -blocks"
	"--format csv -asm" "--format csv -quit 3"
	"--format folded" "--format flamegraph" "--format callgrind"
)

stack_views=(
	"-tree" "-tree -quit 2%" "-tree -quit 2" "-callers leaf_work"
	"-callees main" "-callers leaf_*" "-ra leaf_work"
	"-ra leaf_work --format json" "-tree --format json"
	"-callers leaf_work --format json" "-ra 'nomatch'"
)

report_all() {
	local tool=$1 f=$2 v
	shift 2
	for v in "${views[@]}"; do
		# shellcheck disable=SC2086
		cmp1 "$tool" -i "$f" $v
	done
	cmp_pprof -i "$f"
}

main() {
	local f v
	make_profiles
	for f in spin.umon inline.umon threads.umon stripped.umon \
		 callers.umon nofp.umon plt.umon base.umon pixie.umon \
		 sum.umon packed.out gone.umon stale.umon deleted.umon \
		 fifo.umon; do
		[ -s "$prof/$f" ] || continue
		report_all uprofile "$f"
	done
	for f in callers.umon nofp.umon plt.umon sum.umon; do
		for v in "${stack_views[@]}"; do
			# shellcheck disable=SC2086
			eval cmp1 uprofile -i "$f" $v
		done
	done
	if [ -s "$prof/k.kmon" ]; then
		report_all kprofile k.kmon
		for v in "-tree" "-callers *sys_read*" "-exclude-idle" \
			 "-exclude-idle --format json" "-by pid" \
			 "-tree --format json"; do
			eval cmp1 kprofile -i k.kmon "$v"
		done
	fi
	if [ -s "$prof/kidle.kmon" ]; then
		for v in "" "-exclude-idle" "--format json" "-by pid" \
			 "--format csv"; do
			eval cmp1 kprofile -i kidle.kmon "$v"
		done
	fi
	cmp1 uprofile -i callers.umon -i callers2.umon
	cmp1 uprofile -i callers.umon -i callers2.umon --format json
	for v in "" "-lines" "-v" "--format json" "--format json -lines" \
		 "--fail-above 5" "--fail-above 50" "-quit 1" "-quit 2 -v" \
		 "--format json -quit 1" "--format json --fail-above 5" \
		 "--alpha 1e-5" "-lines -quit 2"; do
		eval cmp1 uprofile --diff base.umon slow.umon "$v"
		eval cmp1 uprofile --diff slow.umon base.umon "$v"
	done
	echo "compared $n reports (stdout, stderr, status): $ndiff difference(s)"
	[ "$ndiff" -eq 0 ]
}

main
