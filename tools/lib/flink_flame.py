#!/usr/bin/env python3
"""Where a running Flink job's operator threads spend their CPU, from Flink's own stack sampling.

  python3 tools/lib/flink_flame.py JOB_NAME VERTEX_SUBSTRING SECONDS [OUT.json]

Asks the JobManager's REST API (rest.flamegraph.enabled, infra/local/flink/config.yaml) for the
on-CPU flame graph of the first vertex of the running job JOB_NAME whose name contains
VERTEX_SUBSTRING, once a minute for SECONDS (Flink samples each subtask's threads 100 times, 50 ms
apart, and keeps the graph for a minute: asking more often returns the same samples). Sums the
samples of every graph and prints, and writes to OUT.json when given, one JSON object: the samples,
the frames with the most samples on top of the stack (self), and with the most anywhere in the
stack (total), each as a share of the samples. A sample is a thread seen RUNNABLE; a task thread
that keeps up is idle (waiting for input) most of the time and leaves few.
"""
import json
import os
import sys
import time
import urllib.request

if len(sys.argv) not in (4, 5):
    sys.exit(__doc__)
job_name, vertex_part, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
out_path = sys.argv[4] if len(sys.argv) == 5 else None
rest = f"http://127.0.0.1:{os.environ.get('FLINK_REST_PORT', '8081')}"


def get(path):
    with urllib.request.urlopen(rest + path, timeout=10) as r:
        return json.load(r)


jobs = [j for j in get("/jobs/overview")["jobs"] if j["name"] == job_name and j["state"] == "RUNNING"]
if not jobs:
    sys.exit(f"flink_flame: no running job named {job_name} at {rest}")
job = jobs[0]["jid"]
vertices = [v for v in get(f"/jobs/{job}")["vertices"] if vertex_part in v["name"]]
if not vertices:
    sys.exit(f"flink_flame: job {job_name} ({job}) has no vertex whose name contains {vertex_part!r}")
vertex = vertices[0]

self_count, total_count = {}, {}
samples, graphs, seen = 0, 0, set()


def walk(node, stack):
    """Adds a node's samples: its own (not in any child) as self, all of them to each frame once per stack."""
    global samples
    name = node["name"]
    inner = stack + [name] if name != "root" else stack
    children = node.get("children", [])
    own = node["value"] - sum(c["value"] for c in children)
    if own > 0 and inner:
        samples += own
        self_count[name] = self_count.get(name, 0) + own
        for frame in set(inner):
            total_count[frame] = total_count.get(frame, 0) + own
    for c in children:
        walk(c, inner)


deadline = time.time() + seconds
while True:
    graph = get(f"/jobs/{job}/vertices/{vertex['id']}/flamegraph?type=on_cpu")
    stamp = graph.get("endTimestamp", -1)
    # A negative stamp: the sampling has started and is not done yet.
    if stamp > 0 and stamp not in seen:
        seen.add(stamp)
        graphs += 1
        walk(graph["data"], [])
    if time.time() >= deadline:
        break
    # Flink answers with the graph it holds and samples anew once that is a minute old.
    time.sleep(min(10, max(1, deadline - time.time())))


def top(counts, n=25):
    return [
        {"frame": f, "share": round(c / samples, 4), "samples": c}
        for f, c in sorted(counts.items(), key=lambda kv: -kv[1])[:n]
    ]


result = {
    "measurement": "flink_flame",
    "command": " ".join(["python3", "tools/lib/flink_flame.py"] + sys.argv[1:4]),
    "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "job": job_name,
    "job_id": job,
    "vertex": vertex["name"],
    "graphs": graphs,
    "samples": samples,
    "self": top(self_count) if samples else [],
    "total": top(total_count, 80) if samples else [],
}
text = json.dumps(result, indent=1)
if out_path:
    with open(out_path, "w") as f:
        f.write(text + "\n")
print(text)
