"""Reads one run of the clean job's Iceberg table with pyiceberg, an Iceberg implementation that is
not ours, the way a user would: from the table's directory (Hadoop catalog: metadata/version-hint.text),
filtered on the partition column. Prints one JSON object on stdout.

Usage: python3 read_iceberg.py <table directory> <run id>
"""

import json
import sys

from pyiceberg.expressions import EqualTo
from pyiceberg.table import StaticTable


def main(table_dir: str, run_id: str) -> None:
    table = StaticTable.from_metadata(f"file://{table_dir}")
    scan = table.scan(row_filter=EqualTo("run_id", run_id))
    files = [task.file.file_path for task in scan.plan_files()]
    # Partition pruning: a run that is not in the table plans no file at all.
    other = table.scan(row_filter=EqualTo("run_id", f"{run_id}-absent")).plan_files()
    print(
        json.dumps(
            {
                "spec": str(table.spec()),
                "schema": [
                    [f.field_id, f.name, str(f.field_type), f.required] for f in table.schema().fields
                ],
                "files": files,
                "absentRunFiles": len(list(other)),
                "rows": scan.to_arrow().to_pylist(),
            }
        )
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: read_iceberg.py <table directory> <run id>")
    main(sys.argv[1], sys.argv[2])
