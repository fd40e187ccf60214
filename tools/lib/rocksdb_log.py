#!/usr/bin/env python3
"""Sums what RocksDB's own LOG files say about a running Flink job's flushes and compactions (any job on RocksDB).

  python3 tools/lib/rocksdb_log.py JOB_ID    (while the job runs: Flink deletes a job's RocksDB
                                              directory, LOG included, when the job ends)

Reads <repo>/.run/flink/tmp/**/job_<JOB_ID>_*/db/LOG* (one RocksDB instance per keyed operator subtask, and also
the directories of TaskManagers killed while the job ran, which Flink leaves behind until the stack starts the next
TaskManager: after a restore the sum counts each incarnation) and prints
one JSON line: compactions, their CPU seconds and output MB, and flushes with the MB they flushed. Output MB
over flushed MB is the write amplification of compaction (docs/FLINK.md, "Dedup compaction"); flushes over time
and MB per flush show a flush storm (docs/MEASUREMENTS.md, "The windows job's state at 2,000 events/s").
"""
import glob
import json
import os
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
total = {"compactions": 0, "compaction_cpu_s": 0.0, "compaction_out_mb": 0.0, "flushes": 0, "flushed_mb": 0.0}
flink_tmp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".run", "flink", "tmp")
for path in glob.glob(f"{flink_tmp}/**/job_{sys.argv[1]}_*/db/LOG*", recursive=True):
    for line in open(path, errors="replace"):
        at = line.find("EVENT_LOG_v1 ")
        if at < 0:
            continue
        event = json.loads(line[at + len("EVENT_LOG_v1 "):])
        kind = event.get("event")
        if kind == "compaction_finished":
            total["compactions"] += 1
            total["compaction_cpu_s"] += event["compaction_time_cpu_micros"] / 1e6
            total["compaction_out_mb"] += event["total_output_size"] / 1e6
        elif kind == "flush_started":
            total["flushes"] += 1
            total["flushed_mb"] += event.get("total_data_size", 0) / 1e6
print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in total.items()}))
