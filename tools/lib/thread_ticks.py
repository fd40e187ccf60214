#!/usr/bin/env python3
"""CPU ticks of every thread of the given processes, for tools/bench-stack profile.

  thread_ticks.py snapshot NAME=PID ...   -> JSON {name: {tid: [thread name, ticks]}} on stdout
  top(before, after, seconds, n=6)         -> {name: [{thread, cores}, ...]} (imported by bench-stack)
  jit(before, after, seconds)              -> {name: cores} of the JVMs' JIT compiler threads (imported too)

`top` groups a process's threads by name with trailing digits dropped (a pool's workers
"data-plane-kafka-request-handler-0", "-1" count as one) and keeps the N largest (default 6).
A thread that started or ended inside the window counts only its ticks inside the window when it
was in both snapshots; a new one counts all its ticks; an ended one is lost (its ticks went with it).
"""
import json
import os
import re
import sys


def snapshot(pairs):
    out = {}
    for pair in pairs:
        name, _, pid = pair.partition("=")
        threads = {}
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError:
            tids = []
        for tid in tids:
            try:
                stat = open(f"/proc/{pid}/task/{tid}/stat").read()
            except (FileNotFoundError, ProcessLookupError):
                continue
            # The thread name sits in parentheses and may itself hold spaces or parentheses.
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            threads[tid] = [comm, int(fields[11]) + int(fields[12])]
        out[name] = threads
    return out


def deltas(before, after):
    """(process, thread name, ticks in the window) for every thread in the after snapshot."""
    for name, threads in after.items():
        for tid, (comm, ticks) in threads.items():
            earlier = before.get(name, {}).get(tid)
            yield name, comm, ticks - (earlier[1] if earlier else 0)


def top(before, after, seconds, n=6):
    hz = os.sysconf("SC_CLK_TCK")
    groups = {name: {} for name in after}
    for name, comm, delta in deltas(before, after):
        key = re.sub(r"[-_ #]?\d+$", "", comm) or comm
        groups[name][key] = groups[name].get(key, 0) + delta
    result = {}
    for name, g in groups.items():
        ranked = sorted(g.items(), key=lambda kv: -kv[1])[:n]
        result[name] = [{"thread": k, "cores": round(v / hz / seconds, 4)} for k, v in ranked if v > 0]
    return result


# HotSpot's compiler threads are "C1 CompilerThread0", "C2 CompilerThread1" (cut to 15 characters by the kernel).
JIT_THREAD = re.compile(r"^C[12] CompilerThre")


def jit(before, after, seconds):
    """Cores each process's JIT compiler threads took in the window; processes without any are left out.

    A JVM compiles its hot code in its first minutes under a new load, so a window right after a start
    (stack.sh up, restart-node) measures the compilers as well as the work: the figure says how much.
    """
    hz = os.sysconf("SC_CLK_TCK")
    ticks = {}
    for name, comm, delta in deltas(before, after):
        if JIT_THREAD.match(comm):
            ticks[name] = ticks.get(name, 0) + delta
    return {name: round(t / hz / seconds, 4) for name, t in ticks.items() if t > 0}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "snapshot":
        sys.exit("usage: thread_ticks.py snapshot NAME=PID ...")
    json.dump(snapshot(sys.argv[2:]), sys.stdout)
