#!/usr/bin/env bats
# -exclude-idle: the idle task's samples (pid 0, CPUs with nothing to run)
# out of a report's rows and totals; the heading says how many, or how
# much of the profile they are when they are kept.

load helpers

# idle_of FILE: samples of cpu-clock the idle task took, from -by pid.
idle_of() {
	"$KPROFILE" -i "$1" -by pid --format json |
		jq '[.by_totals[] | select(.pid == 0) | .samples["cpu-clock"]] | add // 0'
}

# proc_stat_idle: the idle and iowait time of all CPUs, and all their
# time, in ticks (/proc/stat's "cpu" line).
proc_stat_idle() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= 11; i++) t += $i
		print $5 + $6, t }' /proc/stat
}

# relabel_as_idle IN OUT PID: copy profile IN to OUT with the tasks of
# process PID made the idle task's (pid 0) in its tasks section
# (docs/profile-format.md, section 10), the CRC made right.
relabel_as_idle() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
assert b[:8] == b"UMONPROF", "not a profile"
nsec, size = struct.unpack_from("<IQ", b, 12)
hit = 0
for i in range(nsec):
    sid, _, off, _ = struct.unpack_from("<IIQQ", b, 32 + 24 * i)
    if sid != 10:
        continue
    (count,), o = struct.unpack_from("<I", b, off), off + 4
    for _ in range(count):
        if struct.unpack_from("<I", b, o)[0] == pid:
            struct.pack_into("<I", b, o, 0)
            hit += 1
        (n,) = struct.unpack_from("<I", b, o + 8)
        o += 12 + n
if not hit:
    sys.exit(f"no task of pid {pid} in {src}")
struct.pack_into("<I", b, 24, zlib.crc32(bytes(b[32:size])))
open(dst, "wb").write(b)
PY
}

@test "-exclude-idle: the idle task's samples leave the rows and the totals, and the heading says how many" {
	skip_unless_perf_works
	# Half a second busy in the kernel on one CPU, half a second asleep:
	# a machine with nothing else to run is idle most of the time.  A
	# busy one may not be idle at all, and then there is nothing to
	# exclude: /proc/stat, over the same time, says which it was.
	local all idle rest before after
	read -r -a before < <(proc_stat_idle)
	run -0 "$KPROFILE" -quiet -e cpu-clock -o k.kmon \
		sh -c "$TPROG/kernelloop read 0.5; sleep 0.5"
	read -r -a after < <(proc_stat_idle)
	all=$("$KPROFILE" -i k.kmon --format json | jq '.statistics[0].samples')
	idle=$(idle_of k.kmon)
	((all > 100)) || fail "only $all samples"
	if ((idle == 0)); then
		local i=$((after[0] - before[0])) t=$((after[1] - before[1]))
		# half the machine's time idle, and not one sample of it
		((i * 2 < t)) ||
			fail "no idle-task samples, but the CPUs were idle for $i of $t ticks (/proc/stat)"
		skip "no idle-task samples to exclude: the machine was busy (idle $i of $t ticks in /proc/stat); the next test checks -exclude-idle on a profile with a known idle task"
	fi
	run -0 "$KPROFILE" -i k.kmon -exclude-idle --format json
	json_check <<<"$output"
	rest=$(jq '.statistics[0].samples' <<<"$output")
	assert_equal "$rest" $((all - idle))
	assert_equal "$(jq .idle_excluded <<<"$output")" "$idle"
	# the rows add up to the rest, percentages are of it
	assert_equal "$(jq '[.rows[].samples["cpu-clock"]] | add // 0' <<<"$output")" "$rest"
	# no idle task left to split by
	run -0 "$KPROFILE" -i k.kmon -exclude-idle -by pid --format json
	assert_equal "$(jq '[.by_totals[] | select(.pid == 0)] | length' <<<"$output")" 0
	# the text heading
	run -0 "$KPROFILE" -i k.kmon -exclude-idle
	assert_line "  note: -exclude-idle: $idle samples of the idle task (pid 0) are left out; percentages are of the rest"
	# without it, the heading says what share is idle when it is a tenth
	# or more
	run -0 "$KPROFILE" -i k.kmon
	if ((idle * 10 >= all)); then
		assert_line --regexp "^  note: [0-9.]+% of the samples are the idle task \(pid 0: .*-exclude-idle leaves them out$"
	else
		refute_output --partial "of the samples are the idle task"
	fi
	# the file itself is whole
	assert_equal "$("$KPROFILE" -i k.kmon --format json | jq '.statistics[0].samples')" "$all"
}

@test "-exclude-idle drops exactly the idle task's samples, from the totals and from each row (a profile whose idle task is known)" {
	skip_unless_perf_works
	# Whatever the machine's load, kernelloop takes samples.  Made the
	# idle task in a copy of the profile, it is what -exclude-idle must
	# leave out (with any real idle-task samples), nothing else.
	run -0 "$KPROFILE" -quiet -e cpu-clock -o k.kmon \
		sh -c 'echo $$ >loop.pid; exec "$1" read 1' sh "$TPROG/kernelloop"
	local pid all idle0 loop want
	pid=$(cat loop.pid)
	run -0 "$KPROFILE" -i k.kmon -by pid --format json
	local bypid=$output
	all=$(jq '.statistics[0].samples' <<<"$bypid")
	idle0=$(jq '[.by_totals[] | select(.pid == 0) | .samples["cpu-clock"]] | add // 0' <<<"$bypid")
	loop=$(jq --argjson p "$pid" '[.by_totals[] | select(.pid == $p) | .samples["cpu-clock"]] | add // 0' <<<"$bypid")
	((loop >= 50)) || fail "only $loop samples of kernelloop (pid $pid)"
	relabel_as_idle k.kmon idle.kmon "$pid"
	assert_equal "$(idle_of idle.kmon)" $((idle0 + loop))
	# the totals
	run -0 "$KPROFILE" -i idle.kmon -exclude-idle --format json
	json_check <<<"$output"
	local ex=$output
	assert_equal "$(jq '.statistics[0].samples' <<<"$ex")" $((all - idle0 - loop))
	assert_equal "$(jq .idle_excluded <<<"$ex")" $((idle0 + loop))
	# each row: the samples of the other processes (from -by pid of the
	# original), kernelloop's read_zero gone with the rest of it
	want=$(jq -c --argjson p "$pid" '[.rows[] | select(.pid != 0 and .pid != $p)
		| {k: "\(.procedure) \(.object)", n: .samples["cpu-clock"]}]
		| group_by(.k) | map({k: .[0].k, n: (map(.n) | add)}) | sort' <<<"$bypid")
	assert_equal "$(jq -c '[.rows[] | {k: "\(.procedure) \(.object)", n: .samples["cpu-clock"]}]
		| group_by(.k) | map({k: .[0].k, n: (map(.n) | add)}) | sort' <<<"$ex")" "$want"
	run -0 "$KPROFILE" -i idle.kmon -exclude-idle
	assert_line "  note: -exclude-idle: $((idle0 + loop)) samples of the idle task (pid 0) are left out; percentages are of the rest"
}

@test "-exclude-idle after a run: the report leaves idle out, the file keeps it" {
	skip_unless_perf_works
	run -0 --separate-stderr "$KPROFILE" -e cpu-clock -exclude-idle -o k.kmon \
		-report-file r.txt sleep 0.5
	local idle
	idle=$(idle_of k.kmon)
	run -0 cat r.txt
	assert_line "  note: -exclude-idle: $idle samples of the idle task (pid 0) are left out; percentages are of the rest"
	run -0 "$KPROFILE" -i k.kmon --format json
	assert_equal "$(jq .idle_excluded <<<"$output")" 0
}

@test "-exclude-idle on a user profile changes nothing; on a profile with call stacks it is refused in one line" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o u.umon "$TPROG/spin2" 200
	run -0 "$UPROFILE" -i u.umon --format json
	local before=$output
	run -0 "$UPROFILE" -i u.umon -exclude-idle --format json
	assert_equal "$(jq -c '[.statistics[0].samples, [.rows[] | [.procedure, .samples]]]' <<<"$output")" \
		"$(jq -c '[.statistics[0].samples, [.rows[] | [.procedure, .samples]]]' <<<"$before")"
	run -0 "$UPROFILE" -quiet -e cpu-clock -g -o g.umon "$TPROG/spin2" 100
	run -125 --separate-stderr "$UPROFILE" -i g.umon -exclude-idle
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"-exclude-idle: the profile has call stacks"* ]] || fail "stderr: $stderr"
}
