#!/usr/bin/env bats
# Instruction sampling (profile-me) without the hardware: the decoders are
# fed records built bit by bit from the vendors' documented layouts, and
# the events each family would open are compared with golden attributes
# (--dry-run with a made-up sysfs in UPROFILE_SYSFS).  docs/profileme.md
# has the mapping these tests check.

load helpers

PMDECODE=$ROOT/$BUILD/tests/pmdecode

# ibs_raw FIELD=VALUE...
# Hex of the PERF_SAMPLE_RAW payload of an ibs_op sample as the kernel
# writes it: u32 caps, then IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2,
# IbsOpData3, IbsDcLinAd, IbsDcPhysAd, then IbsBrTarget if caps bit 5
# (BrnTrgt), then IbsOpData4 if caps bit 10 (OpData4).  Fields are named
# as in AMD's PPR; registers can be given whole (caps=, rip=, linad=,
# physad=, brtarget=, data4=).  IbsOpVal is set unless given as 0; caps
# defaults to 0x87 (IBS, fetch and op sampling, RipInvalidChk).
# cut=N drops the last N bytes.
ibs_raw() {
	python3 - "$@" <<'EOF'
import struct, sys
F = {
    'IbsOpVal': ('ctl', 18, 1),
    'IbsCompToRetCtr': ('data', 0, 16), 'IbsTagToRetCtr': ('data', 16, 16),
    'IbsOpReturn': ('data', 34, 1), 'IbsOpBrnTaken': ('data', 35, 1),
    'IbsOpBrnMisp': ('data', 36, 1), 'IbsOpBrnRet': ('data', 37, 1),
    'IbsOpRipInvalid': ('data', 38, 1), 'IbsOpBrnFuse': ('data', 39, 1),
    'IbsOpMicrocode': ('data', 40, 1),
    'DataSrc': ('data2', 0, 3), 'RmtNode': ('data2', 4, 1),
    'IbsLdOp': ('data3', 0, 1), 'IbsStOp': ('data3', 1, 1),
    'IbsDcL1tlbMiss': ('data3', 2, 1), 'IbsDcL2tlbMiss': ('data3', 3, 1),
    'IbsDcL1tlbHit2M': ('data3', 4, 1), 'IbsDcL1tlbHit1G': ('data3', 5, 1),
    'IbsDcMiss': ('data3', 7, 1), 'IbsDcMisAcc': ('data3', 8, 1),
    'IbsDcWcMemAcc': ('data3', 13, 1), 'IbsDcUcMemAcc': ('data3', 14, 1),
    'IbsDcLockedOp': ('data3', 15, 1),
    'IbsDcLinAddrValid': ('data3', 17, 1),
    'IbsDcPhyAddrValid': ('data3', 18, 1),
    'IbsDcMissLat': ('data3', 32, 16), 'IbsTlbRefillLat': ('data3', 48, 16),
}
r = dict(caps=0x87, ctl=1 << 18, rip=0x401000, data=0, data2=0, data3=0,
         linad=0, physad=0, brtarget=0, data4=0)
cut = 0
for a in sys.argv[1:]:
    k, v = a.split('=')
    v = int(v, 0)
    if k in F:
        reg, lo, w = F[k]
        assert v < 1 << w, a
        r[reg] = r[reg] & ~(((1 << w) - 1) << lo) | v << lo
    elif k == 'cut':
        cut = v
    else:
        assert k in r, a
        r[k] = v
b = struct.pack('<I', r['caps'])
for k in ('ctl', 'rip', 'data', 'data2', 'data3', 'linad', 'physad'):
    b += struct.pack('<Q', r[k])
if r['caps'] & 1 << 5:
    b += struct.pack('<Q', r['brtarget'])
if r['caps'] & 1 << 10:
    b += struct.pack('<Q', r['data4'])
print(b[:len(b) - cut].hex())
EOF
}

# data_src FIELD=NAME[,NAME]...
# union perf_mem_data_src .val from linux/perf_event.h's names: op=LOAD,
# lvl=L3,HIT, lvlnum=L3, tlb=L2,MISS.  A field not given is NA.
data_src() {
	python3 - "$@" <<'EOF'
import sys
SH = dict(op=0, lvl=5, snoop=19, lock=24, tlb=26, lvlnum=33)
V = dict(
    op=dict(NA=1, LOAD=2, STORE=4, PFETCH=8, EXEC=16),
    lvl=dict(NA=1, HIT=2, MISS=4, L1=8, LFB=0x10, L2=0x20, L3=0x40,
             LOC_RAM=0x80),
    snoop=dict(NA=1), lock=dict(NA=1),
    tlb=dict(NA=1, HIT=2, MISS=4, L1=8, L2=0x10, WK=0x20),
    lvlnum=dict(L1=1, L2=2, L3=3, L4=4, LFB=0xc, RAM=0xd, NA=0xf))
f = dict(op='NA', lvl='NA', snoop='NA', lock='NA', tlb='NA', lvlnum=None)
for a in sys.argv[1:]:
    k, v = a.split('=')
    f[k] = v
val = 0
for k, names in f.items():
    if names:
        for n in names.split(','):
            val |= V[k][n] << SH[k]
print(hex(val))
EOF
}

# spe_rec [pc=A] [va=A] [op=ld|st|br|brcond|other] [events=NAME,...]
#         [total=N] [issue=N] [end=0]
# Hex of one SPE record: address packets (PC index 0, data VA index 2),
# operation type, events, counters (total index 0, issue index 1), then
# the End packet.  Packet headers as in the Arm ARM.
spe_rec() {
	python3 - "$@" <<'EOF'
import struct, sys
EV = dict(EXCEPTION=0, RETIRED=1, L1D_ACCESS=2, L1D_REFILL=3, TLB_ACCESS=4,
          TLB_WALK=5, NOT_TAKEN=6, MISPRED=7, LLC_ACCESS=8, LLC_MISS=9,
          REMOTE=10, ALIGNMENT=11)
a = dict(a.split('=') for a in sys.argv[1:])
b = b''
if 'pc' in a:
    b += bytes([0xb0]) + struct.pack('<Q', int(a['pc'], 0))
if 'op' in a:
    cls, sub = dict(other=(0, 0), ld=(1, 0), st=(1, 1), br=(2, 0),
                    brcond=(2, 1))[a['op']]
    b += bytes([0x48 | cls, sub])
if 'events' in a:
    m = 0
    for n in a['events'].split(','):
        m |= 1 << EV[n]
    b += bytes([0x52]) + struct.pack('<H', m)
if 'va' in a:
    b += bytes([0xb2]) + struct.pack('<Q', int(a['va'], 0))
if 'total' in a:
    b += bytes([0x98]) + struct.pack('<H', int(a['total'], 0))
if 'issue' in a:
    b += bytes([0x99]) + struct.pack('<H', int(a['issue'], 0))
if a.get('end', '1') != '0':
    b += bytes([0x01])
print(b.hex())
EOF
}

# ibs_out STAT=VALUE...: the whole pmdecode output for an IBS op sample
# at the default RIP with every statistic 0 (retire and valid 1) but
# those given; ip= and data_addr= may be given too.
ibs_out() {
	local -A v=([ip]=0x401000 [data_addr]=0 [retire]=1 [valid]=1)
	local a s
	for a; do v[${a%%=*}]=${a#*=}; done
	echo "ip=${v[ip]}"
	echo "data_addr=${v[data_addr]}"
	for s in cycles delay dtb_miss ldst_align_trap mispredict retire \
		valid dcache_miss load_latency loads stores branch \
		branch_taken; do
		echo "$s=${v[$s]:-0}"
	done
}

decodes_to() {
	diff -u <(printf '%s\n' "$@") <(printf '%s\n' "$output") ||
		fail "decoded sample differs"
}

@test "IBS: an op sample is a retired instruction at IbsOpRip, nothing else" {
	run -0 "$PMDECODE" ibs "$(ibs_raw)"
	decodes_to "$(ibs_out)"
}

@test "IBS: IbsTagToRetCtr is cycles, IbsCompToRetCtr is delay (16 bits each)" {
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsTagToRetCtr=0xffff IbsCompToRetCtr=3)"
	decodes_to "$(ibs_out cycles=65535 delay=3)"
}

@test "IBS: one branch bit at a time" {
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsOpBrnRet=1)"
	decodes_to "$(ibs_out branch=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsOpBrnRet=1 IbsOpBrnTaken=1)"
	decodes_to "$(ibs_out branch=1 branch_taken=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsOpBrnRet=1 IbsOpBrnMisp=1)"
	decodes_to "$(ibs_out branch=1 mispredict=1)"
	# A return is a taken branch; IBS cannot say conditional.
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsOpBrnRet=1 IbsOpBrnTaken=1 IbsOpReturn=1)"
	decodes_to "$(ibs_out branch=1 branch_taken=1)"
	# Taken without a retired branch op is not a branch.
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsOpBrnTaken=1)"
	decodes_to "$(ibs_out)"
}

@test "IBS: loads and stores, and the data-cache bits only count for them" {
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1)"
	decodes_to "$(ibs_out loads=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsStOp=1)"
	decodes_to "$(ibs_out stores=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 IbsDcL1tlbMiss=1)"
	decodes_to "$(ibs_out loads=1 dtb_miss=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsStOp=1 IbsDcMisAcc=1)"
	decodes_to "$(ibs_out stores=1 ldst_align_trap=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsDcL1tlbMiss=1 IbsDcMiss=1 IbsDcMisAcc=1)"
	decodes_to "$(ibs_out)"
	# An L2 TLB miss or a locked/uncached access is no statistic of ours.
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 IbsDcL2tlbMiss=1 IbsDcLockedOp=1 IbsDcUcMemAcc=1)"
	decodes_to "$(ibs_out loads=1)"
}

@test "IBS: IbsDcMissLat is the load latency of a load that missed, only" {
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 IbsDcMiss=1 IbsDcMissLat=187)"
	decodes_to "$(ibs_out loads=1 dcache_miss=1 load_latency=187)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsStOp=1 IbsDcMiss=1 IbsDcMissLat=50)"
	decodes_to "$(ibs_out stores=1 dcache_miss=1)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 IbsDcMissLat=50)"
	decodes_to "$(ibs_out loads=1)"
}

@test "IBS: IbsDcLinAd is the data address only when IbsDcLinAddrValid" {
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 IbsDcLinAddrValid=1 linad=0x7ffd1234)"
	decodes_to "$(ibs_out loads=1 data_addr=0x7ffd1234)"
	run -0 "$PMDECODE" ibs "$(ibs_raw IbsLdOp=1 linad=0x7ffd1234)"
	decodes_to "$(ibs_out loads=1)"
}

@test "IBS: IbsOpRipInvalid drops the sample where caps say the bit exists" {
	run -3 "$PMDECODE" ibs "$(ibs_raw IbsOpRipInvalid=1)"
	assert_output dropped
	# Without RipInvalidChk (caps bit 7) bit 38 is reserved: ignored.
	run -0 "$PMDECODE" ibs "$(ibs_raw caps=0x7 IbsOpRipInvalid=1)"
	decodes_to "$(ibs_out)"
}

@test "IBS: a sample without IbsOpVal is dropped" {
	run -3 "$PMDECODE" ibs "$(ibs_raw IbsOpVal=0)"
	assert_output dropped
}

@test "IBS: a truncated record is an error, not a sample" {
	run -1 "$PMDECODE" ibs "$(ibs_raw cut=1)"
	assert_output "pmdecode: IBS op record of 59 bytes, caps 0x87 needs 60"
	run -1 "$PMDECODE" ibs "00 00"
	assert_output "pmdecode: IBS op record of 2 bytes: no capabilities word"
}

@test "IBS: caps BrnTrgt and OpData4 add IbsBrTarget and IbsOpData4" {
	run -0 "$PMDECODE" ibs "$(ibs_raw caps=0xa7 IbsOpBrnRet=1 brtarget=0x401100)"
	decodes_to "$(ibs_out branch=1)"
	run -1 "$PMDECODE" ibs "$(ibs_raw caps=0xa7 cut=8)"
	assert_output "pmdecode: IBS op record of 60 bytes, caps 0xa7 needs 68"
	run -0 "$PMDECODE" ibs "$(ibs_raw caps=0x4a7 IbsLdOp=1)"
	decodes_to "$(ibs_out loads=1)"
	run -1 "$PMDECODE" ibs "$(ibs_raw caps=0x4a7 cut=8)"
	assert_output "pmdecode: IBS op record of 68 bytes, caps 0x4a7 needs 76"
}

@test "PEBS: INST_RETIRED samples are retirements; retire latency is delay" {
	run -0 "$PMDECODE" pebs event=retired ip=0x401000
	decodes_to ip=0x401000 data_addr=0 retire=1 valid=1
	run -0 "$PMDECODE" pebs event=retired ip=0x401000 retire_lat=42
	decodes_to ip=0x401000 data_addr=0 delay=42 retire=1 valid=1
}

@test "PEBS: branch events" {
	run -0 "$PMDECODE" pebs event=mispredict ip=0x10
	decodes_to ip=0x10 data_addr=0 mispredict=1 valid=1 branch=1
	run -0 "$PMDECODE" pebs event=branches ip=0x10
	decodes_to ip=0x10 data_addr=0 valid=1 branch=1
	run -0 "$PMDECODE" pebs event=taken ip=0x10
	decodes_to ip=0x10 data_addr=0 valid=1 branch=1 branch_taken=1
}

@test "PEBS load latency: weight is load_latency, data_src says L1 and STLB" {
	local src
	src=$(data_src op=LOAD lvl=L3,HIT lvlnum=L3 tlb=L1,L2,HIT)
	run -0 "$PMDECODE" pebs event=loads ip=0x10 addr=0x7000 weight=250 data_src="$src"
	decodes_to ip=0x10 data_addr=0x7000 dtb_miss=0 valid=1 dcache_miss=1 \
		load_latency=250 loads=1
	src=$(data_src op=LOAD lvl=L1,HIT lvlnum=L1 tlb=L1,L2,HIT)
	run -0 "$PMDECODE" pebs event=loads ip=0x10 addr=0x7000 weight=5 data_src="$src"
	decodes_to ip=0x10 data_addr=0x7000 dtb_miss=0 valid=1 dcache_miss=0 \
		load_latency=5 loads=1
	# A fill-buffer hit missed L1; an STLB miss is TLB MISS|L2.
	src=$(data_src op=LOAD lvl=LFB,HIT lvlnum=LFB tlb=L2,MISS)
	run -0 "$PMDECODE" pebs event=loads ip=0x10 addr=0x7000 weight=9 data_src="$src"
	decodes_to ip=0x10 data_addr=0x7000 dtb_miss=1 valid=1 dcache_miss=1 \
		load_latency=9 loads=1
	# Nothing known: no miss charged.
	src=$(data_src op=LOAD)
	run -0 "$PMDECODE" pebs event=loads ip=0x10 weight=9 data_src="$src"
	decodes_to ip=0x10 data_addr=0 dtb_miss=0 valid=1 dcache_miss=0 \
		load_latency=9 loads=1
}

@test "PEBS stores: data_src, no latency" {
	run -0 "$PMDECODE" pebs event=stores ip=0x10 addr=0x8000 \
		data_src="$(data_src op=STORE lvl=L1,MISS tlb=L1,HIT)"
	decodes_to ip=0x10 data_addr=0x8000 dtb_miss=0 valid=1 dcache_miss=1 \
		stores=1
}

spe_out() {
	local -A v=([ip]=0x401000 [data_addr]=0 [retire]=1 [valid]=1)
	local a s
	for a; do v[${a%%=*}]=${a#*=}; done
	echo "ip=${v[ip]}"
	echo "data_addr=${v[data_addr]}"
	for s in abort cbr_taken cycles dtb_miss ldst_align_trap mispredict \
		retire trap valid dcache_miss load_latency loads stores \
		branch branch_taken; do
		[[ $s == cycles && -z ${v[cycles]} ]] && continue
		echo "$s=${v[$s]:-0}"
	done
}

@test "SPE: load, store and their events, whole outputs" {
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=ld va=0x7ffd0000 \
		events=RETIRED,L1D_REFILL,TLB_WALK total=120 issue=20)"
	decodes_to "$(spe_out data_addr=0x7ffd0000 cycles=120 dtb_miss=1 \
		dcache_miss=1 load_latency=100 loads=1)"
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=st events=RETIRED,ALIGNMENT)"
	decodes_to "$(spe_out stores=1 ldst_align_trap=1)"
}

@test "SPE: branches: conditional, taken or not, mispredicted" {
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=brcond events=RETIRED)"
	decodes_to "$(spe_out branch=1 branch_taken=1 cbr_taken=1)"
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=brcond events=RETIRED,NOT_TAKEN)"
	decodes_to "$(spe_out branch=1)"
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=br events=RETIRED,MISPRED)"
	decodes_to "$(spe_out branch=1 branch_taken=1 mispredict=1)"
}

@test "SPE: an op that did not retire is abort, not retire" {
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x401000 op=other events=L1D_ACCESS)"
	decodes_to "$(spe_out retire=0 abort=1)"
}

@test "SPE: kernel PCs are sign-extended from bit 55; EL bits dropped" {
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x40ffff8000101234 op=other events=RETIRED)"
	assert_line ip=0xffffff8000101234
}

@test "SPE: records split at End; padding between; no PC is dropped" {
	run -0 "$PMDECODE" spe "$(spe_rec pc=0x10 op=other events=RETIRED)0000$(spe_rec pc=0x20 op=st events=RETIRED)"
	assert_line ip=0x10
	assert_line -- --
	assert_line ip=0x20
	run -3 "$PMDECODE" spe "$(spe_rec op=other events=RETIRED)"
	assert_output dropped
	run -1 "$PMDECODE" spe "$(spe_rec pc=0x10 op=ld end=0)"
	assert_output "pmdecode: SPE record at the end of the 11-byte buffer has no End packet"
	run -1 "$PMDECODE" spe "b0 00 10"
	assert_output --partial "runs past the 3-byte buffer"
}

# fake_sysfs DEV TYPE [FILE...]: a sysfs root in $BATS_TEST_TMPDIR/sys
# with bus/event_source/devices/DEV/type = TYPE and the given files.
fake_sysfs() {
	local d=$BATS_TEST_TMPDIR/sys/bus/event_source/devices/$1 f
	mkdir -p "$d"
	echo "$2" >"$d/type"
	shift 2
	for f; do
		mkdir -p "$(dirname "$d/$f")"
		echo "${f#*=}" >"$d/${f%%=*}"
	done
	export UPROFILE_SYSFS=$BATS_TEST_TMPDIR/sys
}

@test "golden: IBS ops (ibs_op type 11, cnt_ctl): one event, no exclude bits" {
	fake_sysfs ibs_op 11 format/cnt_ctl=config:19
	golden ibs-ops "$UPROFILE" --dry-run --pmu=amd-ibs \
		-e retire,cycles,delay,mispredict,dtb_miss,dcache_miss,load_latency \
		-c 65536 true
}

@test "golden: IBS with swfilt filters modes in the kernel (config2:0)" {
	fake_sysfs ibs_op 11 format/cnt_ctl=config:19 format/swfilt=config2:0
	golden ibs-swfilt "$UPROFILE" --dry-run --pmu=amd-ibs -e retire,loads true
}

@test "IBS: a period that is not a multiple of 16 ops is refused" {
	fake_sysfs ibs_op 11
	run -125 "$UPROFILE" --dry-run --pmu=amd-ibs -e retire -c 1000 true
	assert_output "uprofile: -c 1000: IBS op periods are multiples of 16 ops (try -c 1008)"
}

@test "golden: PEBS on Sapphire Rapids: one precise event per kind" {
	fake_sysfs cpu 4 caps/pmu_name=sapphire_rapids caps/max_precise=3
	golden pebs-spr "$UPROFILE" --dry-run --pmu=intel-pebs \
		-e retire,delay,loads,load_latency,dcache_miss,dtb_miss,mispredict,stores \
		-c 10007 true
}

@test "PEBS: delay needs retire latency, which Skylake does not record" {
	fake_sysfs cpu 4 caps/pmu_name=skylake
	run -125 "$UPROFILE" --dry-run --pmu=intel-pebs -e retire,delay true
	assert_output "uprofile: 'delay' is not available from intel-pebs: this core's PEBS records have no retire latency (Sapphire Rapids and later)"
}

@test "golden: Arm SPE (arm_spe_0 type 9), AUX area" {
	fake_sysfs arm_spe_0 9
	golden spe "$UPROFILE" --dry-run --pmu=arm-spe -e retire,cycles,cbr_taken true
}

@test "Arm SPE: collection says the AUX area is not implemented" {
	fake_sysfs arm_spe_0 9
	run -125 "$UPROFILE" --pmu=arm-spe -e retire "$TPROG/exitwith" 0
	assert_output "uprofile: arm-spe: collecting from the AUX area is not implemented (its packets are decoded, see docs/profileme.md)"
	[[ ! -e umon.out ]]
}

@test "a statistic the family does not record is refused with alternatives" {
	fake_sysfs ibs_op 11
	run -125 "$UPROFILE" --dry-run --pmu=amd-ibs -e cbr_taken true
	assert_output --partial "uprofile: 'cbr_taken' is not available: amd-ibs samples do not record it"
	assert_output --partial "try: cycles, delay,"
}

@test "--pmu=auto without an instruction sampler here says so" {
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	UPROFILE_SYSFS=$BATS_TEST_TMPDIR/empty run -125 "$UPROFILE" --dry-run --pmu=auto -e retire true
	assert_output "uprofile: no instruction-sampling PMU here (AMD IBS, Intel PEBS or Arm SPE)"
	run -125 "$UPROFILE" --dry-run --pmu=nosuch -e retire true
	assert_output --partial "--pmu: unknown family 'nosuch'"
}

@test "kprofile: IBS samples every mode; the collector keeps the asked ones" {
	fake_sysfs ibs_op 11 format/cnt_ctl=config:19
	run -0 "$KPROFILE" --dry-run --pmu=amd-ibs -e retire:k
	assert_line '  type 11'
	assert_line '  exclude_user 0 exclude_kernel 0 exclude_hv 0 exclude_callchain_user 0'
	assert_line '  profile-me amd-ibs ibs_op: retire'
}

@test "IBS with --call-graph=dwarf: user frames from the kernel's chain, no stack copy" {
	fake_sysfs ibs_op 11 format/cnt_ctl=config:19
	run -0 "$UPROFILE" --dry-run --pmu=amd-ibs --call-graph=dwarf \
		-e retire -c 65536 true
	# The IBS event (event 1): CALLCHAIN (0x20) with the user part, no
	# REGS_USER/STACK_USER.
	local ibs
	ibs=$(sed -n '/^event 1$/,$p' <<<"$output")
	[[ $ibs == *"sample_type 0x105a7"* ]] || fail "IBS event: $ibs"
	[[ $ibs == *"exclude_callchain_user 0"* ]] || fail "IBS event: $ibs"
	[[ $ibs != *sample_regs_user* ]] || fail "IBS event: $ibs"
}

@test "perf.data of IBS op samples (perf record -e ibs_op// -R elsewhere): profile-me statistics and ratios per procedure, as constructed" {
	# tests/tools/mkibsdata.py: 300 ops in hot_a of 40 cycles each, 100
	# in hot_b of 10 cycles, 50 of them mispredicted branches
	cd "$BATS_TEST_TMPDIR"
	python3 "$ROOT/tests/tools/mkibsdata.py" "$TPROG/spin2" ibs.data
	run -0 --separate-stderr "$UPROFILE" -i ibs.data --format json
	local json=$output
	# the statistics IBS met, no column for those it never met
	assert_equal "$(jq -c '[.statistics[] | select(.derived | not) | .name] | sort' <<<"$json")" \
		'["branch","cycles","mispredict","retire","valid"]'
	assert_equal "$(jq -c '[.rows[] | [.procedure, .samples.retire,
		.ratios.cycles_per_ret.value, .ratios.mispredict_per_ret.value]]' <<<"$json")" \
		'[["hot_a",300,40,0],["hot_b",100,10,50]]'
	run -0 "$UPROFILE" -i ibs.data
	assert_line --regexp '^  cycles_per_ret = cycles / retire: 32\.5 for the whole run$'
	assert_line --regexp '^  mispredict_per_ret = 100 \* mispredict / retire: 12\.5 for the whole run$'
}
