#!/usr/bin/env bats
# The man pages (man/*, mdoc; `make man` writes build/man/*): they lint
# clean, render without warnings, list exactly the options --help lists,
# each under the heading --help shows it under, the headings in the same
# order, and show the one version (the VERSION file's) that --version
# prints.

load helpers

PAGES=(uprofile.1 kprofile.1 umon.out.5 uprofile-statistics.7)
MAN_DIR=$ROOT/build/man

setup_file() {
	# The pages are built by `make`; rebuild any older than its source.
	make -s -C "$ROOT" man >/dev/null
}

# The headings of the groups of options, in the order --help and the
# pages' OPTIONS show them (the shared tables of common/cli/options.c and
# argp's own options): what a user is doing.
OPTION_GROUPS=("What to profile" "Statistics and sampling" "Output files" "Reports"
	"Combining profiles" "Symbols and debug information" "Messages" "Help")

# help_groups TEXT: each option a --help output lists, as "HEADING<tab>-x"
# and "HEADING<tab>--long", in the order shown, up to its examples.  A
# heading is a group's title without its colon and any " (note)":
# " Reports (the views ... imply -display):" is "Reports".
help_groups() {
	local line group=""
	while IFS= read -r line; do
		[[ $line == Examples:* ]] && break
		if [[ $line =~ ^\ ([A-Z][^:]*):$ ]]; then
			group=${BASH_REMATCH[1]%% (*}
		elif [[ $line =~ ^\ \ (-[^-\ ])(,\ (--[a-z][a-z-]*))? ]]; then
			printf '%s\t%s\n' "$group" "${BASH_REMATCH[1]}"
			if [[ -n ${BASH_REMATCH[3]} ]]; then
				printf '%s\t%s\n' "$group" "${BASH_REMATCH[3]}"
			fi
		elif [[ $line =~ ^\ {6}(--[a-z][a-z-]*) ]]; then
			printf '%s\t%s\n' "$group" "${BASH_REMATCH[1]}"
		fi
	done <<<"$1"
}

# help_options TEXT: the options a --help output lists, one a line
# (-x and --long), up to its examples.
help_options() {
	help_groups "$1" | cut -f2 | sort -u
}

# page_groups PAGE: each option a page's OPTIONS section lists (the .Fl
# of its .It lines, as --help spells them), as "HEADING<tab>OPTION", the
# heading its .Ss.
page_groups() {
	awk '/^\.Sh / { f = ($2 == "OPTIONS") }
	     f && /^\.Ss / { sub(/^\.Ss /, ""); group = $0 }
	     f && /^\.It / {
		line = $0
		while (match(line, /Fl (\\-)?[A-Za-z?][A-Za-z-]*/)) {
			o = substr(line, RSTART + 3, RLENGTH - 3)
			sub(/^\\-/, "-", o)
			print group "\t-" o
			line = substr(line, RSTART + RLENGTH)
		}
	     }' "$1"
}

# page_options PAGE: the options a page's OPTIONS section lists, one a
# line as --help spells them.
page_options() {
	page_groups "$1" | cut -f2 | sort -u
}

# headings LIST: the headings of a help_groups or page_groups list, in
# their order, one a line.
headings() {
	cut -f1 <<<"$1" | uniq
}

# assert_same_options TOOL PAGE: --help and the page list the same
# options, each under the same heading, the headings in the same order.
assert_same_options() {
	run -0 "$1" --help
	local help page
	help=$(help_groups "$output")
	page=$(page_groups "$2")
	# a parser that found nothing would make the comparison vacuous
	[[ $(wc -l <<<"$help") -gt 40 ]] ||
		fail "only $(wc -l <<<"$help") options found in --help"
	run comm -23 <(sort -u <<<"$help") <(sort -u <<<"$page")
	assert_output ""	# in --help, missing from the page there
	run comm -13 <(sort -u <<<"$help") <(sort -u <<<"$page")
	assert_output ""	# in the page, not there in --help
	assert_equal "$(headings "$page")" "$(headings "$help")"
	assert_equal "$(headings "$help")" "$(printf '%s\n' "${OPTION_GROUPS[@]}")"
}

@test "mandoc -Tlint: every page clean (warnings and errors)" {
	command -v mandoc >/dev/null ||
		skip "mandoc is missing (./setup.sh deps installs it)"
	local p
	for p in "${PAGES[@]}"; do
		[[ -f $MAN_DIR/$p ]] || fail "$p was not built"
		# STYLE messages are left out: they depend on the pages
		# installed on this machine (Xr targets) and on BSD's habits
		run mandoc -Tlint -Wwarning "$MAN_DIR/$p"
		assert_output ""
		[[ $status -eq 0 ]] || fail "mandoc -Tlint $p: status $status"
	done
}

@test "man -l: every page renders without warnings, with the version" {
	command -v man >/dev/null ||
		skip "man is missing (./setup.sh deps installs man-db)"
	local p version
	version=$(<"$ROOT/VERSION")
	for p in "${PAGES[@]}"; do
		run -0 --separate-stderr env MANWIDTH=80 man -l "$MAN_DIR/$p"
		[[ -z $stderr ]] || fail "man -l $p: $stderr"
		# the footer: .Os uprofile @VERSION@
		assert_line --regexp "^uprofile $version .* uprofile $version\$"
		[[ $output == *NAME*DESCRIPTION*"SEE ALSO"* ]] ||
			fail "$p: NAME, DESCRIPTION or SEE ALSO missing"
	done
}

@test "uprofile(1) lists the options of uprofile --help, under its headings" {
	assert_same_options "$UPROFILE" "$MAN_DIR/uprofile.1"
}

@test "kprofile(1) lists the options of kprofile --help, under its headings" {
	assert_same_options "$KPROFILE" "$MAN_DIR/kprofile.1"
}

@test "merge, diff and archive are under 'Combining profiles', in --help and the pages" {
	local tool list o
	for tool in uprofile kprofile; do
		run -0 "$ROOT/$BUILD/$tool" --help
		for list in "$(help_groups "$output")" \
			"$(page_groups "$MAN_DIR/$tool.1")"; do
			for o in --merge --diff --archive --alpha --fail-above; do
				grep -qxF -- "Combining profiles"$'\t'"$o" <<<"$list" ||
					fail "$tool: $o not under Combining profiles"
			done
			# and what to profile is only that
			run -0 grep $'^What to profile\t' <<<"$list"
			assert_output "$(printf 'What to profile\t%s\n' \
				--control -d --duration --kernel -p --pid \
				--start-after -t --triggered --user)"
		done
	done
}

@test "the parity check sees a missing and an extra option" {
	# uprofile's page against kprofile's help: -pixie, -engine are only
	# in the page, -k and -ra-routines only in the help
	run -0 "$KPROFILE" --help
	run comm -3 <(help_options "$output") \
		<(page_options "$MAN_DIR/uprofile.1")
	assert_line --regexp '^-k$'
	assert_line --regexp '^--ra-routines$'
	assert_line --regexp $'^\t--pixie$'
	assert_line --regexp $'^\t--engine$'
}

@test "the parity check sees an option under another heading" {
	# the page with its "Combining profiles" named "What to profile"
	sed 's/^\.Ss Combining profiles$/.Ss What to profile/' \
		"$MAN_DIR/uprofile.1" >moved.1
	run -0 "$UPROFILE" --help
	run comm -3 <(help_groups "$output" | sort -u) \
		<(page_groups moved.1 | sort -u)
	assert_line $'Combining profiles\t--merge'
	assert_line $'\tWhat to profile\t--merge'
	run -0 page_groups moved.1
	run -0 headings "$output"
	[[ $(grep -c '^What to profile$' <<<"$output") -eq 2 ]] ||
		fail "the headings: $output"
}

@test "one version: --version, the pages and the Debian changelog" {
	local version
	version=$(<"$ROOT/VERSION")
	[[ $version =~ ^[0-9]+(\.[0-9]+)+$ ]] || fail "VERSION: '$version'"
	run -0 "$UPROFILE" --version
	assert_output "uprofile $version"
	run -0 "$KPROFILE" --version
	assert_output "kprofile $version"
	run -0 head -n 1 "$ROOT/debian/changelog"
	assert_output --regexp "^uprofile \($version\) "
	local p
	for p in "${PAGES[@]}"; do
		# the source names no version of its own; the built page has it
		run -0 grep -c '^\.Os uprofile @VERSION@$' "$ROOT/man/$p"
		assert_output 1
		run grep -c '@VERSION@' "$MAN_DIR/$p"
		assert_output 0
		run -0 grep -c "^\\.Os uprofile $version\$" "$MAN_DIR/$p"
		assert_output 1
	done
}

@test "each page's .Dd is the date of its last change" {
	git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
		skip "not a git checkout: no history to date the pages by"
	local p d when last
	for p in "${PAGES[@]}"; do
		run -0 sed -n 's/^\.Dd //p' "$ROOT/man/$p"
		d=$output
		[[ $d =~ ^[A-Z][a-z]+\ [0-9]{1,2},\ [0-9]{4}$ ]] ||
			fail "$p: .Dd '$d' is not 'Month D, YYYY'"
		when=$(TZ=UTC date -d "$d" +%s) || fail "$p: .Dd '$d' is no date"
		# the last commit that changed the page, or now for a page
		# changed since
		if git -C "$ROOT" diff --quiet HEAD -- "man/$p"; then
			run -0 git -C "$ROOT" log -1 --format=%ct -- "man/$p"
			last=$output
		else
			last=$(date +%s)
		fi
		[[ -n $last ]] || last=$(date +%s)
		# within a day either way: time zones differ
		((when >= last - 2 * 86400 && when <= last + 86400)) ||
			fail "$p: .Dd '$d', but last changed $(TZ=UTC date -d "@$last" '+%B %-d, %Y')"
	done
}

@test "the profile records the version that wrote it (tool_version)" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -o p.umon "$TPROG/spin2" 100
	run -0 "$UPROFILE" -i p.umon --format json -report-file r.json
	run -0 jq -r '.tool_version' r.json
	assert_output "$(<"$ROOT/VERSION")"
	# a merged profile keeps it
	run -0 "$UPROFILE" -quiet --merge m.umon p.umon p.umon
	run -0 "$UPROFILE" -i m.umon --format json -report-file m.json
	run -0 jq -r '.tool_version' m.json
	assert_output "$(<"$ROOT/VERSION")"
}
