# Shared bash helpers for tools/setup, tools/smoke and infra/local/stack.sh: repo paths, logging, timing.
# shellcheck shell=bash
# Sourced, never executed. Callers set `set -euo pipefail` themselves.

REPO_ROOT="${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
CACHE_DIR="$REPO_ROOT/.cache"
# shellcheck disable=SC2034 # used by the scripts that source this file
RUN_DIR="$REPO_ROOT/.run"

# The step a script is in, named in any failure report (set by `step`).
CURRENT_STEP=${CURRENT_STEP:-}
step() { CURRENT_STEP="$*"; log "== $*"; }

# No failure is silent: with `set -e`, a failing command anywhere (functions, sourced files,
# command substitutions) reports the step, file, line and command before the script exits.
# Reported once, by the script's own shell, not again by each subshell on the way up.
on_err() {
  local rc=$1 line=$2 src=$3 cmd=$4
  [[ $BASHPID == "$$" ]] || return "$rc"
  printf '[%s] ERROR: %s: `%s` failed with exit %s at %s:%s\n' "$(date +%H:%M:%S)" \
    "${CURRENT_STEP:-$(basename "$0")}" "$cmd" "$rc" "${src#"$REPO_ROOT"/}" "$line" >&2
  return "$rc"
}
set -o errtrace
trap 'on_err "$?" "$LINENO" "${BASH_SOURCE[0]:-$0}" "$BASH_COMMAND"' ERR

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
warn() { printf '[%s] WARN: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

# Milliseconds since the epoch, for step timings.
now_ms() { date +%s%3N; }

# CPU time (user + system, in clock ticks) of a process so far; empty when it is gone.
proc_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }

# Stamps make re-runs fast: a step records the hash of its inputs and is skipped while it matches.
stamp_matches() { [[ -f "$CACHE_DIR/stamps/$1" && "$(cat "$CACHE_DIR/stamps/$1")" == "$2" ]]; }
stamp_write() { mkdir -p "$CACHE_DIR/stamps" && printf '%s' "$2" >"$CACHE_DIR/stamps/$1"; }
hash_files() { cat "$@" | sha256sum | cut -c1-16; }
# The local stack's own topics, one name a line (infra/local/topics.txt: "topic [key=value ...]" lines and comments).
stack_topics() { grep -v '^\s*#' "$REPO_ROOT/infra/local/topics.txt" | awk 'NF { print $1 }'; }

# Prints, one per line, the Debian packages among "$@" that are not installed.
# One dpkg-query for all of them (a `dpkg -s` per package costs seconds under load). dpkg-query exits 1
# when any name is unknown to dpkg ("no packages found matching"), which on a bare machine is the
# normal case, so its status is not an error here; only its output counts.
missing_apt_packages() {
  local installed p
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null || true)
  installed=$(awk '$2 == "installed" {print $1}' <<<"$installed")
  for p in "$@"; do
    grep -qx -- "$p" <<<"$installed" || printf '%s\n' "$p"
  done
}
