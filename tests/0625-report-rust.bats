#!/usr/bin/env bats
# Rust: every frame, inlined ones included, named as perf names it, in
# both symbol manglings (legacy _ZN...17h<hash>E and v0 _R...): no hash,
# no crate disambiguators, no ".llvm.N" suffix; two instances of one
# generic two rows.  The oracle is perf itself, on the same binary and
# recording: perf report's rows, perf script's frames.

load helpers

# The program (tests/programs/rusthot.rs) built once per file for
# MANGLING (legacy: rustc's default; v0); prints its path, or fails
# with the reason on stderr.
rust_build() {
	local mangling=$1 bin=$BATS_FILE_TMPDIR/hot-$1 flags=()
	[[ $mangling == v0 ]] && flags=(-C symbol-mangling-version=v0)
	if [[ ! -x $bin ]]; then
		rustc --crate-name hot -g -C opt-level=2 "${flags[@]}" \
			-o "$bin.new" "$ROOT/tests/programs/rusthot.rs" \
			>"$BATS_FILE_TMPDIR/rustc-$mangling.log" 2>&1 ||
			return 1
		mv "$bin.new" "$bin"
	fi
	echo "$bin"
}

# setup_rust MANGLING: skips without rustc or perf; sets BIN to the
# program and DATA to perf's recording of it, both made once per file.
# perf records DWARF call stacks: with frame pointers' (-g) perf script
# and perf report expand no inlined frames at the leaf, and the
# standard library has no frame pointers to follow.
setup_rust() {
	command -v rustc >/dev/null || skip "rustc is not installed"
	skip_unless_perf_works
	BIN=$(rust_build "$1") ||
		skip "rustc cannot build $1 mangling: $(head -1 "$BATS_FILE_TMPDIR/rustc-$1.log")"
	DATA=$BATS_FILE_TMPDIR/$1.data
	if [[ ! -s $DATA ]]; then
		perf record -q -e cpu-clock --call-graph dwarf -o "$DATA.new" \
			"$BIN" >/dev/null 2>&1 || fail "perf record failed"
		mv "$DATA.new" "$DATA"
	fi
}

# perf_frames: "OFFSET|NAME|NAME..." for each distinct place perf script
# shows in $BIN (the sampled addresses and the callers in the stacks),
# innermost name first, with the functions perf says are inlined there
# (it prints them before the out-of-line one, at the same address).
# OFFSET is perf's, hex: the offset in the file mapped.
perf_frames() {
	perf script -i "$DATA" -F ip,sym,dso --inline 2>/dev/null |
		awk -v p="$BIN" '
		function flush() {
			if (n && dso == p) {
				s = addr
				for (i = 1; i <= n; i++)
					s = s "|" nm[i]
				print s
			}
			n = 0
		}
		NF == 0 { n = 0; next }
		{
			addr = $1; line = $0
			sub(/^[ \t]*[0-9a-f]+ /, "", line)
			if (n && addr != last)
				n = 0
			last = addr
			if (line ~ / \(inlined\)$/) {
				sub(/ \(inlined\)$/, "", line)
				nm[++n] = line
				next
			}
			match(line, / \([^()]*\)$/)
			dso = substr(line, RSTART + 2, RLENGTH - 3)
			nm[++n] = substr(line, 1, RSTART - 1)
			flush()
		}' | sort -u
}

# our_frames: the same from symtool for the offsets on stdin ("0xOFF").
our_frames() {
	"$TPROG/symtool" -a "$BIN" | awk -F'\t' '
		/^0x/ { if (s != "") print s; s = $0; sub(/^0x0*/, "", s); next }
		{ s = s "|" $1 }
		END { if (s != "") print s }' | sort -u
}

# check_frames: every place of $BIN in perf's stacks is named as perf
# names it, inlined frames included.
check_frames() {
	perf_frames >perf.frames
	[[ $(wc -l <perf.frames) -ge 10 ]] ||
		fail "perf script shows only $(wc -l <perf.frames) places in $BIN"
	cut -d'|' -f1 perf.frames | sed 's/^/0x/' | our_frames >ours.frames
	run -0 diff perf.frames ours.frames
	# what the comparison was about: inlined trait methods and the
	# generic's two instances, demangled
	run -0 cat perf.frames
	assert_line --regexp '\|<hot::numbers::Sum as hot::numbers::Acc>::add\|'
	assert_line --regexp '\|<hot::numbers::Xor as hot::numbers::Acc>::add\|'
	refute_output --regexp '_ZN|_R[A-Z]|17h[0-9a-f]{16}E|::h[0-9a-f]{16}|\.llvm\.'
}

# check_rows [VIEW...]: our procedures rows of perf's recording, read as
# a profile, are perf report's (--sort sym), sample for sample.
check_rows() {
	perf report -i "$DATA" --stdio --no-children --sort dso,sym \
		-F sample,dso,sym -g none -q 2>/dev/null |
		awk -v d="${BIN##*/}" '$2 == d && $3 == "[.]" {
			n = $1; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, "")
			print n, $0 }' | sort >perf.rows
	run -0 --separate-stderr "$UPROFILE" -i "$DATA" --format json
	json_check <<<"$output"
	jq -r --arg o "/${BIN##*/}" '.rows[] | select(.object | endswith($o)) |
		"\(.samples["cpu-clock"]) \(.procedure)"' <<<"$output" |
		sort >ours.rows
	run -0 diff perf.rows ours.rows
}

@test "Rust legacy mangling: rows as perf report's, the generic's two instances two rows" {
	setup_rust legacy
	check_rows
	run -0 grep -c ' hot::numbers::accumulate$' ours.rows
	assert_output 2
	# -numbers tells them apart
	run -0 --separate-stderr "$UPROFILE" -i "$DATA" -numbers -only 'hot::numbers::accumulate'
	run -0 grep -cE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ 0x[0-9a-f]+ +hot::numbers::accumulate ' <<<"$output"
	assert_output 2
}

@test "Rust v0 mangling: rows as perf report's (hot::numbers::accumulate::<hot::numbers::Xor>)" {
	setup_rust v0
	check_rows
	run -0 cat ours.rows
	assert_line --regexp '^[0-9]+ hot::numbers::accumulate::<hot::numbers::Sum>$'
	assert_line --regexp '^[0-9]+ hot::numbers::accumulate::<hot::numbers::Xor>$'
}

@test "Rust legacy mangling: every frame perf shows, inlined ones too, has perf's name (no hash, no .llvm suffix)" {
	setup_rust legacy
	check_frames
	# the locals LLVM renamed (NAME.llvm.DIGITS: rustc 1.63's
	# lang_start closure, std's functions) are named without the
	# suffix, as perf names the one in the stacks
	nm "$BIN" | awk '$2 ~ /^[tT]$/ && $3 ~ /^_ZN.*E\.llvm\.[0-9]+$/ {
		print "0x" $1 }' >llvm.addrs
	[[ -s llvm.addrs ]] || return 0	# newer rustc: none in the program
	run -0 "$TPROG/symtool" --vaddr "$BIN" <llvm.addrs
	refute_output --partial '.llvm.'
	refute_line --regexp '^(_ZN|\?\?)'
}

@test "Rust v0 mangling: every frame perf shows, inlined ones too, has perf's name" {
	setup_rust v0
	check_frames
}

@test "Rust -inline rows: inner [inlined into outer] as perf script's sampled frames, sample for sample" {
	local m
	for m in legacy v0; do
		setup_rust $m
		# perf script: each sample's first frames, at its address
		# (perf prints inlined ones of other objects' frames with no
		# out-of-line frame after them: such a sample is left out)
		perf script -i "$DATA" -F ip,sym,dso --inline 2>/dev/null |
			awk -v p="$BIN" '
			NF == 0 { first = 1; n = 0; at = ""; next }
			!first { next }
			at != "" && $1 != at { first = 0; next }
			{
				at = $1
				line = $0; sub(/^[ \t]*[0-9a-f]+ /, "", line)
				if (line ~ / \(inlined\)$/) {
					sub(/ \(inlined\)$/, "", line)
					if (!n++) inner = line
					next
				}
				first = 0
				match(line, / \([^()]*\)$/)
				if (substr(line, RSTART + 2, RLENGTH - 3) != p)
					next
				outer = substr(line, 1, RSTART - 1)
				print (n ? inner " [inlined into " outer "]" : outer)
			}' | sort | uniq -c | awk '{ n = $1; $1 = ""; print n $0 }' |
			sort >perf.rows
		run -0 --separate-stderr "$UPROFILE" -i "$DATA" -inline --format json
		jq -r --arg o "/${BIN##*/}" '.rows[] | select(.object | endswith($o)) |
			"\(.samples["cpu-clock"]) \(.procedure)\(if .inlined_into then " [inlined into \(.inlined_into)]" else "" end)"' \
			<<<"$output" | sort >ours.rows
		# rows of one name inlined into the two instances are two
		# here: perf names the instances alike (legacy), so sum
		awk '{ n = $1; $1 = ""; s[$0] += n } END { for (k in s) print s[k] k }' \
			ours.rows | sort >ours.summed
		awk '{ n = $1; $1 = ""; s[$0] += n } END { for (k in s) print s[k] k }' \
			perf.rows | sort >perf.summed
		diff perf.summed ours.summed >&2 ||
			fail "$m: -inline rows differ from perf script's"
		run -0 cat ours.rows
		assert_line --regexp "^[0-9]+ <hot::numbers::Xor as hot::numbers::Acc>::add \[inlined into hot::numbers::accumulate(::<hot::numbers::Xor>)?\]$"
	done
}

@test "Rust: -callers takes perf's name of an inlined method; folded and pprof carry demangled names" {
	local m
	for m in legacy v0; do
		setup_rust $m
		run -0 --separate-stderr "$UPROFILE" -i "$DATA" -inline \
			-callers '<hot::numbers::Xor as hot::numbers::Acc>::add'
		assert_output --regexp "callers, by cpu-clock:"
		assert_line --regexp "^<hot::numbers::Xor as hot::numbers::Acc>::add: total [0-9.]+% "
		assert_line --regexp " hot::numbers::accumulate(::<hot::numbers::Xor>)?$"
		run -0 --separate-stderr "$UPROFILE" -i "$DATA" --format folded
		assert_output --regexp ';hot::main;hot::numbers::accumulate[^;]*;<hot::numbers::Sum as hot::numbers::Acc>::add_\[i\]'
		refute_output --regexp '_ZN|_R[A-Z]|17h[0-9a-f]{16}E|::h[0-9a-f]{16}|\.llvm\.'
	done
	command -v go >/dev/null ||
		skip "go is not installed (golang-go): go tool pprof reads the export"
	run -0 --separate-stderr "$UPROFILE" -i "$DATA" --format pprof -report-file p.pb.gz
	run -0 --separate-stderr go tool pprof -traces p.pb.gz
	assert_output --partial '<hot::numbers::Xor as hot::numbers::Acc>::add'
	assert_output --partial 'hot::numbers::accumulate::<hot::numbers::Xor>'
	refute_output --regexp '_ZN|_R[A-Z]|17h[0-9a-f]{16}E|::h[0-9a-f]{16}|\.llvm\.'
}
