#!/usr/bin/env python3
"""The CPU a TaskManager's snapshot threads spent per GB of checkpoint they wrote, over one jvm-profile window.

  python3 tools/lib/snapshot_cost.py JVM_PROFILE.json CHECKPOINTS.jsonl [JOB_ID ...]

JVM_PROFILE.json is `tools/jvm-profile flink-taskmanager ...`'s output (its `.collapsed.txt.gz` beside it);
CHECKPOINTS.jsonl is `tools/sample-checkpoints`'s, recorded over the same minutes. Counts the checkpoints
triggered inside the profile's window (of the given job ids, or all), and prints one JSON line: their number, mean
full size (MB), mean end-to-end duration, MB written per second, the cores of the `AsyncOperations` threads (where a
heap-backend checkpoint serializes its state), those cores per GB/s written (CPU seconds per GB), and the share of
the snapshot threads' samples under Flink's or our string serializer (docs/MEASUREMENTS.md, "The windows job's
keys written in one call").
"""
import datetime
import gzip
import json
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
profile_path, checkpoints_path, job_ids = sys.argv[1], sys.argv[2], set(sys.argv[3:])
profile = json.load(open(profile_path))
end = datetime.datetime.strptime(profile["measured_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
    tzinfo=datetime.timezone.utc).timestamp()
start = end - profile["seconds"]
checkpoints = [c for c in map(json.loads, open(checkpoints_path))
               if start <= c["trigger_ms"] / 1000 <= end and (not job_ids or c["job"] in job_ids)]
if not checkpoints:
    sys.exit(f"no checkpoint in {checkpoints_path} was triggered inside the profile's window "
             f"({profile['measured_at']} minus {profile['seconds']} s)")

snapshot_samples = string_samples = 0
with gzip.open(profile_path.removesuffix(".json") + ".collapsed.txt.gz", "rt") as stacks:
    for line in stacks:
        stack, count = line.rsplit(" ", 1)
        if stack.startswith("[AsyncOperations"):
            snapshot_samples += int(count)
            if "StringSerializer" in stack:
                string_samples += int(count)
snapshot_cores = sum(g["cores"] for g in profile["thread_groups"] if g["threads"].startswith("AsyncOperations"))
written_mb = sum(c["state_size"] for c in checkpoints) / 1e6
mb_per_s = written_mb / profile["seconds"]
print(json.dumps({
    "checkpoints": len(checkpoints),
    "mean_state_mb": round(written_mb / len(checkpoints), 1),
    "mean_end_to_end_ms": round(sum(c["e2e_ms"] for c in checkpoints) / len(checkpoints)),
    "written_mb_per_s": round(mb_per_s, 2),
    "snapshot_cores": round(snapshot_cores, 3),
    "snapshot_cpu_s_per_gb": round(snapshot_cores * 1000 / mb_per_s, 1),
    "string_serializer_share_of_snapshot": round(string_samples / max(1, snapshot_samples), 3),
    "taskmanager_cores": profile["cores_proc"],
}))
