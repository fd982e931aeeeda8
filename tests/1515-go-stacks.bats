#!/usr/bin/env bats
# Call stacks of Go programs (-g): the runtime switches between a
# goroutine's stack and its thread's (runtime.systemstack, mcall,
# morestack; the vDSO calls; signal handlers on their own stack).  A walk
# follows a switch where the runtime's frame layout says where the other
# side is, and otherwise ends the stack there with a reason, never as
# complete and never with the stale words of the thread's stack as
# callers.
#
#  - unwstep (tests/tools/unwstep.c) steps once from each of the runtime's
#    functions, in a program made with as and ld that has their names and
#    shapes, on a made-up stack: every rule, without Go or sampling;
#  - tests/programs/goswitch (built here with go build) is profiled, and
#    its folded stacks must each end at a goroutine's or thread's entry or
#    with a stated reason right after the frame where the walk stopped.

load helpers

GOSWITCH_SRC=$ROOT/tests/programs/goswitch/main.go

# goswitch_build: build/goswitch from tests/programs/goswitch, without cgo
# (its threads are the runtime's own); skips without go.
goswitch_build() {
	command -v go >/dev/null || skip "go is not installed (golang-go)"
	# go needs a build cache it can write: the user's, else one of this
	# file's.
	local cache
	cache=$(go env GOCACHE 2>/dev/null) || cache=
	if [[ -z $cache || $cache == off ]] || ! mkdir -p "$cache" 2>/dev/null ||
		[[ ! -w $cache ]]; then
		export GOCACHE=$BATS_FILE_TMPDIR/gocache
	fi
	mkdir -p build
	run -0 --separate-stderr env CGO_ENABLED=0 GOFLAGS= GOTOOLCHAIN=local \
		go build -o build/goswitch "$GOSWITCH_SRC"
}

@test "go stacks: unwstep ends at the runtime's entries and switches, follows r12 and the restorer" {
	command -v as >/dev/null && command -v ld >/dev/null ||
		skip "as or ld (binutils) is missing"
	# The runtime's functions by name (ABI0 ones as NAME.abi0), in a
	# program whose .note.go.buildid makes it a Go one; no CFI but
	# sigtramp's.
	cat >go.s <<'ASM'
	.section .note.go.buildid,"a",@note
	.long 4, 8, 4
	.ascii "Go\0\0"
	.ascii "madeupid"
	.text
	.macro fn name
	.globl \name
	.type \name, @function
\name:
	.endm
	.macro end name
	.size \name, . - \name
	.endm
	fn runtime.goexit.abi0
	.byte 0x90
	call other
goexit_ret:
	.byte 0x90
	end runtime.goexit.abi0
	fn runtime.systemstack.abi0
	.byte 0x48, 0x89, 0xdc			# mov %rbx,%rsp
	.byte 0xff, 0xd7			# call *%rdi
systemstack_ret:
	ret
	end runtime.systemstack.abi0
	fn runtime.asmcgocall			# the ABIInternal wrapper
	call runtime.asmcgocall.abi0
asmcgocall_wrapper_ret:
	ret
	end runtime.asmcgocall
	fn runtime.asmcgocall.abi0
	.byte 0x48, 0x89, 0xdc			# mov %rbx,%rsp
	.byte 0xff, 0xd0			# call *%rax
asmcgocall_ret:
	ret
	end runtime.asmcgocall.abi0
	fn runtime.nanotime1.abi0
	.byte 0x48, 0x83, 0xec, 0x18		# sub $0x18,%rsp
	.byte 0x48, 0x89, 0x6c, 0x24, 0x10	# mov %rbp,0x10(%rsp)
nanotime1_lea:
	.byte 0x48, 0x8d, 0x6c, 0x24, 0x10	# lea 0x10(%rsp),%rbp
	.byte 0x49, 0x89, 0xe4			# mov %rsp,%r12
nanotime1_body:
	.byte 0xff, 0xd0			# call *%rax
nanotime1_ret:
	.byte 0x4c, 0x89, 0xe4			# mov %r12,%rsp
	.byte 0x48, 0x83, 0xc4, 0x18		# add $0x18,%rsp
	ret
	end runtime.nanotime1.abi0
	fn time.now
	.byte 0x48, 0x83, 0xec, 0x18		# sub $0x18,%rsp
	.byte 0x49, 0x89, 0xe4			# mov %rsp,%r12: no frame pointer
	.byte 0xff, 0xd0			# call *%rax
now_ret:
	ret
	end time.now
	fn runtime.sigreturn.abi0
	.byte 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0	# mov $15,%rax
	.byte 0x0f, 0x05			# syscall
	.byte 0xcd, 0x03			# int $3
	end runtime.sigreturn.abi0
	fn runtime.sigtramp.abi0
	.cfi_startproc
	call other
sigtramp_ret:
	ret
	.cfi_endproc
	end runtime.sigtramp.abi0
	fn other
	ret
	end other
	.globl _start
_start:	ret
ASM
	run -0 as go.s -o go.o
	run -0 ld -o gort go.o
	# The same code without the note is no Go program: nothing apart.
	run -0 objcopy --remove-section=.note.go.buildid gort notgo
	local out="" restorer
	restorer=$(nm gort | awk '$3 == "runtime.sigreturn.abi0" { print $1 }')
	# step TAG [OPTION...] FILE LABEL...: unwstep from each LABEL of FILE,
	# "TAG LABEL RESULT" lines added to $out (the restorer's address
	# named).
	step() {
		local tag=$1 opts=() a=() l line i=0
		shift
		while [[ $1 == -* ]]; do
			if [[ $1 == -r ]]; then
				opts+=("$1")
				shift
			else
				opts+=("$1" "$2")
				shift 2
			fi
		done
		local file=$1
		shift
		for l; do
			a+=("$(nm "$file" | awk -v f="$l" '$3 == f { print $1 }')")
		done
		run -0 "$ROOT/$BUILD/tests/unwstep" "${opts[@]}" "$file" "${a[@]}"
		local labels=("$@")
		i=0
		while IFS= read -r line; do
			line=${line#* }
			out+="$tag ${labels[i]} ${line/0x${restorer##*(0)}/restorer}"$'\n'
			i=$((i + 1))
		done <<<"$output"
	}
	shopt -s extglob
	step pc gort runtime.goexit.abi0 runtime.systemstack.abi0 \
		runtime.asmcgocall.abi0 runtime.asmcgocall \
		runtime.sigreturn.abi0 nanotime1_lea nanotime1_body other
	step ret -r gort goexit_ret systemstack_ret asmcgocall_ret \
		asmcgocall_wrapper_ret sigtramp_ret
	step ret,r12 -r -12 20 gort nanotime1_ret now_ret
	step pc,r12 -12 20 gort nanotime1_body
	step ret,r12-out -r -12 200 gort nanotime1_ret
	step pc,sp-restorer -0 "$restorer" gort runtime.sigtramp.abi0
	step ret,notgo -r notgo goexit_ret systemstack_ret
	step pc,r12,notgo -12 20 notgo nanotime1_body
	# - entries (goexit) end the walk; switches (systemstack, asmcgocall
	#   itself, not its wrapper) truncate it, at any PC;
	# - the restorer reads the signal frame above it (rip 0x7777, rsp
	#   past the copy), and a walk that returns to it looks it up as is;
	# - past its mov %rsp,%r12, nanotime1's frame is at r12 (its return
	#   address at r12 + 0x18, 0xaa07): in the copy it is followed,
	#   outside it or without r12 the walk ends at the switch; before
	#   it, its own rules hold (none here: no CFI); time.now without the
	#   known prologue is a switch;
	# - a program that is no Go one is walked as any other.
	assert_equal "$out" "pc runtime.goexit.abi0 end
pc runtime.systemstack.abi0 truncated: stack switch
pc runtime.asmcgocall.abi0 truncated: stack switch
pc runtime.asmcgocall truncated: no CFI
pc runtime.sigreturn.abi0 stepped 0x7777 sp+256 exact
pc nanotime1_lea truncated: no CFI
pc nanotime1_body truncated: stack switch
pc other truncated: no CFI
ret goexit_ret end
ret systemstack_ret truncated: stack switch
ret asmcgocall_ret truncated: stack switch
ret asmcgocall_wrapper_ret truncated: no CFI
ret sigtramp_ret stepped 0x1111 sp+8
ret,r12 nanotime1_ret stepped 0xaa07 sp+64
ret,r12 now_ret truncated: stack switch
pc,r12 nanotime1_body stepped 0xaa07 sp+64
ret,r12-out nanotime1_ret truncated: stack switch
pc,sp-restorer runtime.sigtramp.abi0 stepped restorer sp+8 exact
ret,notgo goexit_ret truncated: no CFI
ret,notgo systemstack_ret truncated: no CFI
pc,r12,notgo nanotime1_body truncated: no CFI
"
}

# check_go_folded: the rules of a Go program's folded stacks ($stacks),
# one line per broken rule on stdout, then "ok N SWITCHED ENTRY OTHER":
# N samples, SWITCHED those under a stack switch, ENTRY those complete
# through main.worker, OTHER those truncated for another reason.
check_go_folded() {
	printf '%s\n' "$stacks" >stacks.folded
	python3 - stacks.folded <<'PY'
import re, sys

def base(frame):
    name = frame.rsplit("`", 1)[-1].split(" ", 1)[0]
    return re.sub(r"\.abi0$", "", name)

ENTRIES = {"runtime.goexit", "runtime.mstart", "runtime.rt0_go",
           "runtime.clone"}
SWITCHES = {"runtime.systemstack", "runtime.mcall", "runtime.morestack",
            "runtime.morestack_noctxt", "runtime.gogo",
            "runtime.asmcgocall", "runtime.nanotime1", "time.now"}
RESTORERS = {"runtime.sigreturn", "runtime.sigreturn__sigaction"}
MARK = re.compile(r"^\[truncated: (.*) in (.*)\]$")
n = switched = entry = other = 0
bad = []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line:
        continue
    m = re.match(r"^(.*) ([0-9]+)$", line)
    if not m:
        bad.append("not folded: " + line)
        continue
    frames, count = m.group(1).split(";"), int(m.group(2))
    names = [base(f) for f in frames]
    n += count
    if any(MARK.match(f) for f in frames[1:]):
        bad.append("a marker that is not the root: " + line)
    mk = MARK.match(frames[0])
    if not mk and names[0] not in ENTRIES:
        bad.append("complete, but not at an entry: " + line)
    # An address between functions (an address looked up one byte
    # before the restorer's) is no caller.
    if any(re.match(r"^[^ ]*\+0x[0-9a-f]+$", f) for f in frames):
        bad.append("a frame in no function: " + line)
    if not mk:
        if "main.worker" in names:
            entry += count
        continue
    if mk.group(1) != "stack switch":
        other += count
        continue
    switched += count
    # The frame after the marker is where the walk stopped: a switch,
    # or code a signal interrupted (its inlined callees, then the
    # restorer the kernel made it return to).
    if len(names) < 2:
        bad.append("a marker alone: " + line)
        continue
    if names[1] in SWITCHES:
        continue
    k = 2
    while k < len(frames) and frames[k].endswith("_[i]"):
        k += 1
    if k >= len(names) or names[k] not in RESTORERS:
        bad.append("a stack switch after no switch: " + line)
for line in bad[:10]:
    print(line)
print("ok %d %d %d %d" % (n, switched, entry, other))
PY
}

@test "go stacks: goroutines, GC and the vDSO: every stack ends at an entry, or at a switch with its reason" {
	skip_unless_perf_works
	goswitch_build
	local max freq
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	freq=$((max < 4000 ? max : 4000))
	run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock -F "$freq" -g \
		-o go.out build/goswitch 1500
	[[ $output == ok ]] || fail "goswitch said: $output"
	run -0 --separate-stderr "$UPROFILE" -i go.out --format folded
	stacks=$output
	run -0 check_go_folded
	local last=${lines[-1]} n switched entry other
	read -r _ n switched entry other <<<"$last"
	((${#lines[@]} == 1)) || fail "$(printf '%s\n' "${lines[@]}")"
	# The run is the workers' and the collector's: both are seen.
	((n >= 100)) || fail "only $n samples"
	((entry > 0)) || fail "no complete stack through main.worker"
	grep -q 'runtime\.systemstack' <<<"$stacks" ||
		fail "no stack under runtime.systemstack (no GC?)"
	# What is not complete is a stack switch; anything else (a reason of
	# its own, stated) is the odd sample: at most 1%, and 2 samples.
	((other * 100 <= n + 200)) ||
		fail "$other of $n samples truncated otherwise"
	# The heading counts as complete exactly the stacks at an entry.
	run -0 --separate-stderr "$UPROFILE" -i go.out
	local pct
	pct=$(sed -n 's/.* samples, \([0-9.]*\)% complete.*/\1/p' <<<"$output")
	[[ -n $pct ]] || fail "no completeness in the heading: $output"
	assert_near "$pct" "$(awk -v a=$((n - switched - other)) -v n="$n" \
		'BEGIN { printf "%.2f", 100 * a / n }')" 0.01
}
