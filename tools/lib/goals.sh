# shellcheck shell=bash
# results/bench/goals.json: the current figure of each goal of issue #16, written by the commands that measure them.
# Sourced after tools/lib/common.sh.

# Sets one key of results/bench/goals.json (issue #16's table): value, the command that measured it, the date.
goal_set() {
  python3 - "$REPO_ROOT/results/bench/goals.json" "$1" "$2" "$3" <<'PY'
import json, os, sys, datetime
path, key, value, command = sys.argv[1:5]
goals = json.load(open(path)) if os.path.exists(path) else {}
goals[key] = {"value": float(value), "command": command,
              "measured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
json.dump(dict(sorted(goals.items())), open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
}
