#!/usr/bin/env bats
# make install / make uninstall: the GNU directory variables, DESTDIR, and
# the installed tools working from where they were installed.

load helpers

# make_in_root ARG...: make in the repository with this build's settings.
make_in_root() {
	local san=()
	[[ $BUILD == build-san ]] && san=(SANITIZE=1)
	make -s -C "$ROOT" BUILD="$BUILD" "${san[@]}" "$@"
}

@test "install into DESTDIR with prefix=/usr: files in the GNU directories" {
	local d=$PWD/root
	run -0 make_in_root install DESTDIR="$d" prefix=/usr
	local f
	for f in usr/bin/uprofile usr/bin/kprofile \
		usr/share/bash-completion/completions/uprofile \
		usr/share/bash-completion/completions/kprofile \
		usr/share/zsh/vendor-completions/_uprofile \
		usr/share/fish/vendor_completions.d/uprofile.fish \
		usr/share/fish/vendor_completions.d/kprofile.fish \
		usr/share/doc/uprofile/README.md \
		usr/share/doc/uprofile/docs/exports.md \
		usr/share/doc/uprofile/docs/examples/ci-check.sh; do
		[[ -f $d/$f ]] || fail "$f not installed"
	done
	[[ -x $d/usr/bin/uprofile && -x $d/usr/bin/kprofile ]] ||
		fail "binaries not executable"
	# nothing outside prefix, nothing under the build tree's names
	run -0 find "$d" -mindepth 1 -maxdepth 1
	assert_output "$d/usr"
	# man pages, when any, by section suffix
	run -0 find "$d/usr/share" -path '*/man/*' -type f
	for f in "${lines[@]}"; do
		[[ $f =~ /man/man([0-9])/[^/]+\.([0-9])$ &&
			${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] ||
			fail "man page in the wrong section: $f"
	done
}

@test "the installed binaries run: --version, a profile of a test program" {
	skip_unless_perf_works
	local d=$PWD/root
	run -0 make_in_root install DESTDIR="$d" prefix=/usr
	run -0 "$d/usr/bin/uprofile" --version
	assert_output "uprofile $(<"$ROOT/VERSION")"
	run -0 "$d/usr/bin/kprofile" --version
	assert_output "kprofile $(<"$ROOT/VERSION")"
	run -0 "$d/usr/bin/uprofile" -quiet -e cpu-clock -o demo.umon \
		"$TPROG/demo" 0.1
	run -0 "$d/usr/bin/uprofile" -i demo.umon
	assert_output --partial matrix_multiply
	# the installed bash completion: kprofile's finds uprofile's function
	# next to it under its installed name
	run -0 bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1/usr/share/bash-completion/completions/kprofile"
		COMP_WORDS=("$1/usr/bin/kprofile" -ra-r)
		COMP_CWORD=1 COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		_profile_tool_complete
		printf "%s\n" "${COMPREPLY[@]}"' _ "$d"
	assert_output -- -ra-routines
}

@test "GNU variables: bindir, mandir's sections, docdir, completion dirs" {
	local d=$PWD/root
	mkdir m
	touch m/uprofile.1 m/umon.out.5 m/uprofile-statistics.7
	run -0 make_in_root install DESTDIR="$d" prefix=/opt/p \
		bindir=/opt/p/sbin docdir=/opt/p/doc \
		zshcompdir=/opt/p/share/zsh/site-functions \
		MAN_PAGES="$PWD/m/uprofile.1 $PWD/m/umon.out.5 $PWD/m/uprofile-statistics.7"
	run -0 find "$d" -type f
	assert_line "$d/opt/p/sbin/uprofile"
	assert_line "$d/opt/p/doc/README.md"
	assert_line "$d/opt/p/share/zsh/site-functions/_uprofile"
	assert_line "$d/opt/p/share/man/man1/uprofile.1"
	assert_line "$d/opt/p/share/man/man5/umon.out.5"
	assert_line "$d/opt/p/share/man/man7/uprofile-statistics.7"
	assert_line "$d/opt/p/share/fish/vendor_completions.d/uprofile.fish"
	run -0 make_in_root uninstall DESTDIR="$d" prefix=/opt/p \
		bindir=/opt/p/sbin docdir=/opt/p/doc \
		zshcompdir=/opt/p/share/zsh/site-functions \
		MAN_PAGES="$PWD/m/uprofile.1 $PWD/m/umon.out.5 $PWD/m/uprofile-statistics.7"
	run -0 find "$d" -type f
	assert_output ""
}

@test "uninstall removes exactly what install wrote" {
	local d=$PWD/root
	mkdir -p "$d/usr/bin" "$d/usr/share/doc"
	echo keep >"$d/usr/bin/other-tool"
	echo keep >"$d/usr/share/doc/other"
	run -0 make_in_root install DESTDIR="$d" prefix=/usr
	run -0 make_in_root uninstall DESTDIR="$d" prefix=/usr
	run -0 find "$d" -type f
	assert_equal "$(sort <<<"$output")" "$d/usr/bin/other-tool
$d/usr/share/doc/other"
	# the suite's own docdir is gone; shared directories stay
	[[ ! -e $d/usr/share/doc/uprofile ]] || fail "docdir left behind"
	[[ -d $d/usr/bin ]] || fail "bindir removed"
}
