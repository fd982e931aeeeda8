#!/usr/bin/env bats
# The Debian package (debian/): built out of tree from the tracked sources
# with dpkg-buildpackage, checked with lintian, its contents listed with
# dpkg-deb -c, and its binaries run from the unpacked package.  One build
# for the whole file (setup_file): it takes a minute or more.

load helpers

setup_file() {
	command -v dpkg-buildpackage >/dev/null ||
		skip "dpkg-buildpackage is missing (./setup.sh deps installs dpkg-dev)"
	[[ -e /usr/share/perl5/Debian/Debhelper/Dh_Lib.pm ]] ||
		skip "debhelper is missing (./setup.sh deps installs it)"
	local src=$BATS_FILE_TMPDIR/src
	mkdir -p "$src"
	# the tracked files only: the repository itself is not touched, the
	# .deb lands next to the copy
	(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$src") ||
		return 1
	(cd "$src" && dpkg-buildpackage -us -uc -b) \
		>"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
		echo failed >"$BATS_FILE_TMPDIR/build.failed"
	DEB=$(ls "$BATS_FILE_TMPDIR"/uprofile_*.deb 2>/dev/null) || DEB=
	export DEB
}

setup() {
	common_setup
	if [[ -e $BATS_FILE_TMPDIR/build.failed ]]; then
		tail -n 30 "$BATS_FILE_TMPDIR/build.log" >&3
		fail "dpkg-buildpackage failed (log above)"
	fi
	[[ -n $DEB && -f $DEB ]] || fail "no uprofile_*.deb was built"
}

@test "debian/changelog's version is the VERSION file's" {
	run -0 dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version
	assert_output "$(<"$ROOT/VERSION")"
	[[ $(basename "$DEB") == uprofile_"$(<"$ROOT/VERSION")"_*.deb ]] ||
		fail "package file $DEB has another version"
}

@test "the package: the files install puts there, shared-library dependencies" {
	run -0 dpkg-deb -c "$DEB"
	local f
	for f in ./usr/bin/uprofile ./usr/bin/kprofile \
		./usr/share/bash-completion/completions/uprofile \
		./usr/share/bash-completion/completions/kprofile \
		./usr/share/zsh/vendor-completions/_uprofile \
		./usr/share/fish/vendor_completions.d/uprofile.fish \
		./usr/share/fish/vendor_completions.d/kprofile.fish \
		./usr/share/doc/uprofile/copyright \
		./usr/share/doc/uprofile/docs/examples/ci-check.sh; do
		assert_line --regexp " $f\$"
	done
	assert_line --regexp ' ./usr/share/doc/uprofile/README.md(.gz)?$'
	for f in man1/uprofile.1 man1/kprofile.1 man5/umon.out.5 \
		man7/uprofile-statistics.7; do
		assert_line --regexp " \./usr/share/man/$f(\.gz)?\$"
	done
	# nothing outside /usr, no build tree
	refute_line --regexp ' \./(etc|opt|build|home|tmp)/'
	# ${shlibs:Depends} filled in from the binaries' libraries
	run -0 dpkg-deb -f "$DEB" Depends
	assert_output --partial 'libc6'
	assert_output --partial 'libelf1'
	assert_output --partial 'libdwarf'
	refute_output --partial 'shlibs:'
}

@test "lintian: no errors, no warnings but the justified overrides" {
	command -v lintian >/dev/null ||
		skip "lintian is missing (./setup.sh deps installs it)"
	local o
	# every override carries its one-line justification above it
	for o in "$ROOT"/debian/*lintian-overrides; do
		[[ -e $o ]] || continue
		awk '!/^#/ && NF && prev !~ /^#/ { print FILENAME ": " $0; bad = 1 }
			{ prev = $0 } END { exit bad }' "$o" ||
			fail "an override without a justification"
	done
	run -0 lintian --fail-on none "$DEB"
	local tags=$output
	# with the man pages in the package, no-manual-page is a warning
	# like any other
	run grep -E '^[EW]: ' <<<"$tags"
	assert_output ""
}

@test "the unpacked binaries run and profile the demo" {
	skip_unless_perf_works
	run -0 dpkg-deb -x "$DEB" root
	run -0 root/usr/bin/uprofile --version
	assert_output "uprofile $(<"$ROOT/VERSION")"
	run -0 root/usr/bin/kprofile --version
	assert_output "kprofile $(<"$ROOT/VERSION")"
	# the README's demo, shortened (SCALE 0.1: about 0.2 s of CPU)
	run -0 root/usr/bin/uprofile -display "$TPROG/demo" 0.1
	assert_output --partial matrix_multiply
	assert_output --partial insertion_sort
	[[ -s umon.out ]] || fail "no umon.out"
	run -0 root/usr/bin/uprofile -i umon.out -quit 2
	assert_output --partial matrix_multiply
}
