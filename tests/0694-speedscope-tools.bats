#!/usr/bin/env bats
# The tools that check --format speedscope: tests/tools/speedscope-check
# (speedscope's JSON schema and its importer's rules) and
# tests/tools/speedscope-view.sh (speedscope's own page in headless
# Chromium), on the hand-written tests/golden/speedscope-sample.json and
# on broken copies of it.  Both read the npm package speedscope that
# ./setup.sh test installs into build/npm (SPEEDSCOPE_DIR).

load helpers

CHECK=$ROOT/tests/tools/speedscope-check
VIEW=$ROOT/tests/tools/speedscope-view.sh
PNGSTAT=$ROOT/tests/tools/pngstat
SAMPLE=$ROOT/tests/golden/speedscope-sample.json
SPEEDSCOPE=${SPEEDSCOPE_DIR:-$ROOT/build/npm}/node_modules/speedscope

skip_unless_speedscope() {
	[[ -f $SPEEDSCOPE/dist/release/file-format-schema.json ]] ||
		skip "no npm package speedscope in ${SPEEDSCOPE%/node_modules/*} (./setup.sh test installs it)"
	command -v jq >/dev/null || skip "jq is not installed"
}

skip_unless_checker() {
	skip_unless_speedscope
	python3 -c 'import jsonschema' 2>/dev/null ||
		skip "python3 has no jsonschema (Debian package python3-jsonschema)"
}

skip_unless_viewer() {
	skip_unless_speedscope
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
}

# broken NAME JQ-FILTER: NAME.json, the sample changed by JQ-FILTER.
broken() {
	jq "$2" "$SAMPLE" >"$1.json" || fail "jq $2"
}

@test "speedscope-check: the golden sample passes; --summary gives the phases" {
	skip_unless_checker
	run -0 --separate-stderr "$CHECK" "$SAMPLE"
	assert_output ""
	assert_equal "$stderr" ""
	run -0 --separate-stderr "$CHECK" --summary "$SAMPLE"
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' \
		'sample (tid 100)' nanoseconds 6 6000000 'A B C' \
		'worker (tid 101)' nanoseconds 4 4000000 'C B A')"
}

@test "speedscope-check: samples and weights of different lengths" {
	skip_unless_checker
	broken mismatch '.profiles[1].weights |= .[1:]'
	run -1 --separate-stderr "$CHECK" mismatch.json
	assert_equal "$stderr" "speedscope-check: mismatch.json: \$.profiles[1]: 4 samples but 3 weights (the importer throws \"Expected samples.length to equal weights.length\")"
}

@test "speedscope-check: frame indexes outside shared.frames" {
	skip_unless_checker
	broken index '.profiles[0].samples[3] = [0, 3] | .profiles[1].samples[0] = [-1, 1.5]'
	run -1 --separate-stderr "$CHECK" index.json
	assert_equal "$stderr" "$(cat <<'END'
speedscope-check: index.json: $.profiles[0].samples[3][1]: frame index 3 is not one of shared.frames (0..2)
speedscope-check: index.json: $.profiles[1].samples[0][0]: frame index -1 is not one of shared.frames (0..2)
speedscope-check: index.json: $.profiles[1].samples[0][1]: frame index 1.5 is not one of shared.frames (0..2)
END
)"
}

@test "speedscope-check: a \$schema other than speedscope's, or none" {
	skip_unless_checker
	broken schema '."$schema" = "https://www.speedscope.app/file-format-schema.json#"'
	run -1 --separate-stderr "$CHECK" schema.json
	assert_equal "$stderr" "speedscope-check: schema.json: \$[\"\$schema\"] is \"https://www.speedscope.app/file-format-schema.json#\", not \"https://www.speedscope.app/file-format-schema.json\" (the importer recognises the file only by a name ending in .speedscope.json)"
	broken none 'del(."$schema")'
	run -1 --separate-stderr "$CHECK" none.json
	assert_equal "$stderr" "speedscope-check: none.json: \$: '\$schema' is a required property"
}

@test "speedscope-check: the schema's structure, weights, NaN; a weight of 0 warns" {
	skip_unless_checker
	broken structure '.profiles[0].unit = "ticks" | .profiles[1].weights[2] = -5 | .profiles[1].startValue = 5000000'
	run -1 --separate-stderr "$CHECK" structure.json
	assert_equal "$stderr" "$(cat <<'END'
speedscope-check: structure.json: $.profiles[0].unit: 'ticks' is not one of ['bytes', 'microseconds', 'milliseconds', 'nanoseconds', 'none', 'seconds']
speedscope-check: structure.json: $.profiles[1]: startValue 5000000 > endValue 4000000
speedscope-check: structure.json: $.profiles[1].weights[2]: weight -5 is not a finite number >= 0
END
)"
	sed 's/"endValue": 4000000/"endValue": NaN/' "$SAMPLE" >nan.json
	run -1 --separate-stderr "$CHECK" nan.json
	assert_equal "$stderr" "speedscope-check: nan.json: NaN is not JSON (JSON.parse rejects it)"
	broken zero '.profiles[0].weights[0] = 0'
	run -0 --separate-stderr "$CHECK" --summary zero.json
	assert_equal "$stderr" "speedscope-check: zero.json: warning: \$.profiles[0].weights[0]: weight 0: the importer drops this sample"
	assert_line -n 0 "$(printf 'sample (tid 100)\tnanoseconds\t6\t5000000\tA B C')"
}

@test "speedscope-check: evented profiles: order of 'at', balanced opens and closes" {
	skip_unless_checker
	jq '.profiles = [{type: "evented", name: "ev", unit: "milliseconds",
		startValue: 0, endValue: 10, events: [
		{type: "O", at: 0, frame: 0}, {type: "O", at: 2, frame: 1},
		{type: "C", at: 4, frame: 1}, {type: "O", at: 4, frame: 2},
		{type: "C", at: 9, frame: 2}, {type: "C", at: 10, frame: 0}]}]' \
		"$SAMPLE" >ev.json
	run -0 --separate-stderr "$CHECK" --summary ev.json
	assert_output "$(printf 'ev\tmilliseconds\t4\t10\tA B C A')"
	jq '.profiles[0].events[2].at = 1 | .profiles[0].events[4].frame = 0
		| .profiles[0].events |= .[:-1]' ev.json >ev-bad.json
	run -1 --separate-stderr "$CHECK" ev-bad.json
	assert_equal "$stderr" "$(cat <<'END'
speedscope-check: ev-bad.json: $.profiles[0].events[2]: at 1 is before the previous event's 2 (the importer needs increasing values)
speedscope-check: ev-bad.json: $.profiles[0].events[4]: closes frame 0 while frame 2 is on top
speedscope-check: ev-bad.json: $.profiles[0].events: 1 frame(s) opened and never closed (frames 0)
END
)"
}

@test "speedscope-view: speedscope loads the golden sample and draws A, B, C" {
	skip_unless_viewer
	run -0 --separate-stderr "$VIEW" "$SAMPLE" s.png
	assert_output "speedscope-view.sh: loaded speedscope-sample"
	# The first profile's flame chart, time order: A for 6 ms, B from
	# 2 ms, C from 3 ms, each a level below the one before.  Their
	# colours (speedscope 1.25.0's, per frame) in the lower chart: the
	# widest row of each is 6:4:3.
	local a b c
	run -0 "$PNGSTAT" s.png 254,191,190
	a=${lines[1]}
	run -0 "$PNGSTAT" s.png 180,233,168
	b=${lines[1]}
	run -0 "$PNGSTAT" s.png 178,208,254
	c=${lines[1]}
	read -r _ a_first _ a_max <<<"$a"
	read -r _ b_first _ b_max <<<"$b"
	read -r _ c_first _ c_max <<<"$c"
	((a_first < b_first && b_first < c_first)) ||
		fail "levels: A from row $a_first, B $b_first, C $c_first"
	# Within 1%: B/A = 4/6, C/A = 3/6.
	local b_pct=$((b_max * 600 / (a_max * 4))) c_pct=$((c_max * 600 / (a_max * 3)))
	((a_max > 1300 && b_pct >= 99 && b_pct <= 101 && c_pct >= 99 && c_pct <= 101)) ||
		fail "widths: A $a_max, B $b_max, C $c_max px (want 6:4:3)"
}

@test "speedscope-view: an import that fails is an error" {
	skip_unless_viewer
	broken mismatch '.profiles[1].weights |= .[1:]'
	run -1 --separate-stderr "$VIEW" mismatch.json m.png
	assert_equal "$stderr" "speedscope-view.sh: mismatch.json: speedscope could not import it (\"Something went wrong.\")"
	broken schema '."$schema" = "x"'
	run -1 --separate-stderr "$VIEW" schema.json m.png
	assert_equal "$stderr" "speedscope-view.sh: schema.json: speedscope said: Unrecognized format! See documentation about supported formats."
	broken empty '.profiles = []'
	run -1 --separate-stderr "$VIEW" empty.json m.png
	assert_equal "$stderr" "speedscope-view.sh: empty.json: speedscope said: Successfully imported profile, but it's empty!"
	[[ ! -e m.png ]] || fail "a screenshot was taken of a failed import"
}
