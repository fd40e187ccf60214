#!/usr/bin/env bash
# Runs Maven on the Flink jobs' reactor: offline first, online only when the offline run failed for want of
# something not yet in ~/.m2. Usage: infra/flink/mvn.sh <maven args...>   (e.g. -DskipTests package, or test)
#
# Offline first because ~/.m2 usually holds everything, and an offline build asks no repository whether its
# snapshots and plugins are current. On a fresh machine the offline run fails with "[ERROR] ... in offline mode";
# those lines are expected there, so they are kept out of the log (they read as a failure in the demo's output)
# and one line says that the build goes online. Any other failure (a compile error, a failing test) is shown as it
# is and not run a second time.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v mvn >/dev/null || { echo "infra/flink/mvn.sh: mvn not found (apt package maven; tools/setup installs it)" >&2; exit 1; }

# Maven 3.8 writes bare colour resets (ESC[0m) even in batch mode with -Dstyle.color=never; they are dropped.
plain() { sed -u 's/\x1b\[[0-9;]*m//g'; }

offline_log=$(mktemp)
trap 'rm -f "$offline_log"' EXIT
rc=0
mvn -q -B -Dstyle.color=never -o -f "$dir/pom.xml" "$@" >"$offline_log" 2>&1 || rc=$?
if ((rc == 0)); then
  plain <"$offline_log"
  exit 0
fi
if ! grep -q 'in offline mode' "$offline_log"; then
  plain <"$offline_log" >&2
  echo "infra/flink/mvn.sh: mvn $* failed offline (exit $rc), not for want of a download; output above" >&2
  exit "$rc"
fi
missing=$(grep -m1 -o '[[:alnum:]_.-]*:[[:alnum:]_.-]*:[[:alnum:]_.-]*:[[:alnum:]_.-]*' "$offline_log" || true)
echo "infra/flink/mvn.sh: ${missing:-an artifact} is not yet in ~/.m2; running mvn $* online" >&2
mvn -q -B -Dstyle.color=never -f "$dir/pom.xml" "$@" 2>&1 | plain
