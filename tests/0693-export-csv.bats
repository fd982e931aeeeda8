#!/usr/bin/env bats
# --format csv: the rows of every view as RFC 4180 CSV, read back with
# Python's csv module and compared, field by field, with the JSON report
# of the same view (a column's name is the field's JSON path).

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	"$UPROFILE" -quiet -g -e cpu-clock -o callers.umon \
		"$TPROG/callers" 500 || return 1
	"$UPROFILE" -quiet -e cpu-clock,task-clock -o inline.umon \
		"$TPROG/inline" 300 || return 1
}

setup() {
	common_setup
	skip_unless_perf_works
	P=$BATS_FILE_TMPDIR
}

# same_as_json UMON OPTION...: the CSV and JSON reports of UMON with the
# OPTIONs hold the same rows, in the same order, with the same figures.
same_as_json() {
	local umon=$1
	shift
	run -0 --separate-stderr "$UPROFILE" -i "$umon" --format csv "$@" \
		-report-file out.csv
	[[ -z $stderr ]] || fail "uprofile said: $stderr"
	run -0 --separate-stderr "$UPROFILE" -i "$umon" --format json "$@" \
		-report-file out.json
	run -0 python3 - out.csv out.json <<'PY'
import csv, json, math, sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    raw = f.read()
assert raw.endswith("\r\n"), "records end with CRLF"
recs = list(csv.reader(raw.splitlines(keepends=True), strict=True))
with open(sys.argv[2]) as f:
    doc = json.load(f)
rows = []
for r in doc["rows"]:
    rows.append(r)
    rows.extend(r.get("instructions", []))
head, recs = recs[0], recs[1:]
assert len(set(head)) == len(head), "a column twice: %r" % head
assert len(recs) == len(rows), "%d records, %d rows" % (len(recs), len(rows))
for n, (rec, row) in enumerate(zip(recs, rows)):
    assert len(rec) == len(head), "record %d has %d fields" % (n, len(rec))
    for name, text in zip(head, rec):
        # The JSON path; a key may hold dots: the longest one that fits.
        path = name.split(".")
        v = row
        i = 0
        while i < len(path) and isinstance(v, dict):
            for j in range(len(path), i, -1):
                key = ".".join(path[i:j])
                if key in v:
                    v, i = v[key], j
                    break
            else:
                v, i = None, len(path)
        if v is None:
            ok = text == ""
        elif isinstance(v, bool):
            ok = text == ("true" if v else "false")
        elif isinstance(v, (int, float)):
            ok = text != "" and math.isclose(float(text), v, abs_tol=1e-9)
        else:
            ok = text == v or (text == "'" + v and v[:1] in "=+-@")
        assert ok, "record %d, %s: CSV %r, JSON %r" % (n, name, text, v)
print(len(recs), "rows", len(head), "fields")
PY
	echo "$output"
	[[ $output != "0 rows"* ]] || fail "no rows: $output"
}

@test "csv: every view's rows and figures are the JSON report's (procedures with total%, two statistics)" {
	local umon view
	for umon in callers inline; do
		for view in -procedures -lines -heavy -blocks -asm; do
			same_as_json "$P/$umon.umon" "$view"
		done
	done
	same_as_json "$P/callers.umon" -asm -stride 4
	same_as_json "$P/callers.umon" -quit 3
	# The columns a user looks for.
	run -0 head -1 out.csv
	[[ $output == *kind,procedure,inlined_into,object,module,file,line,address,samples.cpu-clock,weight.cpu-clock,percent.cpu-clock,*,cumulative_percent,total_percent* ]]
	"$UPROFILE" -i "$P/inline.umon" --format csv -report-file two.csv
	run -0 head -1 two.csv
	[[ $output == *samples.cpu-clock,samples.task-clock,weight.cpu-clock,weight.task-clock,percent.cpu-clock,percent.task-clock,* ]]
}

@test "csv: a C++ template name with a comma is one quoted field" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >pair.cc <<'CC'
#include <chrono>
template <typename A, typename B>
__attribute__((noinline)) unsigned long spin(A a, B b, int ms)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(ms);
	volatile unsigned long x = a;
	while (std::chrono::steady_clock::now() < end)
		for (int i = 0; i < 20000; i++)
			x = x + i + b;
	return x;
}
int main() { return spin<int, int>(1, 2, 400) == 42; }
CC
	g++ -O1 -g -o pair pair.cc || fail "g++ failed"
	"$UPROFILE" -quiet -e cpu-clock -o pair.umon ./pair
	same_as_json pair.umon -procedures
	run -0 grep -c '^procedure,"spin<int, int>",' out.csv
	assert_output 1
	run -0 python3 -c '
import csv, sys
rows = list(csv.DictReader(open("out.csv", newline="")))
print(rows[0]["procedure"])'
	assert_output 'spin<int, int>'
}

@test "csv: the call-stack views are refused (they are no rows)" {
	run -125 --separate-stderr "$UPROFILE" -i "$P/callers.umon" \
		--format csv -tree
	[[ $stderr == *"--format csv lays out the rows of a view"* ]]
	run -125 --separate-stderr "$UPROFILE" -i "$P/callers.umon" \
		--format csv -callers leaf_work
}

@test "csv: a symbol that reads as a formula stays text (leading apostrophe)" {
	# An assembler label can name a function anything: here a formula
	# with a comma, which a spreadsheet would otherwise evaluate.
	cat >evil.c <<'C'
#include <time.h>
__attribute__((noinline)) unsigned long spin(int ms) __asm__("\"=1+1,x\"");
volatile unsigned long sink;
unsigned long spin(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 20000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return sink;
}
int main(void) { return spin(300) == 42; }
C
	cc -O1 -o evil evil.c || skip "this assembler takes no quoted symbol names"
	"$UPROFILE" -quiet -e cpu-clock -o evil.umon ./evil
	same_as_json evil.umon -procedures
	run -0 grep -c "^procedure,\"'=1+1,x\"," out.csv
	assert_output 1
}
