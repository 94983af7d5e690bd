#!/usr/bin/env python3
"""CPU time of process trees, from /proc (bench/mail.sh).

  cputree.py snap FILE NAME=PID...   record the CPU ticks of each named
                                     process and its descendants, and of
                                     the whole machine, in FILE
  cputree.py diff FILE1 FILE2 [MAILS]
                                     print what each tree used between the
                                     two snapshots, by program, and the
                                     machine's busy time (MAILS: per mail)

A process's time is its utime + stime; a child that exited and was reaped
counts in its parent's cutime + cstime, so a tree's time is the sum of both
over its live processes. A child that was alive at the first snapshot and
gone at the second is taken out again (its time before the first snapshot
is in its parent's cutime too). Per program, the time of children that
exited meanwhile is shown as "(exited)".
"""
import json
import os
import sys

HZ = os.sysconf("SC_CLK_TCK")


def procs():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        f = s[s.rindex(")") + 2:].split()
        # fields from 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17
        out[int(d)] = (comm, int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14]))
    return out


def tree(ps, root):
    kids = {}
    for pid, (_, ppid, _, _) in ps.items():
        kids.setdefault(ppid, []).append(pid)
    seen, todo = [], [root]
    while todo:
        p = todo.pop()
        if p in ps and p not in seen:
            seen.append(p)
            todo.extend(kids.get(p, []))
    return {str(p): ps[p] for p in seen}


def machine():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])


def snap(path, specs):
    ps = procs()
    trees = {}
    for spec in specs:
        name, pid = spec.split("=", 1)
        trees[name] = tree(ps, int(pid)) if pid.isdigit() else {}
    busy, total = machine()
    with open(path, "w") as f:
        json.dump({"trees": trees, "busy": busy, "total": total,
                   "cores": os.cpu_count()}, f)


def diff(p1, p2, mails):
    a, b = json.load(open(p1)), json.load(open(p2))
    wall = (b["total"] - a["total"]) / HZ / a["cores"]
    busy = (b["busy"] - a["busy"]) / HZ
    print("CPU over the run: %.1f s wall; the machine's %d cores busy %.1f s of %.1f s (%.0f %%, "
          "every program on the machine)" % (wall, a["cores"], busy, wall * a["cores"],
                                             100 * busy / max(wall * a["cores"], 1e-9)))
    for name, tb in b["trees"].items():
        ta = a["trees"].get(name, {})
        by = {}
        total = 0
        for pid, (comm, _, own, kids) in tb.items():
            old = ta.get(pid)
            d_own = own - (old[2] if old else 0)
            d_kids = kids - (old[3] if old else 0)
            by[comm] = by.get(comm, 0) + d_own
            by["(exited)"] = by.get("(exited)", 0) + d_kids
            total += d_own + d_kids
        for pid, (comm, _, own, kids) in ta.items():
            if pid not in tb:  # died: its earlier time is in a parent's cutime
                by["(exited)"] = by.get("(exited)", 0) - own - kids
                total -= own + kids
        parts = ", ".join("%s %.2f" % (c, t / HZ)
                          for c, t in sorted(by.items(), key=lambda x: -x[1]) if t)
        per = " (%.2f ms a mail)" % (total * 1000 / HZ / mails) if mails else ""
        print("  %-8s %6.2f s CPU%s: %s" % (name, total / HZ, per, parts or "-"))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "snap":
        snap(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 0)
    else:
        sys.exit(__doc__)
