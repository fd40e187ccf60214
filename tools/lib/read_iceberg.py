"""Reads one run of the clean job's Iceberg table with pyiceberg, an Iceberg implementation that is
not ours, the way a user would: from the table's directory (Hadoop catalog: metadata/version-hint.text),
filtered on the partition column. Prints one JSON object on stdout: the partition spec, the schema,
the data files planned for the run and for a run that is not there, the run's row count and distinct
event ids, and with --rows every row.

Usage: python3 read_iceberg.py <table directory> <run id> [--rows]
Needs pyiceberg and pyarrow on PYTHONPATH (tools/setup: .cache/pyiceberg and .cache/pyarrow).
"""

import json
import sys

from pyiceberg.expressions import EqualTo
from pyiceberg.table import StaticTable


def main(table_dir: str, run_id: str, with_rows: bool) -> None:
    table = StaticTable.from_metadata(f"file://{table_dir}")
    scan = table.scan(row_filter=EqualTo("run_id", run_id))
    files = [task.file.file_path for task in scan.plan_files()]
    # Partition pruning: a run that is not in the table plans no file at all.
    absent = table.scan(row_filter=EqualTo("run_id", f"{run_id}-absent")).plan_files()
    rows = scan.to_arrow()
    out = {
        "spec": str(table.spec()),
        "schema": [[f.field_id, f.name, str(f.field_type), f.required] for f in table.schema().fields],
        "files": files,
        "absentRunFiles": len(list(absent)),
        "rowCount": rows.num_rows,
        "distinctEventIds": len(set(rows.column("event_id").to_pylist())),
    }
    if with_rows:
        out["rows"] = rows.to_pylist()
    print(json.dumps(out))


if __name__ == "__main__":
    argv = [a for a in sys.argv[1:] if a != "--rows"]
    if len(argv) != 2:
        sys.exit("usage: read_iceberg.py <table directory> <run id> [--rows]")
    main(argv[0], argv[1], "--rows" in sys.argv[1:])
