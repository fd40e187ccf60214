# shellcheck shell=bash
# results/bench/goals.json: the current figure of each goal of issue #16, written by the commands that measure them.
# Sourced after tools/lib/common.sh. The file has one writer, apps/experiment (`tools/experiment goal`), so its
# keys (a closed list), format and date stamp are the same whichever command measured the figure; it also rewrites
# the goals table at the top of docs/MEASUREMENTS.md, so that table is never typed by hand.

# Sets one key of results/bench/goals.json (issue #16's table): key, value, the command that measured it.
goal_set() {
  local main="$REPO_ROOT/apps/experiment/dist/main.js"
  [[ -f $main ]] || die "goal_set: apps/experiment is not built (npx nx run experiment:build); $1 = $2 not written"
  node "$main" goal --key "$1" --value "$2" --measured-by "$3" --log-level warn \
    || die "goal_set: $1 = $2 not written to results/bench/goals.json"
}
