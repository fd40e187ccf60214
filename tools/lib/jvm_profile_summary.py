#!/usr/bin/env python3
"""Summarises async-profiler's collapsed stacks (with `threads`) as JSON, for tools/jvm-profile.

  python3 tools/lib/jvm_profile_summary.py IN.collapsed COMPONENT SECONDS COMMAND OUT.json PROC_CPU_CENTISECONDS

Each input line is `[thread name tid=N];frame;...;leaf COUNT`, one CPU sample per 10 ms of a
thread's CPU time. Threads are grouped by name with their numbers replaced by N (a pool's threads
together). For the whole JVM and for each group: the samples, their share, the cores they stand for
(samples x 10 ms / SECONDS), the frames most often on top of the stack (self) and anywhere in it
(total, each frame counted once per stack). Writes OUT.json and prints the busiest groups.
"""
import json
import re
import sys
from datetime import datetime, timezone
from collections import Counter, defaultdict

INTERVAL_S = 0.010
TOP = 12

if len(sys.argv) != 7:
    sys.exit(__doc__)
proc_cpu_s = int(sys.argv[6]) / 100
path, component, seconds, command, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]

groups = defaultdict(lambda: {"samples": 0, "self": Counter(), "total": Counter()})
whole = {"samples": 0, "self": Counter(), "total": Counter()}
with open(path) as f:
    for line in f:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        thread = "?"
        if frames and frames[0].startswith("["):
            thread = re.sub(r"\s*tid=\d+\]$", "", frames[0][1:]).rstrip("]")
            frames = frames[1:]
        name = re.sub(r"\d+", "N", thread)
        for g in (groups[name], whole):
            g["samples"] += n
            if frames:
                g["self"][frames[-1]] += n
            for fr in set(frames):
                g["total"][fr] += n


def view(g, of):
    return {
        "samples": g["samples"],
        "share": round(g["samples"] / of, 4) if of else 0,
        "cores": round(g["samples"] * INTERVAL_S / seconds, 4),
        "self": [{"frame": k, "share": round(v / g["samples"], 4)} for k, v in g["self"].most_common(TOP)],
        "total": [{"frame": k, "share": round(v / g["samples"], 4)} for k, v in g["total"].most_common(TOP)],
    }


total = whole["samples"]
out = {
    "measurement": "jvm-profile",
    "command": command,
    "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "component": component,
    "seconds": seconds,
    "samples": total,
    "cores_sampled": round(total * INTERVAL_S / seconds, 4),
    # the process's CPU time by /proc over the same seconds: the samples' coverage of it
    "cores_proc": round(proc_cpu_s / seconds, 4),
    "self": view(whole, total)["self"],
    "thread_groups": [
        {"threads": name, **view(g, total)}
        for name, g in sorted(groups.items(), key=lambda kv: -kv[1]["samples"])
    ],
}
with open(out_path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(f"{component}: {total} samples in {seconds} s = {out['cores_sampled']} cores (/proc: {out['cores_proc']})")
for g in out["thread_groups"][:10]:
    top = g["self"][0]["frame"][:80] if g["self"] else "-"
    print(f"  {g['threads'][:28]:<28} {g['cores']:.3f} cores {g['share']:6.1%}  top self: {top}")
