#!/bin/bash
# How fast are uprofile's code views, against perf on the same run?
#
# Usage: bench/report-speed.sh [-k DIR]
#
# Writes a C++ file of nested templates and std containers, compiles it
# with g++ -O2 (a few seconds) under perf record and under uprofile, both
# with cpu-clock at FREQ Hz, then times, interleaved RUNS times, each
# report against perf's nearest one on its own profile:
#
#   uprofile -i umon.out -procedures    perf report --stdio --sort sym
#   uprofile -i umon.out -lines         perf report --stdio --sort srcline
#   uprofile -i umon.out -asm -only F   perf annotate --stdio F
#   uprofile -i umon.out -blocks        perf report --stdio --sort sym
#   uprofile -i umon.out -asm           perf report --stdio --sort sym
#
# F is perf's hottest user-space symbol (or $FUNC).  perf annotate of
# every symbol has no row here: on a g++ profile it takes minutes.  Each
# figure is the median wall time and maximum resident size
# (/usr/bin/time); the ratio is uprofile's over perf's.  The work
# directory is temporary unless -k DIR keeps it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$root/$BUILD
RUNS=${RUNS:-3}
FREQ=${FREQ:-1000}
uprofile=$BUILD/uprofile
for tool in perf g++ /usr/bin/time; do
	command -v "$tool" >/dev/null || {
		echo "report-speed: '$tool' is not installed" >&2
		exit 125
	}
done
[[ -x $uprofile ]] || {
	echo "report-speed: '$uprofile' missing; run make" >&2
	exit 125
}
if [[ ${1:-} == -k ]]; then
	mkdir -p "$2"
	dir=$(cd "$2" && pwd)
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
cd "$dir"

cat > work.cpp <<'EOF'
#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>
template <int N> struct Gen {
	std::map<std::string, std::vector<int>> m;
	std::unordered_map<int, std::set<std::string>> u;
	std::regex r{"a+b*"};
	int run(const std::string &s)
	{
		m[s].push_back(N);
		u[N].insert(s);
		std::sort(m[s].begin(), m[s].end(), std::greater<int>());
		std::ostringstream os;
		os << s << N;
		std::variant<int, std::string, double> v = os.str();
		return (int)m.size() + std::regex_match(s, r) +
		       (int)std::get<std::string>(v).size() +
		       Gen<N - 1>().run(s + "x");
	}
};
template <> struct Gen<0> {
	int run(const std::string &) { return 0; }
};
int main() { return Gen<40>().run("a") & 1; }
EOF

echo "profiling: g++ -O2 -c work.cpp (perf record, then uprofile)" >&2
perf record -q -F "$FREQ" -e cpu-clock -o perf.data -- \
	g++ -O2 -c work.cpp -o perf.o 2>/dev/null
"$uprofile" -quiet -F "$FREQ" -e cpu-clock -o umon.out \
	g++ -O2 -c work.cpp -o umon.o
perf report -i perf.data --stdio --sort sym -q > perf-report.txt 2>/dev/null
func=${FUNC:-$(awk '$2 == "[.]" && $3 !~ /^0x/ { print $3; exit }' \
	perf-report.txt)}
[[ -n $func ]] || {
	echo "report-speed: no user-space symbol in perf's report" >&2
	exit 1
}

# measure NAME COMMAND...: one run, "seconds kilobytes" appended to NAME.
measure()
{
	local name=$1
	shift
	/usr/bin/time -o time.tmp -f "%e %M" "$@" > /dev/null 2>&1
	tail -n 1 time.tmp >> "$name.times"
}

# median NAME COLUMN
median()
{
	sort -n -k "$2" "$1.times" | awk -v c="$2" \
		'{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

for ((i = 0; i < RUNS; i++)); do
	measure procedures "$uprofile" -i umon.out -procedures
	measure lines "$uprofile" -i umon.out -lines
	measure srcline perf report -i perf.data --stdio --sort srcline
	measure asm-only "$uprofile" -i umon.out -asm -only "$func"
	measure annotate perf annotate -i perf.data --stdio "$func"
	measure blocks "$uprofile" -i umon.out -blocks
	measure report perf report -i perf.data --stdio --sort sym
	measure asm "$uprofile" -i umon.out -asm
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs;" \
     "F = $func; median of $RUNS runs"
printf '%-36s %9s %9s %-30s %9s %9s %7s %7s\n' uprofile s MB perf s MB \
	"s x" "MB x"
row()
{
	local ours=$1 label=$2 theirs=$3 plabel=$4
	local s1 m1 s2 m2
	s1=$(median "$ours" 1)
	m1=$(median "$ours" 2)
	s2=$(median "$theirs" 1)
	m2=$(median "$theirs" 2)
	awk -v l="$label" -v pl="$plabel" -v s1="$s1" -v m1="$m1" \
	    -v s2="$s2" -v m2="$m2" 'BEGIN {
		printf "%-36s %9.2f %9.0f %-30s %9.2f %9.0f %7.2f %7.2f\n",
		       l, s1, m1 / 1024, pl, s2, m2 / 1024,
		       (s2 > 0 ? s1 / s2 : 0), (m2 > 0 ? m1 / m2 : 0) }'
}
row procedures "-procedures" report "report --sort sym"
row lines "-lines" srcline "report --sort srcline"
row asm-only "-asm -only F" annotate "annotate F"
row blocks "-blocks" report "report --sort sym"
row asm "-asm" report "report --sort sym"
