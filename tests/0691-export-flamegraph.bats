#!/usr/bin/env bats
# --format flamegraph: a self-contained SVG flame graph (docs/exports.md).
# Read by the consumers a user has: libxml2 (xmllint: well-formed XML, the
# text a parser gets back from the titles) and Chromium (what is drawn:
# the rendered geometry through the DOM, the script's zoom and search, and
# a screenshot whose pixels are counted by tests/tools/pngstat).
#
#  - exact figures on profiles written by tests/tools/mkcallstacks (every
#    title known by construction), names with XML's special characters,
#    control characters and bytes that are not UTF-8;
#  - the callers workload sampled with -g: the root is the report's total,
#    leaf_work's frames add up to its total% in the text report, and the
#    tower main -> caller_c -> leaf_work is drawn where and as wide as the
#    shares say;
#  - a flat profile (no -g) is one level of procedures;
#  - *_per_ret ratios in the titles (the sim engine's exact counts).

load helpers

MKCALLSTACKS=$ROOT/$BUILD/tests/mkcallstacks
PNGSTAT=$ROOT/tests/tools/pngstat

# xpath FILE EXPR: xmllint's answer for EXPR on FILE in $output (text
# nodes one a line; string() unescaped).
xpath() {
	run -0 xmllint --xpath "$2" "$1"
}

# The frames' titles, in document order.
FRAME_TITLES='//*[local-name()="g"][@class="f"]/*[local-name()="title"]/text()'

# frame_attr NAME ATTR: ATTR (x, y, width) of the rects of the frames
# named NAME in f.svg, one a line.  (Not through run: these are used in
# command substitutions.)
frame_attr() {
	xmllint --xpath "//*[local-name()=\"g\"][@*[local-name()=\"name\"]=\"$1\"]/*[local-name()=\"rect\"]/@$2" f.svg |
		sed 's/^ *[a-z]*="\(.*\)"$/\1/'
}

# title_of NAME: the title of the frame named NAME in f.svg whose total is
# largest (its "total N" figure).
title_of() {
	xmllint --xpath "//*[local-name()=\"g\"][@*[local-name()=\"name\"]=\"$1\"]/*[local-name()=\"title\"]/text()" f.svg |
		awk '{ match($0, /total [0-9]+/); n = substr($0, RSTART + 6, RLENGTH - 6) + 0
		       if (n > best) { best = n; t = $0 } } END { print t }'
}

# The callers workload with -g, ~8000 samples (as tests/1500-call-stacks).
profile_callers() {
	local max freq ms
	skip_unless_perf_works
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	freq=$((max < 4000 ? max : 4000))
	ms=$((2000 * 4000 / freq))
	# Written after the run, and again from the file: the same graph.
	run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock -F "$freq" \
		"$@" -o c.out --format flamegraph -report-file f.svg \
		"$TPROG/callers" "$ms"
	run -0 xmllint --noout f.svg
	run -0 --separate-stderr "$UPROFILE" -i c.out --format flamegraph \
		-report-file g.svg
	cmp f.svg g.svg
}

skip_unless_chromium() {
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
}

# chromium ARG... URL: headless, its own profile directory, its noise on
# stderr kept apart.  (Root needs --no-sandbox.)
browse() {
	run -0 --separate-stderr timeout 120 chromium --headless --no-sandbox \
		--disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium" "$@"
}

@test "flamegraph: exact stacks: every title, the order, the widths" {
	# The construction of tests/0670-report-stacks.bats, leaf first.
	run -0 "$MKCALLSTACKS" s.out "$TPROG/callstack" \
		400:complete:leaf,a,main 200:complete:leaf,b,main \
		100:complete:leaf,c@inline,main \
		100:complete:leaf,rec,rec,rec,main 50:fp:leaf,a,main \
		50:nocfi:leaf,b 100:nostack:a
	run -0 --separate-stderr "$UPROFILE" -i s.out --format flamegraph
	printf '%s\n' "$output" >f.svg
	run -0 xmllint --noout f.svg
	# Root first, then each parent's children in name order; the sample
	# without a stack is a tower of its own; the truncated stack starts at
	# its marker; mid was inlined into c.
	xpath f.svg "$FRAME_TITLES"
	assert_output "$(cat <<'END'
all — self 0 samples (0.00%), total 1000 samples (100.00%)
[truncated: no unwind information in callstack] — self 0 samples (0.00%), total 50 samples (5.00%)
a (callstack) — self 100 samples (10.00%), total 100 samples (10.00%)
main (callstack) — self 0 samples (0.00%), total 850 samples (85.00%)
a (callstack) — self 0 samples (0.00%), total 450 samples (45.00%)
b (callstack) — self 0 samples (0.00%), total 200 samples (20.00%)
c (callstack) — self 0 samples (0.00%), total 100 samples (10.00%)
rec (callstack) — self 0 samples (0.00%), total 100 samples (10.00%)
leaf (callstack) — self 450 samples (45.00%), total 450 samples (45.00%)
leaf (callstack) — self 200 samples (20.00%), total 200 samples (20.00%)
mid [inlined] (callstack) — self 0 samples (0.00%), total 100 samples (10.00%)
leaf (callstack) — self 100 samples (10.00%), total 100 samples (10.00%)
rec (callstack) — self 0 samples (0.00%), total 100 samples (10.00%)
rec (callstack) — self 0 samples (0.00%), total 100 samples (10.00%)
leaf (callstack) — self 100 samples (10.00%), total 100 samples (10.00%)
b (callstack) — self 0 samples (0.00%), total 50 samples (5.00%)
leaf (callstack) — self 50 samples (5.00%), total 50 samples (5.00%)
END
)"
	# 1180 px for 1000 samples; x from the left margin (10), siblings in
	# order; a level is 16 px above its parent's.
	assert_equal "$(frame_attr main x) $(frame_attr main width)" "187.00 1003.00"
	assert_equal "$(frame_attr main y)" "128.0"
	assert_equal "$(frame_attr leaf width | paste -sd' ')" "531.00 236.00 118.00 118.00 59.00"
	assert_equal "$(frame_attr leaf y | paste -sd' ')" "96.0 96.0 80.0 64.0 96.0"
	# The header: the command line, then statistic, total, completeness.
	xpath f.svg 'string(//*[@id="fg-title"])'
	assert_output "Flame graph: $TPROG/callstack"
	xpath f.svg 'string(//*[@id="fg-subtitle"])'
	assert_output "cpu-clock: 1000 samples; call stacks 94.44% complete, 100 samples without a stack"
	# Accessible: the image's name and description.
	xpath f.svg 'concat(/*/@role, " ", /*/@aria-labelledby, " ", /*/@version)'
	assert_output "img fg-title fg-desc 1.1"
	# The same through -report-file.
	run -0 "$UPROFILE" -i s.out --format flamegraph -report-file g.svg
	cmp f.svg g.svg
}

@test "flamegraph: frames narrower than 0.1 px are left out, and counted" {
	# b's stack is 1 sample of 20000: 0.059 px, it and its leaf go.
	# (19999 of 20000 is 100.00% to two decimals, as in the text report.)
	run -0 "$MKCALLSTACKS" s.out "$TPROG/callstack" \
		19999:complete:leaf,a,main 1:complete:leaf,b,main
	run -0 --separate-stderr "$UPROFILE" -i s.out --format flamegraph \
		-report-file f.svg
	run -0 xmllint --noout f.svg
	xpath f.svg "$FRAME_TITLES"
	assert_output "$(cat <<'END'
all — self 0 samples (0.00%), total 20000 samples (100.00%)
main (callstack) — self 0 samples (0.00%), total 20000 samples (100.00%)
a (callstack) — self 0 samples (0.00%), total 19999 samples (100.00%)
leaf (callstack) — self 19999 samples (100.00%), total 19999 samples (100.00%)
END
)"
	xpath f.svg 'string(//*[@id="fg-subtitle"])'
	assert_output "cpu-clock: 20000 samples; call stacks 100.00% complete; 2 frames narrower than 0.1 px not drawn"
}

@test "flamegraph: names with & < > \" ', control bytes and bad UTF-8 stay text" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >esc.cc <<'CC'
struct V { int v; };
__attribute__((noinline)) bool operator<(V a, V b) { return a.v < b.v; }
__attribute__((noinline)) V operator&(V a, V b) { return V{a.v & b.v}; }
template <typename T> __attribute__((noinline)) int hold(T x) { return sizeof(x); }
int main(int argc, char **)
{
	V a{argc}, b{2};
	return (a < b) + (a & b).v + hold<V &>(a);
}
CC
	# The program's name is the command line and the object's name.
	local prog=$'a&b<\'q\'>"x"\x1b\xff.bin'
	g++ -O1 -g -o "$prog" esc.cc || fail "g++ failed"
	run -0 "$MKCALLSTACKS" e.out "./$prog" 3:complete:_Zlt1VS_,main \
		2:complete:_Zan1VS_,main 4:complete:_Z4holdIR1VEiT_,main \
		1:nostack:main
	run -0 --separate-stderr "$UPROFILE" -i e.out --format flamegraph \
		-report-file f.svg
	run -0 xmllint --noout f.svg
	# What a parser reads back: the names as the text report shows them,
	# the two bytes a terminal or XML would choke on as \xNN.
	local shown='a&b<'"'"'q'"'"'>"x"\x1b\xff.bin'
	xpath f.svg 'string(//*[@id="fg-title"])'
	assert_output "Flame graph: ./$shown"
	xpath f.svg 'string(//*[local-name()="g"][@*[local-name()="name"]="operator<"]/*[local-name()="title"])'
	assert_output "operator< ($shown) — self 3 samples (30.00%), total 3 samples (30.00%)"
	xpath f.svg 'string(//*[local-name()="g"][@*[local-name()="name"]="operator&"]/*[local-name()="text"])'
	assert_output "operator&"
	xpath f.svg 'string(//*[local-name()="g"][@*[local-name()="name"]="hold<V&>"]/*[local-name()="title"])'
	assert_output "hold<V&> ($shown) — self 4 samples (40.00%), total 4 samples (40.00%)"
	# main: 9 samples with a stack, 1 without; the sample without a stack
	# is main alone on the root, the same frame.
	xpath f.svg 'string(//*[local-name()="g"][@*[local-name()="name"]="main"]/*[local-name()="title"])'
	assert_output "main ($shown) — self 1 sample (10.00%), total 10 samples (100.00%)"
	# No raw byte of the name reached the file.
	run -1 env LC_ALL=C grep -c $'\x1b\|\xff' f.svg
}

@test "flamegraph: callers -g: the root is the report's total, leaf_work's frames its total%" {
	profile_callers -g
	run -0 --separate-stderr "$UPROFILE" -i c.out -procedures
	local text=$output total leaf_total complete
	total=$(awk '/^  cpu-clock/ { for (i = 1; i <= NF; i++) if ($i ~ /^samples/) print $(i - 1) }' <<<"$text")
	leaf_total=$(awk '$NF == "callers" && $5 == "leaf_work" { print $3 }' <<<"$text")
	complete=$(sed -n 's/^  call stacks (cpu-clock): [0-9]* samples, \([0-9.]*\)% complete.*/\1/p' <<<"$text")
	[[ -n $total && -n $leaf_total && -n $complete ]] ||
		fail "cannot read the text report: $text"
	assert_equal "$(title_of all)" "all — self 0 samples (0.00%), total $total samples (100.00%)"
	xpath f.svg 'string(//*[@id="fg-subtitle"])'
	assert_output --regexp "^cpu-clock: $total samples; call stacks $complete% complete"
	# leaf_work is called from three callers: three frames, whose totals
	# add up to the procedure's total% (each title rounds to 0.01).
	xpath f.svg '//*[local-name()="g"][@*[local-name()="name"]="leaf_work"]/*[local-name()="title"]/text()'
	local sum
	sum=$(awk '{ match($0, /total [0-9]+ samples \([0-9.]+%\)/); s = substr($0, RSTART, RLENGTH)
		     sub(/.*\(/, "", s); sub(/%\)/, "", s); t += s; n++ }
		   END { if (n == 3) printf "%.2f\n", t }' <<<"$output")
	[[ -n $sum ]] || fail "leaf_work is not three frames: $output"
	assert_near "$sum" "$leaf_total" 0.02
	# Every title has the documented shape.
	xpath f.svg "$FRAME_TITLES"
	run -1 grep -cv '^.* — self [0-9]* samples\? ([0-9.]*%), total [0-9]* samples\? ([0-9.]*%)$' <<<"$output"
	assert_output 0
	# The known shares: leaf_work's callers a, b, c in 1:2:5.
	local a b c
	a=$(title_of caller_a | sed 's/.*total \([0-9]*\).*/\1/')
	b=$(title_of caller_b | sed 's/.*total \([0-9]*\).*/\1/')
	c=$(title_of caller_c | sed 's/.*total \([0-9]*\).*/\1/')
	assert_binomial "caller_c among the callers" "$c" "$((a + b + c))" 62.5
	assert_binomial "caller_b among the callers" "$b" "$((a + b + c))" 25
}

@test "flamegraph: a flat profile is one level of procedures, as the text report" {
	profile_callers
	xpath f.svg 'string(//*[@id="fg-subtitle"])'
	assert_output --regexp '^cpu-clock: [0-9]+ samples; no call stacks \(flat profile\)'
	# Out-of-line procedures stand on the root; only what was inlined
	# into them (a chain, in the dynamic linker) stands on them.
	local root_y frames
	root_y=$(frame_attr all y)
	frames='//*[local-name()="g"][@class="f"]'
	xpath f.svg "$frames[*[local-name()=\"rect\"]/@y = $root_y - 16]/*[local-name()=\"title\"]/text()"
	assert_output --partial "leaf_work (callers) — self"
	refute_output --partial "[inlined]"
	xpath f.svg "count($frames[*[local-name()=\"rect\"]/@y < $root_y - 16])"
	local above=$output
	xpath f.svg "count($frames[*[local-name()=\"rect\"]/@y < $root_y - 16][contains(*[local-name()=\"title\"], \" [inlined] (\")])"
	assert_equal "$output" "$above"
	# Each procedure's total share is the text report's row (which
	# holds the code inlined into it), its self share the -inline row.
	local text split
	run -0 --separate-stderr "$UPROFILE" -i c.out -procedures
	text=$output
	run -0 --separate-stderr "$UPROFILE" -i c.out -procedures -inline
	split=$output
	local p
	for p in leaf_work cmp_work rec_leaf recurse; do
		local row self
		row=$(awk -v p="$p" '$NF == "callers" && $4 == p { print $1 }' <<<"$text")
		self=$(awk -v p="$p" '$NF == "callers" && $4 == p { print $1 }' <<<"$split")
		[[ -n $row && -n $self ]] || fail "no row for $p: $text"
		[[ $(title_of "$p") == "$p (callers) — self "*" samples ($self%), total "*" samples ($row%)"* ]] ||
			fail "$p: text report $self% / $row%, flame graph: $(title_of "$p")"
	done
}

@test "flamegraph: *_per_ret ratios of each frame's total, as the report's rows" {
	command -v valgrind >/dev/null ||
		skip "valgrind is missing (the sim engine needs it)"
	run -0 "$UPROFILE" --engine=sim -quiet -o b.out mispredict_per_ret \
		"$TPROG/branchy" random
	run -0 --separate-stderr "$UPROFILE" -i b.out --format flamegraph \
		-report-file f.svg
	run -0 xmllint --noout f.svg
	run -0 --separate-stderr "$UPROFILE" -i b.out --format json
	local row whole
	row=$(jq -r '.rows[] | select(.procedure == "count_big") |
		"\(.samples.mispredict) \(.percent.mispredict) \(.ratios.mispredict_per_ret.value)"' <<<"$output")
	whole=$(jq -r '.ratios[0].value' <<<"$output")
	# count_big has nothing inlined: its total is its row.  Exact counts
	# are events, and never "few samples".
	row=$(awk '{ printf "%d events (%.2f%%), total %d events (%.2f%%), mispredict_per_ret %.2f", $1, $2, $1, $2, $3 }' <<<"$row")
	assert_equal "$(title_of count_big)" "count_big (branchy) — self $row"
	assert_equal "$(title_of all | sed 's/.*, //')" \
		"$(awk -v w="$whole" 'BEGIN { printf "mispredict_per_ret %.2f", w }')"
}

@test "flamegraph: Chromium draws the callers tower: main, caller_c, leaf_work" {
	skip_unless_chromium
	profile_callers -g
	# What the browser lays out: the frames' boxes (getBBox) before and
	# after a click on caller_c, read from the DOM of a page that holds
	# the SVG inline.
	{
		echo '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
		sed 1d f.svg
		cat <<'PAGE'
<pre id="out"></pre>
<script><![CDATA[
var ns = "http://www.w3.org/2000/svg", out = [];
function dump(tag) {
	var gs = document.getElementsByTagNameNS(ns, "g");
	for (var i = 0; i < gs.length; i++) {
		var n = gs[i].getAttributeNS("urn:x-uprofile:flamegraph", "name");
		if (!/^(all|main|caller_c|leaf_work|sort_caller)$/.test(n))
			continue;
		var b = gs[i].getElementsByTagNameNS(ns, "rect")[0].getBBox();
		out.push([tag, n, b.x.toFixed(2), b.y.toFixed(2),
			  b.width.toFixed(2),
			  gs[i].getAttribute("display") === "none" ? "hidden" :
			  gs[i].getAttribute("opacity") ? "faded" : "shown"].join(" "));
	}
}
init();
dump("before");
var gs = document.getElementsByTagNameNS(ns, "g");
for (var i = 0; i < gs.length; i++)
	if (gs[i].getAttributeNS("urn:x-uprofile:flamegraph", "name") === "caller_c")
		gs[i].dispatchEvent(new MouseEvent("click", { bubbles: true }));
dump("zoomed");
document.getElementById("out").textContent = out.join("\n");
]]></script>
</body></html>
PAGE
	} >page.xhtml
	browse --dump-dom "file://$PWD/page.xhtml"
	local boxes
	boxes=$(sed -n '/<pre id="out">/,/<\/pre>/p' <<<"$output" | sed 's/<[^>]*>//g')
	echo "$boxes"
	# The tower: caller_c on main, the widest leaf_work on caller_c, one
	# frame (16 px) apart, leaf_work as wide as the whole of caller_c's
	# stacks but the clock reads above it.
	run -0 awk '
		$1 == "before" && $2 == "main" { my = $4; mw = $5 }
		$1 == "before" && $2 == "all" { aw = $5 }
		$1 == "before" && $2 == "caller_c" { cx = $3; cy = $4; cw = $5 }
		$1 == "before" && $2 == "leaf_work" && $5 > lw { lx = $3; ly = $4; lw = $5 }
		$1 == "zoomed" && $2 == "caller_c" { zc = $5 " " $6 }
		$1 == "zoomed" && $2 == "main" { zm = $5 " " $6 }
		$1 == "zoomed" && $2 == "sort_caller" { zs = $6 }
		END {
			print (cy == my - 16), (ly == cy - 16), (lx == cx)
			print (lw <= cw && lw > 0.9 * cw), (cw > 0.2 * aw && cw < 0.45 * aw)
			print zc, zm, zs
		}' <<<"$boxes"
	assert_output "$(printf '1 1 1\n1 1\n1180.00 shown 1180.00 faded hidden')"
	# Drawn widths are the titles' shares of the 1180 px of the root.
	local cw ctitle
	cw=$(awk '$1 == "before" && $2 == "caller_c" { print $5 }' <<<"$boxes")
	ctitle=$(title_of caller_c | sed 's/.*total [0-9]* samples (\([0-9.]*\)%).*/\1/')
	# (the width is printed to 0.01 px, the title's and this share to
	# 0.01 point: two roundings of up to 0.005 each, and the float's)
	assert_near "$(awk -v w="$cw" 'BEGIN { printf "%.2f", 100 * w / 1180 }')" "$ctitle" 0.011

	# The screenshot, with leaf_work found by the URL's search: its frames
	# magenta, one band of a frame's height where the DOM put them, as
	# many pixels wide as leaf_work's share of 1180 (less each frame's
	# two antialiased edges).
	browse --screenshot="$PWD/shot.png" --window-size=1200,800 \
		"file://$PWD/f.svg?s=%5Eleaf_work%24"
	run -0 python3 "$PNGSTAT" shot.png 230,0,230
	echo "$output"
	local size colours rows first last widest ly share
	read -r size colours <<<"${lines[0]}"
	read -r rows first last widest <<<"${lines[1]}"
	assert_equal "$size" 1200x800
	((colours > 20)) || fail "the screenshot has $colours colours: blank?"
	ly=$(awk '$1 == "before" && $2 == "leaf_work" { print $4 + 0; exit }' <<<"$boxes")
	assert_equal "$rows $first $last" "15 $ly $((ly + 14))"
	xpath f.svg '//*[local-name()="g"][@*[local-name()="name"]="leaf_work"]/*[local-name()="title"]/text()'
	share=$(awk '{ match($0, /total [0-9]+ samples \([0-9.]+%\)/); s = substr($0, RSTART, RLENGTH)
		       sub(/.*\(/, "", s); t += s } END { printf "%.2f", t }' <<<"$output")
	assert_near "$widest" "$(awk -v s="$share" 'BEGIN { printf "%.1f", s * 11.8 }')" 7
	# And the search's own figure, to one decimal of the exact share (the
	# frames' sample counts over the root's: the titles' rounded
	# percentages could round the other way at a .x5 boundary).
	local matched exact
	exact=$(awk '{ match($0, /total [0-9]+ samples/); s = substr($0, RSTART + 6, RLENGTH - 14)
		       t += s } END { print t }' <<<"$output")
	exact=$(awk -v m="$exact" -v r="$(title_of all | sed 's/.*total \([0-9]*\) samples.*/\1/')" \
		'BEGIN { printf "%.4f", 100 * m / r }')
	browse --dump-dom "file://$PWD/f.svg?s=%5Eleaf_work%24"
	matched=$(sed -n 's/.*Matched: \([0-9.]*\)%.*/\1/p' <<<"$output")
	[[ -n $matched ]] || fail "no 'Matched: N%' in the page: ${output: -600}"
	assert_near "$matched" "$exact" 0.0501
	# A plain picture to look at when this test is run by hand.
	browse --screenshot="$PWD/plain.png" --window-size=1200,800 "file://$PWD/f.svg"
	run -0 python3 "$PNGSTAT" plain.png 230,0,230
	assert_line --index 1 "0 -1 -1 0"
}

@test "flamegraph: a counting profile or a row option is refused, nothing written" {
	run -0 "$ROOT/$BUILD/tests/mkcount" n.out 1000000 cycles:0:0:1000:10:10
	run -125 --separate-stderr "$UPROFILE" -i n.out --format flamegraph \
		-report-file f.svg
	assert_equal "$stderr" "uprofile: 'n.out' is a counting profile: it has totals, no samples to export (use --format text or json)"
	[[ ! -e f.svg ]] || fail "f.svg written"
	run -0 "$MKCALLSTACKS" s.out "$TPROG/callstack" 1:complete:leaf,a,main
	run -125 --separate-stderr "$UPROFILE" -i s.out --format flamegraph -only leaf
	[[ ${stderr_lines[0]} == "uprofile: --format flamegraph exports the whole profile:"* ]] ||
		fail "$stderr"
}
