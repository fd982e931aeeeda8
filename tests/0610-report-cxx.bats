#!/usr/bin/env bats
# C++: symbol-table names are demangled, as every other tool shows them.

load helpers

@test "C++ procedures are demangled (no debug info: symbol table names)" {
	skip_unless_perf_works
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >hot.cc <<'CC'
#include <chrono>
namespace work {
struct Spinner {
	__attribute__((noinline)) unsigned long spin(int ms);
};
unsigned long Spinner::spin(int ms)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(ms);
	volatile unsigned long x = 0;
	while (std::chrono::steady_clock::now() < end)
		for (int i = 0; i < 20000; i++)
			x = x + i;
	return x;
}
}
int main() { work::Spinner s; return s.spin(400) == 42; }
CC
	g++ -O1 -g0 -o hot hot.cc || fail "g++ failed"
	run -0 "$UPROFILE" -quiet -e cpu-clock --format json -procedures ./hot
	run -0 jq -r '.rows[0].procedure' <<<"$output"
	assert_output 'work::Spinner::spin(int)'
}
