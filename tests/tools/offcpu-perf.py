#!/usr/bin/env python3
"""Per-thread off-CPU time from perf's sched:sched_switch, against a report.

Usage: offcpu-perf.py PERF_SCRIPT REPORT_JSON PID [PERCENT SLACK_MS [TID...]]

PERF_SCRIPT is the output of
    perf script --ns -F trace:tid,cpu,time,event,trace
of a system-wide (-a) recording of sched:sched_switch and
sched:sched_process_exec taken around the run that made REPORT_JSON
(uprofile -i FILE --format json of an offcpu profile), whose program ran
as process PID.

A thread is off CPU from each sched_switch that takes it off a CPU
(prev_pid) to the next that puts it on one (next_pid): the kernel's own
switch points, the same that the profiler's switch records mark.  Only
intervals that start after PID's exec count (the profiler starts there);
a last switch out with no switch in after it (the thread's exit) counts
nothing, as it does in the profiler.

For every thread of PID in the report's .threads, the report's off-CPU
time (blocked + blocked-io + preempted) must be within PERCENT (default
2) of perf's plus SLACK_MS (default 5) milliseconds.  Prints one line per
thread; exits 1 (naming the threads) if any is outside, 2 on bad input.

Each TID given is a thread of PID that may have no row in the report: an
offcpu profile has none for a thread that was never off CPU (a spinner
on a machine with CPUs to spare).  Without a row its off-CPU time is 0,
checked against perf's like the others'.
"""
import json
import re
import sys

SWITCH = re.compile(r'^\s*(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_switch:'
                    r'.*\bprev_pid=(\d+)\b.*\bprev_state=(\S+)'
                    r'.*==>.*\bnext_pid=(\d+)\b')
EXEC = re.compile(r'^\s*(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_process_exec:'
                  r'.*\bpid=(\d+)\b')


def ns(sec, frac):
    # perf script --ns prints 9 digits; be safe with fewer.
    return int(sec) * 1000000000 + int((frac + '000000000')[:9])


def main(argv):
    if len(argv) < 4 or len(argv) == 5:
        print(__doc__, file=sys.stderr)
        return 2
    script, report, pid = argv[1], argv[2], int(argv[3])
    pct = float(argv[4]) if len(argv) >= 6 else 2.0
    slack = float(argv[5]) * 1e6 if len(argv) >= 6 else 5e6
    expected = [int(a) for a in argv[6:]]

    with open(report) as f:
        doc = json.load(f)
    threads = (doc.get('threads') or {}).get('threads') or []
    ours = {t['tid']: t for t in threads if t['pid'] == pid}
    if not ours:
        print(f'no thread of pid {pid} in the report', file=sys.stderr)
        return 2

    events = []
    exec_at = None
    with open(script) as f:
        for line in f:
            m = SWITCH.match(line)
            if m:
                events.append((ns(m.group(3), m.group(4)),
                               int(m.group(5)), int(m.group(7))))
                continue
            if 'sched:sched_switch:' in line:
                # A switch not read would drop an interval: say so.
                print(f'unreadable line in {script}: {line.rstrip()}',
                      file=sys.stderr)
                return 2
            m = EXEC.match(line)
            if m and int(m.group(5)) == pid:
                exec_at = ns(m.group(3), m.group(4))
    if exec_at is None:
        print(f'no exec of pid {pid} in {script}', file=sys.stderr)
        return 2
    events.sort()
    out_at = {}
    off = {}
    for t, prev, nxt in events:
        if t >= exec_at and prev:
            out_at[prev] = t
        if nxt in out_at:
            off[nxt] = off.get(nxt, 0) + t - out_at.pop(nxt)
    bad = []
    for tid in sorted(set(ours) | set(expected)):
        if tid in ours:
            s = ours[tid]['seconds']
            mine = round(1e9 * (s['blocked'] + s['blocked-io'] +
                                s['preempted']))
        else:
            mine = 0
        theirs = off.get(tid, 0)
        tol = pct / 100 * theirs + slack
        ok = abs(mine - theirs) <= tol
        print(f'tid {tid}: uprofile {mine / 1e6:.3f} ms, perf '
              f'{theirs / 1e6:.3f} ms, difference '
              f'{(mine - theirs) / 1e6:+.3f} ms (tolerance '
              f'{tol / 1e6:.3f} ms){"" if tid in ours else ", no row"}'
              f'{"" if ok else "  <-- outside"}')
        if not ok:
            bad.append(tid)
    if bad:
        print('off-CPU times differ from perf for tid ' +
              ', '.join(map(str, bad)), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
