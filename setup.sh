#!/bin/bash
# Set up a Debian 12 machine for the profiler suite, build it, and run the
# demo or the tests.
#
#   ./setup.sh deps    install the missing Debian packages, for building
#                      and for the tests (needs root), and the tests' npm
#                      packages (into build/npm)
#   ./setup.sh demo    what building needs + build + profile the bundled
#                      demo program
#   ./setup.sh test    all packages + build + run the test suite (bats,
#                      through tests/run: two test files at a time)
#
# Environment: BUILD=build-san builds with sanitizers (make SANITIZE=1)
# and runs the demo or the tests with that build; BATS_FLAGS adds options
# to bats (e.g. --tap).
set -euo pipefail
cd "$(dirname "$0")"

# Debian package -> why it is needed.  Building and the demo need only
# the first list; the tests need the second too.
BUILD_PACKAGES=(
	build-essential # gcc, make, the static C library (test programs)
	pkg-config
	libelf-dev
	libdwarf-dev
	libzydis-dev    # x86-64 decoder: basic blocks (symbolize/decode_x86.c)
	libcapstone-dev # AArch64 decoder (symbolize/decode_arm64.c)
	zlib1g-dev
	libzstd-dev     # perf record -z recordings (common/engine/perfdata.c)
	libpfm4-dev     # native event names (INST_RETIRED:ANY_P) per CPU model
	libiberty-dev   # C++ names demangled as perf shows them (no parameters)
	libdebuginfod-dev # debug info fetched by build-id (symbolize/debuginfod.c)
	libbpf-dev      # Python frames copied at the sample (common/engine/perfbpf.c)
	clang           # builds that BPF program (common/engine/bpf/)
)
TEST_PACKAGES=(
	binutils        # objdump, strip, readelf for tests
	elfutils        # eu-readelf, eu-addr2line for tests
	bats bats-support bats-assert
	parallel        # tests/run: bats runs two test files at a time
	jq              # JSON report checks
	bash-completion # tests: the completion script
	zsh             # tests: the zsh completion
	fish            # tests: the fish completion
	dpkg-dev        # tests: dpkg-buildpackage builds the Debian package
	debhelper       # debian/rules (dh)
	lintian         # tests: the package passes lintian
	mandoc          # tests: mandoc -Tlint checks the man pages
	man-db          # tests: man -l renders them (with groff)
	python3         # tests: crafting damaged profiles, signal set-up
	gcc-multilib    # tests: a 32-bit program's call stacks (gcc -m32)
	libclang-rt-dev # make fuzz: clang's libFuzzer and sanitizer runtimes
	linux-perf      # reference profiler for tests and bench
	valgrind        # the sim engine and -pixie; oracle in tests
	hyperfine       # bench only
	util-linux      # setpriv, unshare
	procps          # ps, pgrep
	strace          # tests: SIGKILL injected while a file is written
	golang-go       # tests: go tool pprof reads --format pprof
	rustc           # tests: Rust programs' names (both manglings) against perf's
	nodejs          # tests: node --perf-basic-prof names its JIT code
	curl            # tests: the README's upload of a pprof export
	libxml2-utils   # tests: xmllint checks --format flamegraph
	chromium        # tests: the flame graph rendered headless
	debuginfod      # tests: a local server for the debuginfod fetches
	python3-jsonschema # tests: speedscope-check reads speedscope's schema
)
# npm (tests: installs speedscope and profiler-cli, below) comes with
# NodeSource's nodejs, which conflicts with Debian's npm package: that one
# only when missing.
command -v npm >/dev/null || TEST_PACKAGES+=(npm)

# npm packages for the tests, installed into $NPM_PREFIX (git-ignored,
# under build/) by npm_deps: speedscope, whose schema, importer and page
# check --format speedscope (tests/tools/speedscope-check and
# speedscope-view.sh); the Firefox Profiler's command line, whose loader
# and call tree check --format firefox (tests/0696-export-firefox.bats;
# it asks for node >= 24 and runs under node 20, npm warning
# EBADENGINE).
NPM_PREFIX=build/npm
NPM_PACKAGES=(
	speedscope@1.25.0
	@firefox-devtools/profiler-cli@0.10.0
)

# The packages of the lists named ($@) that are not installed.
missing_packages() {
	local list p
	for list in "$@"; do
		local -n pkgs=$list
		for p in "${pkgs[@]}"; do
			dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
				grep -q '^install ok installed$' || echo "$p"
		done
	done
}

# Install what the lists named ($@) hold and this machine lacks.
deps() {
	local missing
	missing=$(missing_packages "$@" | paste -sd ' ')
	[[ -z $missing ]] && return 0
	if [[ $(id -u) -ne 0 ]]; then
		echo "setup.sh: missing Debian packages; install them with:" >&2
		echo "  sudo apt-get install -y --no-install-recommends $missing" >&2
		exit 1
	fi
	echo "setup.sh: installing $missing" >&2
	apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing
}

# Install the NPM_PACKAGES that $NPM_PREFIX lacks (at their pinned version).
npm_deps() {
	local spec name version have
	for spec in "${NPM_PACKAGES[@]}"; do
		name=${spec%@*} version=${spec##*@}
		have=$(node -p 'require(process.argv[1]).version' \
			"$PWD/$NPM_PREFIX/node_modules/$name/package.json" 2>/dev/null || :)
		[[ $have == "$version" ]] && continue
		echo "setup.sh: installing $spec into $NPM_PREFIX/" >&2
		mkdir -p "$NPM_PREFIX"
		npm install --prefix "$NPM_PREFIX" --no-audit --no-fund \
			--loglevel=error "$spec" >&2
	done
}

BUILD=${BUILD:-build}
export BUILD

build() {
	echo "setup.sh: building in $BUILD/" >&2
	if [[ $BUILD == build-san ]]; then
		make -s -j2 SANITIZE=1 >/dev/null
	else
		make -s -j2 >/dev/null
	fi
}

case ${1:-} in
deps)
	deps BUILD_PACKAGES TEST_PACKAGES
	npm_deps
	;;
demo)
	deps BUILD_PACKAGES
	build
	bin=$(realpath "$BUILD")
	mkdir -p "$bin/demo"
	cd "$bin/demo"
	"$bin/uprofile" -display "$bin/tests/demo"
	echo
	echo "setup.sh: the profile is $PWD/umon.out; other views of it:"
	echo "  $bin/uprofile -i $PWD/umon.out -lines      # per source line"
	echo "  $bin/uprofile -i $PWD/umon.out -blocks     # per basic block"
	echo "  $bin/uprofile -i $PWD/umon.out -asm -quit 1  # instructions"
	echo "exact counts, freq and time per execution (runs it twice; needs"
	echo "valgrind, which ./setup.sh deps installs):"
	echo "  $bin/uprofile -pixie -average -quit 8 freq $bin/tests/demo 0.1"
	echo "call stacks (who called what), then the call tree:"
	echo "  $bin/uprofile -g -o g.out $bin/tests/demo && $bin/uprofile -i g.out -tree"
	echo "the same stacks as a flame graph (open it in a browser) and for pprof"
	echo "(go tool pprof: golang-go, which ./setup.sh deps installs):"
	echo "  $bin/uprofile -i g.out --format flamegraph -report-file g.svg"
	echo "  $bin/uprofile -i g.out --format pprof -report-file g.pb.gz && go tool pprof -top g.pb.gz"
	;;
test)
	deps BUILD_PACKAGES TEST_PACKAGES
	npm_deps
	build
	# two test files at a time, those of the whole system alone (tests/run)
	# shellcheck disable=SC2086
	exec tests/run ${BATS_FLAGS:-}
	;;
*)
	echo "usage: $0 deps|demo|test" >&2
	exit 2
	;;
esac
