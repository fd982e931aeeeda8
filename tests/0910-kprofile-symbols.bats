#!/usr/bin/env bats
# kprofile names kernel code: the hot procedures of kernel-heavy
# workloads (as perf sees them), kernel modules, the symbols kmon.out
# carries (reports work when kernel addresses are hidden), and -k.

load helpers

setup() {
	common_setup
	KPTR_SAVED=
	SHARED_DIR=
}

teardown() {
	# Restore kernel.kptr_restrict first: other programs need it.
	if [[ -n $KPTR_SAVED ]]; then
		sysctl -q -w "kernel.kptr_restrict=$KPTR_SAVED" ||
			echo "$KPTR_SAVED" >/proc/sys/kernel/kptr_restrict
	fi
	[[ -z $SHARED_DIR ]] || rm -rf "$SHARED_DIR"
}


# perf_agrees TOLERANCE ARG...: run kernelloop ARG... on every CPU under
# kprofile, itself under "perf record -a -e cpu-clock -F 1000", so both
# see the same run; compare the hottest kernel procedure of kprofile
# with perf's over kprofile's own time window (perf's clock is the wall
# clock, -k realtime), as shares of the kernel-mode samples.  The
# machine may be shared, so up to three tries; fails with all of them.
perf_agrees() {
	local tol=$1 try script t0 t1 kp_top kp_pct perf_top perf_pct rc
	local log=""
	shift
	script=$(on_every_cpu)
	for try in 1 2 3; do
		rm -f perf.data kmon.out
		# perf record exits with its command's status: kprofile's.
		rc=0
		perf record -q -k realtime -o perf.data -a -e cpu-clock \
			-F 1000 -- "$KPROFILE" -quiet -e cpu-clock -F 1000 \
			sh -c "$script" sh "$TPROG/kernelloop" "$@" \
			>perf.log 2>&1 || rc=$?
		[[ -s perf.data ]] ||
			skip "perf record -a fails here: $(head -c 300 perf.log)"
		((rc == 0)) ||
			fail "kprofile under perf record: status $rc: $(head -c 300 perf.log)"
		kjson kmon.out
		read -r t0 t1 kp_top kp_pct < <(jq -r '[
			(.start_time_ns / 1e9 * 1e6 | floor) / 1e6,
			((.start_time_ns / 1e9 + .duration_seconds) * 1e6 | ceil) / 1e6,
			.rows[0].procedure, .rows[0].percent["cpu-clock"]] | @tsv' \
			<<<"$json")
		t0=$(printf '%.6f' "$t0")
		t1=$(printf '%.6f' "$t1")
		read -r perf_top perf_pct < <(perf report -i perf.data \
			--time "$t0,$t1" --stdio --sort sym 2>/dev/null |
			awk '!/^#/ && $2 == "[k]" {
				p = $1; sub(/%/, "", p); sum += p
				if (!n++) { top = p; name = $3 } }
			END { if (sum > 0) printf "%s %.2f\n", name, 100 * top / sum }')
		[[ -n $perf_top ]] || skip "perf report shows no kernel samples"
		log+="try $try: kprofile $kp_top $kp_pct%, perf $perf_top $perf_pct%"$'\n'
		if [[ $kp_top == "$perf_top" ]] &&
			awk -v a="$kp_pct" -v b="$perf_pct" -v t="$tol" \
				'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; then
			return 0
		fi
	done
	fail "kprofile and perf disagree on the hottest kernel procedure"$'\n'"$log"
}

@test "kernelloop read: read_zero leads the non-idle kernel procedures, in [kernel.kallsyms], no module" {
	skip_unless_perf_works
	# -pids: kernelloop's own kernel samples, whatever else the machine
	# runs (its pid is the shell's, which execs it)
	run -0 "$KPROFILE" -quiet -pids -e cpu-clock sh -c \
		'echo $$ >kl.pid; exec "$0" read 1' "$TPROG/kernelloop"
	kjson "kmon.$(cat kl.pid).out"
	# Timer samples held back while interrupts were off land where they
	# are enabled again: leave those out (KERNEL_NOISE_RE).
	assert_equal "$(top_busy)" read_zero
	assert_equal "$(jq -r '.rows[] | select(.procedure == "read_zero") |
		[.object, .module] | @tsv' <<<"$json")" $'[kernel.kallsyms]\t'
	# Most of kernelloop's kernel samples that are not noise.
	local share
	share=$(busy_share read_zero)
	awk -v s="$share" 'BEGIN { exit !(s >= 50) }' ||
		fail "read_zero has only $share% of the non-idle kernel samples"
	# The address is the hottest one, inside read_zero's symbol.
	local addr sym
	addr=$(jq -r '.rows[] | select(.procedure == "read_zero") | .address' \
		<<<"$json")
	sym=$(awk -v a="${addr#0x}" '$2 ~ /^[tT]$/ && $3 == "read_zero" {
		print $1; exit }' /proc/kallsyms)
	[[ -n $sym && $sym != 0000000000000000 ]] ||
		skip "/proc/kallsyms does not show read_zero's address"
	(( 0x$sym <= addr && addr < 0x$sym + 0x10000 ))
}

@test "kernelloop read on every CPU: hottest kernel procedure within 5 points of perf's" {
	skip_unless_perf_works
	perf_agrees 5 read 1
}

@test "kernelloop syscall on every CPU: hottest kernel procedure within 5 points of perf's" {
	skip_unless_perf_works
	perf_agrees 5 syscall 1
	# The syscall path is there (getppid's pid lookup, ...).  Which
	# procedure leads depends on the hypervisor: where enabling
	# interrupts is a call, timer samples held back while they were off
	# land on the routine that enables them (KERNEL_NOISE_RE).
	local s
	s=$(jq '[.rows[] | select(.procedure | test(
		"^(do_syscall_64|__task_pid_nr_ns|__x64_sys_getppid|x64_sys_call|entry_SYSCALL_64.*|syscall_exit_to_user_mode.*|__rcu_read_(un)?lock)$"))]
		| length' <<<"$json")
	((s >= 2)) || fail "only $s other syscall-path procedures in the profile"
}

@test "kernel module code: rows have module set to the module that holds the address" {
	skip_unless_perf_works
	command -v python3 >/dev/null || skip "python3 is needed to look addresses up"
	[[ -r /proc/modules ]] ||
		skip "this kernel has no loadable modules (no /proc/modules)"
	[[ -s /proc/modules ]] || skip "no kernel module is loaded"
	# Some activity that drivers and file systems see.
	run -0 "$KPROFILE" -quiet -e cpu-clock -F 4000 sh -c \
		'timeout 2 find / -xdev >/dev/null 2>&1; sync; cat /proc/modules >/dev/null'
	kjson kmon.out
	jq -r '.rows[] | [.address, (.module // "-"), .procedure] | @tsv' \
		<<<"$json" >rows.tsv
	run -0 python3 -c '
import bisect, sys
mods = {line.split()[0] for line in open("/proc/modules")}
syms = []
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) >= 3 and f[1] in "tT":
        m = f[3].strip("[]") if len(f) > 3 else "-"
        syms.append((int(f[0], 16), m if m in mods else "-", f[2]))
syms.sort()
if not syms or syms[-1][0] == 0:
    print("SKIP kernel addresses are hidden"); sys.exit(0)
starts = [s[0] for s in syms]
inmod = bad = 0
for line in open("rows.tsv"):
    addr, mod, proc = line.rstrip("\n").split("\t")
    i = bisect.bisect_right(starts, int(addr, 16)) - 1
    want = syms[i][1] if i >= 0 else "-"
    inmod += want != "-"
    if want != mod:
        bad += 1
        print("BAD %s %s: module %s, expected %s" % (addr, proc, mod, want))
print("INMOD %d" % inmod)
'
	[[ $output != "SKIP "* ]] || skip "${output#SKIP }"
	refute_line --partial BAD
	[[ $output != "INMOD 0" ]] ||
		skip "no sample landed in module code ($(wc -l </proc/modules) modules loaded)"
}

@test "kmon.out carries its kernel symbols: -i names kernel code with kptr_restrict=2; collecting is refused" {
	skip_unless_perf_works
	skip_unless_root
	run -0 "$KPROFILE" -quiet -e cpu-clock sh -c "$(on_every_cpu)" sh \
		"$TPROG/kernelloop" read 0.5
	kjson kmon.out
	local want
	want=$(jq -c '[.rows[:5][] | .procedure]' <<<"$json")
	assert_equal "$(top_busy)" read_zero
	# Others may read it (for the unprivileged report below).
	SHARED_DIR=$(mktemp -d /tmp/kprofile-test.XXXXXX)
	chmod 755 "$SHARED_DIR"
	cp kmon.out "$SHARED_DIR/kmon.out"
	chmod 644 "$SHARED_DIR/kmon.out"

	KPTR_SAVED=$(cat /proc/sys/kernel/kptr_restrict)
	sysctl -q -w kernel.kptr_restrict=2
	# Kernel addresses are now hidden even from root...
	[[ $(awk '{ print $1; exit }' /proc/kallsyms) == 0000000000000000 ]]
	# ... but the profile names its procedures as before.
	kjson kmon.out
	assert_equal "$(jq -c '[.rows[:5][] | .procedure]' <<<"$json")" "$want"
	assert_equal "$(jq -r '.rows[0].object' <<<"$json")" '[kernel.kallsyms]'
	run -0 "$KPROFILE" -i kmon.out -quit 5
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ read_zero +\[kernel\.kallsyms\]$'
	# A new collection could not name kernel samples: refused, no file.
	run -125 --separate-stderr "$KPROFILE" -e cpu-clock -o new.out true
	[[ $stderr == *"kernel.kptr_restrict=2"* ]] ||
		fail "no mention of kptr_restrict: $stderr"
	[[ ! -e new.out ]]
	if setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all "$KPROFILE" --version >/dev/null 2>&1; then
		# An unprivileged user can report it too, but not collect.
		run -0 --separate-stderr setpriv --reuid=nobody --regid=nogroup \
			--clear-groups --inh-caps=-all \
			"$KPROFILE" -i "$SHARED_DIR/kmon.out" --format json
		assert_equal "$(jq -c '[.rows[:5][] | .procedure]' <<<"$output")" \
			"$want"
		chmod 777 "$SHARED_DIR"
		run -125 setpriv --reuid=nobody --regid=nogroup --clear-groups \
			--inh-caps=-all sh -c 'cd "$1" && exec "$2" -e cpu-clock true' \
			sh "$SHARED_DIR" "$KPROFILE"
		run -0 ls "$SHARED_DIR"
		assert_output kmon.out
	fi
	sysctl -q -w "kernel.kptr_restrict=$KPTR_SAVED"
	KPTR_SAVED=
}

@test "-k IMAGE that is no kernel falls back to the kernel symbols; one that cannot be read is an error" {
	skip_unless_perf_works
	run -0 "$KPROFILE" -quiet -e cpu-clock sh -c "$(on_every_cpu)" sh \
		"$TPROG/kernelloop" read 0.5
	# An image that names nothing (not a kernel): kallsyms still does.
	cp /bin/true notkernel
	run -0 --separate-stderr "$KPROFILE" -k notkernel -i kmon.out --format json
	json=$output
	assert_equal "$(top_busy)" read_zero
	assert_equal "$(jq -r '.rows[] | select(.procedure == "read_zero") | .file' <<<"$json")" null
	run -0 "$KPROFILE" -k notkernel -i kmon.out -lines -quit 3
	assert_line --regexp '^source lines, '
	run -0 "$KPROFILE" -k notkernel -i kmon.out -heavy -quit 5
	assert_line --regexp ' read_zero +\[kernel\.kallsyms\]$'
	# An image that cannot be read is an error, not silently ignored.
	run -125 "$KPROFILE" -k /nonexistent -i kmon.out
	assert_output "kprofile: cannot read kernel image '/nonexistent': No such file or directory"
}

@test "-k vmlinux with DWARF: kernel source lines" {
	skip_unless_perf_works
	local v vmlinux=""
	for v in "/usr/lib/debug/boot/vmlinux-$(uname -r)" \
		"/usr/lib/debug/lib/modules/$(uname -r)/vmlinux" \
		"/boot/vmlinux-$(uname -r)"; do
		if [[ -r $v ]] && readelf -S "$v" 2>/dev/null |
			grep -q '\.debug_info'; then
			vmlinux=$v
			break
		fi
	done
	[[ -n $vmlinux ]] || skip "no vmlinux with debug information for kernel $(uname -r) under /usr/lib/debug or /boot"
	run -0 "$KPROFILE" -quiet -e cpu-clock sh -c "$(on_every_cpu)" sh \
		"$TPROG/kernelloop" read 0.5
	run -0 --separate-stderr "$KPROFILE" -k "$vmlinux" -i kmon.out -heavy \
		--format json
	json=$output
	assert_equal "$(top_busy)" read_zero
	local row
	row=$(jq -c '[.rows[] | select(.procedure == "read_zero")][0]' <<<"$json")
	[[ $(jq -r .file <<<"$row") == */drivers/char/mem.c ||
		$(jq -r .file <<<"$row") == drivers/char/mem.c ]]
	(($(jq -r .line <<<"$row") > 0))
}

@test "-blocks and -asm without a vmlinux: one note says why the kernel has no blocks" {
	skip_unless_perf_works
	skip_unless_root
	local id
	id=$(kernel_build_id)
	[[ -z $id || ! -e /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug ]] ||
		skip "this kernel's vmlinux is installed: its code is read"
	run -0 "$KPROFILE" -quiet -o k.out "$TPROG/kernelloop" read 0.3
	local note="  note: no blocks or instructions for [0-9]+ kernel procedure\(s\): the kernel's code is read from a vmlinux image, kprofile -k VMLINUX or the one with the profile's kernel build-id under --debug-dir, /usr/lib/debug or from debuginfod; none with their code was found"
	local view
	for view in -blocks -asm; do
		run -0 "$KPROFILE" -i k.out $view
		assert_line --regexp "^$note\$"
		[[ $(grep -c "kernel's code is read from" <<<"$output") == 1 ]]
	done
	# not in views that list no code
	run -0 "$KPROFILE" -i k.out
	refute_line --partial "kernel's code"
}

# kernel_frames_named FILE: every kernel address left in FILE's text
# (a frame that stayed an address) is one /proc/kallsyms does not cover
# either, so perf could not name it: no text symbol at or below it, or
# past the last symbol of its image by 64 KiB or more.  Prints each
# named-but-shown-as-address one as "BAD ADDR near SYMBOL".
kernel_frames_named() {
	python3 - "$1" <<'PY'
import bisect, re, sys
syms = []
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) >= 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[3] if len(f) > 3 else "", f[2]))
syms.sort()
if not syms or syms[-1][0] == 0:
    print("SKIP kernel addresses are hidden"); sys.exit(0)
starts = [s[0] for s in syms]
seen = set()
for a in re.findall(r"0x([0-9a-fA-F]{16})", open(sys.argv[1]).read()):
    addr = int(a, 16)
    if addr < 1 << 63 or addr in seen:
        continue
    seen.add(addr)
    i = bisect.bisect_right(starts, addr) - 1
    if i < 0:
        continue
    last = i + 1 == len(syms) or syms[i + 1][1] != syms[i][1]
    if not last or addr - starts[i] < 0x10000:
        print("BAD %#x near %s" % (addr, syms[i][2]))
PY
}

@test "kprofile -g: every kernel frame named (-tree, folded), -callers names the syscall entry, stacks counted as kernel frames only" {
	skip_unless_perf_works
	command -v python3 >/dev/null || skip "python3 is needed to look addresses up"
	# The routine the syscall entry calls, and its caller, on this kernel.
	local focus entry
	if grep -q ' [tT] do_syscall_64$' /proc/kallsyms; then
		focus=do_syscall_64 entry='entry_SYSCALL_64[A-Za-z0-9_]*'
	elif grep -q ' [tT] invoke_syscall$' /proc/kallsyms; then
		focus=invoke_syscall entry='(el0_svc_common|do_el0_svc)[A-Za-z0-9_.]*'
	else
		skip "no do_syscall_64 nor invoke_syscall in /proc/kallsyms"
	fi
	run -0 "$KPROFILE" -quiet -g -e cpu-clock -F 2000 "$TPROG/kernelloop" \
		syscall 0.5
	run -0 "$KPROFILE" -i kmon.out -tree -quit 0.1%
	echo "$output" >tree.txt
	# Kernel-only stacks reach no _start: the heading says what they are.
	assert_line --regexp '^  call stacks \(cpu-clock\): [0-9]+ samples, 100\.00% kernel frames only \('
	refute_output --partial 'complete (reached _start'
	run -0 "$KPROFILE" -i kmon.out --format folded
	echo "$output" >folded.txt
	[[ -s folded.txt ]] || fail "no folded stacks"
	local f
	for f in tree.txt folded.txt; do
		run -0 kernel_frames_named "$f"
		[[ $output != "SKIP "* ]] || skip "${output#SKIP }"
		[[ -z $output ]] ||
			fail "$f: kernel frames left as addresses that kallsyms names:"$'\n'"$output"
	done
	# The entry code calls the syscall routine: its caller is named.
	run -0 "$KPROFILE" -i kmon.out -callers "$focus"
	assert_line --regexp "^$focus: total "
	assert_line --regexp "^ +[0-9.]+ +[0-9.]+ +[0-9]+  $entry\$"
}
