#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare decodecheck's instructions with objdump's.

    objdump-compare.py DECODECHECK_OUTPUT OBJDUMP_OUTPUT

DECODECHECK_OUTPUT: "VADDR LEN FLAGS TEXT" lines (tests/tools/decodecheck.c).
OBJDUMP_OUTPUT: objdump -d -M intel --insn-width=16 of the same object.

Boundaries: every instruction we decoded must start where objdump has one
and have its length.  Entries flagged d without u (bytes a branch target
or an unwind entry cuts inside an instruction, shown as "(bad)") are no
claim about an instruction and are only counted; entries flagged u (an
instruction the decoder does not know) are failures.  One overlap is
real code, not a difference: glibc jumps over the lock prefix of "lock
cmpxchg" when single-threaded, so the code holds both "lock cmpxchg" (as
objdump sweeps it) and "cmpxchg" one byte later (where the branch
lands, the prefix byte before it data for us).  That is counted apart
(lock_skips) and passes only in exactly that shape.

Mnemonics are compared after these normalisations, each a difference of
syntax between binutils and the Intel names we show, not of decoding:

 1. Prefixes are not the mnemonic: lock, rep*, bnd, notrack, xacquire,
    xrelease, data16, addr32, segment overrides, rex* are dropped from
    both sides before the first word is taken.
 2. objdump names string instructions without their size in Intel
    syntax ("stos", "movs"); we say stosb, movsq, ...: the size letter
    is dropped when objdump's name is a string instruction's.
 3. objdump folds a comparison predicate into the mnemonic
    (vpcmpneqb, vcmpltps, vpcmpequd); we show the base instruction with
    the predicate as an immediate (vpcmpb ..., 4): when the names differ
    the predicate is dropped from objdump's name (vpcmpeqb and vpcmpgtb
    are also instructions of their own, compared as they are).
 4. "xchg ax, ax" (66 90) is objdump's name for what Intel calls a
    two-byte nop.
 5. objdump's "nopw"/"nopl" (a size in the name) and our "nop".
 6. objdump writes the pseudo-prefix "{vex}" before AVX-VNNI's VEX forms
    (vpdpbusd), which share their name with the EVEX ones: dropped.

Output: one line per failure (up to --show), then a summary line
    boundaries=OK/TOTAL mnemonics=OK/TOTAL data=N unknown=N
and the counts of the differing mnemonic pairs.  Exit status 0 when all
boundaries and mnemonics agree, 1 otherwise.
"""
import argparse
import collections
import re
import sys

PREFIXES = {
    "lock", "rep", "repe", "repz", "repne", "repnz", "bnd", "notrack",
    "xacquire", "xrelease", "data16", "data32", "addr32", "cs", "ds", "es",
    "fs", "gs", "ss",
}
STRING_OPS = {"movs", "stos", "lods", "scas", "cmps", "ins", "outs"}
CMP_PRED = ("eq_uq|eq_os|eq_us|lt_oq|le_oq|unord_s|neq_oq|neq_os|neq_us|"
            "nlt_uq|nle_uq|ord_s|nge_uq|ngt_uq|false_oq|false_os|ge_oq|"
            "gt_oq|true_uq|true_us|lt_os|le_os|unord_q|ord_q|neq_uq|"
            "nlt_us|nle_us|eq_oq|nge_us|ngt_us|ge_os|gt_os|"
            "eq|lt|le|unord|neq|nlt|nle|ord|nge|ngt|false|ge|gt|true")
VCMP = re.compile(r"^(v?cmp)(%s)(ps|pd|ss|sd|ph|sh)$" % CMP_PRED)
VPCMP = re.compile(r"^(vpcmp|vpcom)(%s)(u?[bwdq])$" % CMP_PRED)


def mnemonic(text):
    for word in text.replace(",", " ").split():
        w = word.lower()
        if w in PREFIXES or w.startswith(("rex", "{")) or w.endswith(":"):
            continue
        return w
    return ""


def normal_objdump(m):
    m2 = VCMP.match(m) or VPCMP.match(m)
    if m2:
        return m2.group(1) + m2.group(3)
    if m in ("nopw", "nopl"):
        return "nop"
    return m


def same(ours, theirs_raw, text):
    if ours == theirs_raw:
        return True
    theirs = normal_objdump(theirs_raw)
    if ours == theirs:
        return True
    if theirs in STRING_OPS and ours[:-1] == theirs and ours[-1] in "bwdq":
        return True
    if theirs == "xchg" and ours == "nop" and re.search(r"xchg\s+ax,\s*ax",
                                                        text):
        return True
    return False


def read_objdump(path):
    insns = {}
    line_re = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
    with open(path) as f:
        for line in f:
            m = line_re.match(line.rstrip("\n"))
            if m:
                insns[int(m.group(1), 16)] = (len(m.group(2).split()),
                                              m.group(3).strip())
    return insns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("objdump")
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    ref = read_objdump(a.objdump)
    nb = okb = nm = okm = data = unknown = lock_skips = 0
    last_data = None
    pairs = collections.Counter()
    shown = 0
    with open(a.ours) as f:
        for line in f:
            va, ln, flags, text = line.rstrip("\n").split(" ", 3)
            va, ln = int(va, 16), int(ln)
            if "u" in flags:
                unknown += 1
                nb += 1
                if shown < a.show:
                    print("UNKNOWN %x %s" % (va, text))
                    shown += 1
                continue
            if "d" in flags:
                data += 1
                last_data = (va, ln)
                continue
            nb += 1
            r = ref.get(va)
            if not r and last_data and last_data[0] + last_data[1] == va:
                k = last_data[1]
                rl = ref.get(va - k)
                if rl and rl[0] == ln + k and mnemonic(rl[1]) and \
                        rl[1].startswith("lock ") and \
                        mnemonic(rl[1]) == mnemonic(text):
                    lock_skips += 1
                    okb += 1
                    continue
            if not r or r[0] != ln:
                if shown < a.show:
                    print("BOUNDARY %x len %d %s | objdump %s" %
                          (va, ln, text, r))
                    shown += 1
                continue
            okb += 1
            nm += 1
            ours, theirs = mnemonic(text), mnemonic(r[1])
            if same(ours, theirs, r[1]):
                okm += 1
            else:
                pairs[(ours, theirs)] += 1
                if shown < a.show:
                    print("MNEMONIC %x %s | objdump %s" % (va, text, r[1]))
                    shown += 1
    print("boundaries=%d/%d mnemonics=%d/%d data=%d unknown=%d "
          "lock_skips=%d" % (okb, nb, okm, nm, data, unknown, lock_skips))
    for (o, t), n in pairs.most_common(15):
        print("  %6d ours %s objdump %s" % (n, o, t))
    return 0 if okb == nb and okm == nm and nb else 1


if __name__ == "__main__":
    sys.exit(main())
