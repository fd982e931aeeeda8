#!/usr/bin/env bats
# Processes whose files live in another mount namespace (containers):
# the file a process mapped is read through /proc/PID (map_files, else
# root) while it runs, and carried in the profile, so the report names
# its code although the path here holds another file or none.  The
# container here: unshare -m with a tmpfs over a directory of the test.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
	skip_unless_root
	mkdir ns
}

# in_ns CMD...: CMD where ./ns is a tmpfs holding spin2 as ./ns/prog.
in_ns() {
	unshare -m bash -c 'mount -t tmpfs none "$0/ns" &&
		cp "$1" "$0/ns/prog" && shift && exec "$@"' \
		"$PWD" "$TPROG/spin2" "$@"
}

procedures() {
	jq -r '[.rows[] | select(.object == $o) | .procedure] | unique[]' \
		--arg o "$PWD/ns/prog" <<<"$1"
}

@test "a program that exists only in its mount namespace: its procedures and lines" {
	# (in_ns is a function: uprofile runs it through bash)
	export -f in_ns
	export TPROG
	run -0 "$UPROFILE" -quiet -e cpu-clock bash -c 'in_ns "$PWD/ns/prog" 800'
	[[ ! -e ns/prog ]] || fail "the program is visible here"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	json=$output
	run -0 procedures "$json"
	assert_line hot_a
	assert_line hot_b
	assert_split "$json" hot_a hot_b 75 10
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --format json
	run -0 jq -r '[.rows[] | select(.procedure == "hot_a") | "\(.file | split("/") | last):\(.line)"] | unique[]' <<<"$output"
	assert_line spin2.c:45
}

@test "another file at the same path here is not used for the container's" {
	cp "$TPROG/inline" ns/prog
	export -f in_ns
	export TPROG
	run -0 "$UPROFILE" -quiet -e cpu-clock bash -c 'in_ns "$PWD/ns/prog" 600'
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	run -0 procedures "$output"
	assert_line hot_a
	refute_line --regexp 'inner_kernel|outer_driver'
}

@test "-p PID of a process in another mount namespace" {
	export -f in_ns
	export TPROG
	bash -c 'in_ns "$PWD/ns/prog" 3000' &
	local started=$!
	# the process in the namespace: spin2's own pid (bash execs it)
	wait_until 60 "the process in the namespace" \
		pgrep -f "^$PWD/ns/prog 3000\$" >/dev/null
	pid=$(pgrep -f "^$PWD/ns/prog 3000\$")
	run -0 "$UPROFILE" -quiet -e cpu-clock -p "$pid" -d 1
	wait "$started"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	run -0 procedures "$output"
	assert_line hot_a
}

@test "files of our own mount namespace are not copied into the profile" {
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/spin2" 300
	# libc alone is over a megabyte compressed
	(($(stat -c %s umon.out) < 100000)) || fail "$(stat -c %s umon.out) bytes"
}
