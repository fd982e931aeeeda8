#!/usr/bin/env bats
# C++: names are demangled as perf shows them: qualified, template arguments,
# no parameters; from the symbol table or DWARF's linkage names.

load helpers

# perf_name "NAME(PARAMS) [clone .SUFFIX]": a name of nm -C as a report
# shows it: no parameters, the clone suffix kept as in C (NAME.SUFFIX).
perf_name() {
	local name=$1 clone=""
	if [[ $name == *" [clone "*"]" ]]; then
		clone=${name##* \[clone }
		clone=${clone%]}
		name=${name% \[clone *}
	fi
	printf '%s%s\n' "${name%(*}" "$clone"
}

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
	json_check <<<"$output"
	run -0 jq -r '.rows[0].procedure' <<<"$output"
	assert_output 'work::Spinner::spin'
}

@test "C++ with debug info: qualified names from the linkage names, inlined ones too, as perf names them" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >tpl.cc <<'CC'
#include <algorithm>
#include <vector>
namespace calc {
template <typename T> struct Acc {
	T s{};
	void add(T v) { s += v * v; }
};
}
int main()
{
	std::vector<int> v(1000000);
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)((i * 2654435761u) % 100000);
	std::sort(v.begin(), v.end());
	calc::Acc<double> a;
	for (int r = 0; r < 60; r++)
		for (int x : v)
			a.add(x);
	return a.s < 0;
}
CC
	g++ -O2 -g -o tpl tpl.cc || fail "g++ failed"
	local symtool=$ROOT/$BUILD/tests/symtool a frames=""
	# an instruction of main where addr2line sees Acc<double>::add inlined
	for a in $(objdump -d --no-show-raw-insn tpl | awk '/<main>:/ { f = 1 }
		/^$/ { f = 0 } f && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }'); do
		frames=$(addr2line -C -f -i -e tpl "0x$a" | awk 'NR % 2 && NR <= 3' |
			paste -sd'|')
		[[ $frames == "calc::Acc<double>::add(double)|main" ]] && break
	done
	[[ $frames == "calc::Acc<double>::add(double)|main" ]] ||
		fail "no code of Acc<double>::add inlined into main"
	# the member function of a class template in a namespace, inlined
	run -0 "$symtool" --vaddr tpl "0x$a"
	assert_line --index 0 --regexp '^calc::Acc<double>::add	.*/tpl\.cc:6$'
	assert_line --index 1 --regexp '^main	.*/tpl\.cc:[0-9]+$'
	# the sort's out-of-line template function is named as perf names it:
	# qualified, template arguments, no parameters or return type
	local want addr
	read -r addr want < <(nm -C tpl | awk '!n && $2 ~ /^[tTwW]$/ {
		a = $1; $1 = ""; $2 = ""; sub(/^  /, "")
		if ($0 ~ /^void std::__introsort_loop</) { print a, $0; n = 1 } }')
	[[ -n $want ]] || fail "no std::__introsort_loop in tpl"
	want=$(perf_name "${want#void }")
	run -0 "$symtool" --vaddr tpl "0x$addr"
	assert_equal "${lines[-1]%%$'\t'*}" "$want"
	# no name of any instruction has a parameter list
	objdump -d --no-show-raw-insn tpl |
		awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' >addrs
	run -0 "$symtool" --vaddr tpl <addrs
	refute_output --regexp '[^r(]\)	'
	# and a profile's rows use those names
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock ./tpl
	run -0 "$UPROFILE" -i umon.out --format json
	run -0 jq -r '.rows[] | .inlined_into // .procedure' <<<"$output"
	assert_line "$want"
}

@test "C++ clones keep their suffix (ns::work.cold), PLT stubs of C++ functions are demangled NAME@plt" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >cold.cc <<'CC'
#include <stdexcept>
#include <string>
namespace ns {
__attribute__((noinline)) int work(int x)
{
	if (__builtin_expect(x == 12345, 0))
		throw std::runtime_error("rare " + std::to_string(x));
	return x * 3;
}
}
int main(int argc, char **argv) { return ns::work(argc) == 1; }
CC
	g++ -O2 -g0 -o cold cold.cc || fail "g++ failed"
	local symtool=$ROOT/$BUILD/tests/symtool addr
	addr=$(nm cold | awk '$3 == "_ZN2ns4workEi" { print $1 }')
	run -0 "$symtool" --vaddr cold "0x$addr"
	assert_output "ns::work	??:0"
	# the cold part gcc split off: "foo::bar.cold", as "foo.cold" in C
	addr=$(nm cold | awk '$3 == "_ZN2ns4workEi.cold" { print $1 }')
	[[ -n $addr ]] || skip "this g++ did not split off a .cold part"
	run -0 "$symtool" --vaddr cold "0x$addr"
	assert_output "ns::work.cold	??:0"
	# a stub of a mangled function: demangled, then @plt
	addr=$(objdump -d cold | awk '!n && /<_ZNSt13runtime_errorC1.*@plt>:/ { print $1; n = 1 }')
	[[ -n $addr ]] || fail "no runtime_error constructor stub"
	run -0 "$symtool" --vaddr cold "0x$addr"
	assert_output "std::runtime_error::runtime_error@plt	??:0"
}

@test "C++ internal linkage with debug info (no linkage name in DWARF): qualified from the enclosing namespaces and classes" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >anon.cc <<'CC'
namespace ns {
static __attribute__((noinline)) unsigned long helper(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x = x + i;
	return x;
}
}
namespace {
struct Foo {
	__attribute__((noinline)) unsigned long bar(unsigned long n)
	{
		return ns::helper(n) + 1;
	}
};
}
int main(int argc, char **argv) { Foo f; return f.bar(argc * 1000) == 42; }
CC
	g++ -O2 -g -o anon anon.cc || fail "g++ failed"
	local symtool=$ROOT/$BUILD/tests/symtool sym addr want
	# the oracle: nm -C, less parameters and clone suffix
	for sym in helper 3bar; do
		addr=$(nm anon | awk -v s="$sym" '!n && $3 ~ s { print $1; n = 1 }')
		want=$(nm -C anon | awk -v a="$addr" '!n && $1 == a {
			$1 = ""; $2 = ""; sub(/^  /, ""); print; n = 1 }')
		want=$(perf_name "$want")
		[[ -n $addr && -n $want ]] || fail "no $sym in anon"
		run -0 "$symtool" --vaddr anon "0x$addr"
		assert_equal "${output%%$'\t'*}" "$want"
		assert_regex "${output#*$'\t'}" '/anon\.cc:[0-9]+$'
	done
	run -0 "$symtool" --vaddr anon "0x$(nm anon | awk '$3 ~ /helper/ { print $1 }')"
	assert_output --regexp '^ns::helper(\.[a-z]+\.[0-9]+)?	'
}

# The program of the next two tests: out-of-line instances of class
# templates (gcc clones them: .isra.0), a function of an anonymous
# namespace, and std::sort's helpers instantiated with a lambda, whose
# DWARF names spell the types gcc's way ("long int", main()::<lambda>).
write_templates() {
	cat >tmpl.cc <<'CC'
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>
namespace ns {
template <typename T, int N> struct Acc {
	__attribute__((noinline)) T run(const std::vector<T> &v) const
	{
		T s{};
		for (int k = 0; k < N; k++)
			for (auto &x : v)
				s += x * (k + 1);
		return s;
	}
};
namespace {
__attribute__((noinline)) long walk(std::map<int, long> &m)
{
	long s = 0;
	for (int r = 0; r < 20; r++)
		for (auto &p : m)
			s += p.second ^ r;
	return s;
}
}
}
int main()
{
	std::vector<double> vd(100000, 1.5);
	std::vector<long> vl(100000, 3);
	std::map<int, long> m;
	double a = 0;
	long b = 0;
	for (int i = 0; i < 20000; i++)
		m[i] = i;
	for (int i = 0; i < 120; i++) {
		std::vector<long> c(vl.size());
		for (size_t j = 0; j < c.size(); j++)
			c[j] = (long)((j * 2654435761u + i) % 100003);
		a += ns::Acc<double, 7>().run(vd);
		b += ns::Acc<long, 5>().run(vl) + ns::walk(m);
		std::sort(c.begin(), c.end(), [](long x, long y) { return x > y; });
		b += c[0];
	}
	printf("%f %ld\n", a, b);
}
CC
	g++ -O2 -g -o tmpl tmpl.cc || fail "g++ failed"
}

@test "C++ out-of-line code is named by its symbol (linkage name), as nm and perf name it, clone suffix kept" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	command -v c++filt >/dev/null || skip "c++filt is not installed"
	skip_unless_perf_works
	write_templates
	run -0 "$UPROFILE" -quiet -e cpu-clock -o t.umon ./tmpl
	# nm's symbols of tmpl: start, size, the name c++filt -p gives
	# (qualified, no parameters) with the clone suffix kept as
	# ".isra.0", as perf does for C ("foo.part.0")
	nm -t d -S --defined-only tmpl | awk -v OFS='\t' '$3 ~ /^[tTwW]$/ {
		base = $4; suf = ""
		if ((i = index(base, ".")) > 0) { suf = substr(base, i); base = substr(base, 1, i - 1) }
		print $1, $2, suf, base }' >syms.raw
	cut -f4 syms.raw | c++filt -p >syms.names
	paste <(cut -f1-3 syms.raw) syms.names >syms
	local n=0 addr name want
	for view in "" -inline -lines; do
		run -0 "$UPROFILE" -i t.umon $view --format json
		json_check <<<"$output"
		while read -r addr name; do
			want=$(awk -F'\t' -v a=$((addr)) '
				a >= $1 + 0 && a < $1 + $2 { print $4 $3; exit }' syms)
			[[ -n $want ]] || fail "no symbol of tmpl covers $addr ($name)"
			assert_equal "$name" "$want"
			n=$((n + 1))
		done < <(jq -r '.rows[] | select(.object | endswith("/tmpl")) |
			select(.procedure | endswith("@plt") | not) |
			"\(.address) \(.inlined_into // .procedure)"' <<<"$output")
	done
	# the rows that matter were there: both class template instances,
	# the anonymous namespace's function and a sort helper
	run -0 "$UPROFILE" -i t.umon --format json
	run -0 jq -r '.rows[].procedure' <<<"$output"
	assert_line --regexp '^ns::Acc<double, 7>::run'
	assert_line --regexp '^ns::Acc<long, 5>::run'
	assert_line 'ns::(anonymous namespace)::walk'
	assert_line --regexp '^std::__introsort_loop<.*main::\{lambda\(long, long\)#1\}> >$'
	((n >= 12)) || fail "only $n rows checked"
}

@test "the procedures view (symbol tables only) has the rows of -inline folded into their out-of-line procedures" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	skip_unless_perf_works
	write_templates
	run -0 "$UPROFILE" -quiet -e cpu-clock -o t.umon ./tmpl
	local prog
	for prog in t.umon; do
		run -0 "$UPROFILE" -i "$prog" --format json
		jq -r '.rows[] | "\(.object) \(.procedure) \(.samples["cpu-clock"])"' \
			<<<"$output" | sort >folded
		run -0 "$UPROFILE" -i "$prog" -inline --format json
		jq -r '.rows[] | "\(.object) \(.inlined_into // .procedure) \(.samples["cpu-clock"])"' \
			<<<"$output" | awk '{ n = $NF; $NF = ""; s[$0] += n }
			END { for (k in s) print k s[k] }' | sort >split
		run -0 diff folded split
	done
	[[ $(wc -l <folded) -ge 5 ]] || fail "only $(wc -l <folded) rows"
}
