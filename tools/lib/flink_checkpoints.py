#!/usr/bin/env python3
"""Records every completed checkpoint of a running Flink job, by name, as JSON lines, for a while.

  python3 tools/lib/flink_checkpoints.py JOB_NAME SECONDS OUT.jsonl    (FLINK_REST, default http://127.0.0.1:8081)

Polls the job's checkpoint history every 15 s (Flink keeps the last 10; at a 5 s interval that is 50 s of them) and
appends one line per checkpoint it has not written yet: the job id, the checkpoint id, its trigger time (epoch ms),
its full and checkpointed sizes in bytes, and its end-to-end duration. A resubmitted job is followed under its new id.
Beside `tools/jvm-profile`, it gives the bytes the snapshot threads wrote in the same window, so that their CPU can be
compared per byte between runs whose state differs in size (docs/MEASUREMENTS.md, "The windows job's keys written
in one call").
"""
import json
import os
import sys
import time
import urllib.request

if len(sys.argv) != 4:
    sys.exit(__doc__)
name, out_path = sys.argv[1], sys.argv[3]
try:
    seconds = float(sys.argv[2])
except ValueError:
    sys.exit(f"SECONDS must be a number, got {sys.argv[2]!r}\n{__doc__}")
rest = os.environ.get("FLINK_REST", "http://127.0.0.1:8081")


def get(path):
    with urllib.request.urlopen(rest + path, timeout=10) as response:
        return json.load(response)


seen = set()
written = 0
deadline = time.time() + seconds
with open(out_path, "a") as out:
    while True:
        try:
            jobs = [j for j in get("/jobs/overview")["jobs"] if j["name"] == name and j["state"] == "RUNNING"]
            for job in jobs:
                for c in get(f"/jobs/{job['jid']}/checkpoints").get("history", []):
                    if c["status"] != "COMPLETED" or (job["jid"], c["id"]) in seen:
                        continue
                    seen.add((job["jid"], c["id"]))
                    row = {"job_id": job["jid"], "checkpoint": c["id"], "trigger_ms": c["trigger_timestamp"],
                           "state_size": c["state_size"], "checkpointed_size": c["checkpointed_size"],
                           "end_to_end_ms": c["end_to_end_duration"]}
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    written += 1
        except OSError as e:
            print(f"flink_checkpoints: {rest} did not answer ({e}); trying again", file=sys.stderr)
        if time.time() >= deadline:
            break
        time.sleep(min(15, max(0.0, deadline - time.time())))
print(f"flink_checkpoints: {written} checkpoints of {name} written to {out_path}", file=sys.stderr)
