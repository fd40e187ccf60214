#!/usr/bin/env bash
# Submits a Flink job to the session cluster over REST, resuming from its newest retained checkpoint; idempotent.
# Usage: infra/flink/submit.sh <job> [--key value ...]   (job: clean | windows; extra args are the job's program args)
#        infra/flink/submit.sh --cancel <job-name>       (cancels every live job with that name)
# Env: FLINK_REST (default http://127.0.0.1:8081), FLINK_FRESH=1 (ignore retained checkpoints),
#      FLINK_SAVEPOINT=<dir> (start from this canonical savepoint instead; it restores into any state backend),
#      FLINK_WAIT_RUNNING (seconds to wait for all tasks RUNNING, default 120, or 900 without a checkpoint; 0 = do not wait),
#      FLINK_WINDOWS_JAR (another build of the windows job, e.g. an older commit's, for a before/after benchmark),
#      FLINK_KEEP_RUNS (how many runs' retained checkpoints a resuming submission keeps, default 3; see prune_runs).
# Prints the job id as the last line of stdout. No JVM is started here: only curl and python3.
set -euo pipefail
FLINK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$FLINK_DIR/../../tools/lib/common.sh"
# Logs go to stderr so that stdout carries only the job id.
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

FLINK_REST=${FLINK_REST:-http://127.0.0.1:8081}
CHECKPOINT_ROOT="$RUN_DIR/flink/checkpoints"
WAREHOUSE="$RUN_DIR/iceberg/warehouse"
BOOTSTRAP=${KAFKA_BOOTSTRAP:-127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092}

# Job registry: jar, entry class, and the program args every submission gets (later args override earlier ones).
job_jar() {
  case $1 in
    clean) printf '%s' "$FLINK_DIR/jobs/clean/target/clean-job.jar" ;;
    windows) printf '%s' "${FLINK_WINDOWS_JAR:-$FLINK_DIR/jobs/windows/target/windows-job.jar}" ;;
    *) return 1 ;;
  esac
}
job_class() {
  case $1 in
    clean) printf '%s' shop.clickstream.flink.clean.CleanJob ;;
    windows) printf '%s' shop.clickstream.flink.windows.WindowsJob ;;
  esac
}
# The job's config class, where its defaults are stated.
job_config() {
  case $1 in
    clean) printf '%s' "$FLINK_DIR/jobs/clean/src/main/java/shop/clickstream/flink/clean/CleanJobConfig.java" ;;
    windows) printf '%s' "$FLINK_DIR/jobs/windows/src/main/java/shop/clickstream/flink/windows/WindowsJobConfig.java" ;;
  esac
}
# The state backend the job uses when no --state-backend is passed (checked against and recorded next to its
# checkpoints, see below). Stated once, as DEFAULT_STATE_BACKEND in the job's config class, and read from there;
# nothing is passed to the job for it. (With FLINK_WINDOWS_JAR this is still the working tree's default.)
job_backend() {
  local src backend
  src=$(job_config "$1")
  backend=$(sed -n 's/.*String DEFAULT_STATE_BACKEND = "\([a-z]*\)";.*/\1/p' "$src" 2>/dev/null | head -n 1)
  [[ -n $backend ]] || die "no DEFAULT_STATE_BACKEND = \"<backend>\"; line in ${src#"$REPO_ROOT"/}"
  printf '%s' "$backend"
}
# Program args only some jobs take.
job_args() { case $1 in clean) printf '%s\n' --warehouse "$WAREHOUSE" ;; esac; }

# Tiny JSON helpers (python3 is a setup prerequisite; jq is not).
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval("d"+sys.argv[1]))' "$1"; }

rest() { curl -fsS -m 30 "$@"; }

# Prints "<id> <state>" for each non-terminal job called $1.
live_jobs() {
  rest "$FLINK_REST/jobs/overview" | python3 -c '
import json, sys
terminal = {"FINISHED", "CANCELED", "FAILED"}
for j in json.load(sys.stdin)["jobs"]:
    if j["name"] == sys.argv[1] and j["state"] not in terminal:
        print(j["jid"], j["state"])' "$1"
}

# "<time> <dir>" for each completed checkpoint (a chk-N directory with _metadata) of job name $1, unsorted.
completed_checkpoints() {
  local dir="$CHECKPOINT_ROOT/$1"
  [[ -d $dir ]] || return 0
  find "$dir" -mindepth 3 -maxdepth 3 -path '*/chk-*/_metadata' -printf '%T@ %h\n' 2>/dev/null
}

# Newest completed checkpoint of job name $1, or nothing.
# awk reads the whole sorted list: `head -1` exited after the first line, and with a listing longer than a pipe's
# buffer (three retained checkpoints per job id ever run) sort then died of SIGPIPE, failing the pipeline (exit 141).
latest_checkpoint() {
  completed_checkpoints "$1" | sort -rn | awk 'NR == 1 { sub(/^[^ ]+ /, ""); print }'
}

# Removes the retained checkpoints of older runs of job name $1, which nothing else removes: every cancel or cluster
# restart leaves its job id's directory (a few hundred MB for the clean job's dedup state), and a long-lived stack
# gathered gigabytes. Keeps the FLINK_KEEP_RUNS (default 3) newest job ids' directories, the newest being the one about
# to be restored, and any other that a kept checkpoint still refers to: a job restored in CLAIM mode (the changelog
# backend) reads its predecessor's files until it has rewritten them, and its _metadata names them by path. The
# changelog files of a removed job id go with it.
prune_runs() {
  local name=$1 keep=${FLINK_KEEP_RUNS:-3} dir="$CHECKPOINT_ROOT/$1" d id
  [[ $keep =~ ^[1-9][0-9]*$ ]] || die "FLINK_KEEP_RUNS='$keep': expected a whole number of at least 1"
  [[ -d $dir ]] || return 0
  local -a runs=() kept=() gone=()
  # Job id directories, newest first by their newest completed checkpoint (or the directory itself without one).
  while read -r _ d; do
    [[ $(basename "$d") =~ ^[0-9a-f]{32}$ ]] && runs+=("$d")
  done < <(
    {
      completed_checkpoints "$name" | awk '{
        t = $1; run = $0; sub(/^[^ ]+ /, "", run); sub(/\/chk-[^\/]*$/, "", run)
        if (!(run in newest) || t > newest[run]) newest[run] = t
      } END { for (run in newest) print newest[run], run }'
      for d in "$dir"/*/; do
        d=${d%/}
        compgen -G "$d/chk-*/_metadata" >/dev/null || printf '%s %s\n' "$(stat -c %Y "$d")" "$d"
      done
    } | sort -rn)
  ((${#runs[@]} > keep)) || return 0
  kept=("${runs[@]:0:keep}")
  local referenced
  referenced=$(find "${kept[@]}" -mindepth 2 -maxdepth 2 -path '*/chk-*/_metadata' -print0 2>/dev/null |
    xargs -0 -r grep -a -o -h -E "(checkpoints/[^/]+|changelog)/[0-9a-f]{32}" | sed 's#.*/##' | sort -u || true)
  local freed=0 kb
  for d in "${runs[@]:keep}"; do
    id=$(basename "$d")
    if grep -qx "$id" <<<"$referenced"; then kept+=("$d"); continue; fi
    local -a paths=("$d")
    [[ -d $RUN_DIR/flink/changelog/$id ]] && paths+=("$RUN_DIR/flink/changelog/$id")
    kb=$(du -skc "${paths[@]}" | awk 'END {print $1}')
    rm -rf "${paths[@]}"
    freed=$((freed + kb))
    gone+=("$id")
  done
  ((${#gone[@]} == 0)) ||
    log "removed the retained checkpoints of ${#gone[@]} older run(s) of $name ($((freed / 1024)) MB; FLINK_KEEP_RUNS=$keep, kept ${#kept[@]})"
}

cancel() {
  local name=$1 id state n=0
  while read -r id state; do
    [[ -n $id ]] || continue
    rest -X PATCH "$FLINK_REST/jobs/$id?mode=cancel" >/dev/null
    log "cancel requested: $name ($id, was $state)"
    n=$((n + 1))
  done < <(live_jobs "$name")
  ((n > 0)) || log "no live job named $name"
  wait_gone "$name" 120
}

# Waits until no job called $1 is live any more.
wait_gone() {
  local name=$1 deadline=$((SECONDS + $2))
  while [[ -n $(live_jobs "$name") ]]; do
    ((SECONDS < deadline)) || die "job $name still live after $2s"
    sleep 1
  done
}

# Waits until every vertex of job $1 is RUNNING (sources included), so that callers can start producing.
wait_running() {
  local id=$1 timeout=$2 deadline=$((SECONDS + $2)) state
  ((timeout > 0)) || return 0
  while ((SECONDS < deadline)); do
    state=$(rest "$FLINK_REST/jobs/$id" | python3 -c '
import json, sys
j = json.load(sys.stdin)
tasks = [v["status"] for v in j["vertices"]]
print(j["state"] if j["state"] != "RUNNING" else ("RUNNING" if all(t == "RUNNING" for t in tasks) else "DEPLOYING"))')
    case $state in
      RUNNING) return 0 ;;
      FAILED | CANCELED | FINISHED) die "job $id ended as $state (see .run/flink/log/jobmanager.log)" ;;
    esac
    sleep 1
  done
  die "job $id not RUNNING after ${timeout}s (state $state; are there free task slots?)"
}

submit() {
  local job=$1; shift
  local jar; jar=$(job_jar "$job") || die "unknown job '$job'; expected one of: clean, windows"
  # The job name decides idempotence and the checkpoint directory, so read it from the args (default: the job).
  local name=$job backend i args=("$@") restore_mode=NO_CLAIM
  backend=$(job_backend "$job")
  for ((i = 0; i < ${#args[@]}; i++)); do
    [[ ${args[i]} == --job-name ]] && name=${args[i + 1]:-}
    [[ ${args[i]} == --state-backend ]] && backend=${args[i + 1]:-}
    # The changelog state backend cannot take the full snapshot that NO_CLAIM forces after a restore: it restores in
    # CLAIM mode, so the new job owns (and in time deletes) the checkpoint it starts from.
    [[ ${args[i]} == --changelog && ${args[i + 1]:-} == on ]] && restore_mode=CLAIM
  done
  [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "--job-name '$name' is invalid: expected [A-Za-z0-9._-]+"

  rest "$FLINK_REST/overview" >/dev/null || die "Flink REST not reachable at $FLINK_REST (bash infra/local/stack.sh up)"
  local live; live=$(live_jobs "$name")
  if [[ $live == *CANCELLING* ]]; then
    # A cancel in progress still writes its final checkpoint state; resume only after it has ended.
    wait_gone "$name" 120
    live=$(live_jobs "$name")
  fi
  if [[ -n $live ]]; then
    log "job $name already live: $live; nothing to do"
    printf '%s\n' "${live%% *}"
    return 0
  fi

  # Build when the jar is missing or older than any of its inputs (the same inputs as the flink-jobs
  # build target in infra/flink/project.json): a stale jar once ran an old default for hours unnoticed.
  # A jar given by FLINK_WINDOWS_JAR is taken as it is.
  local stale=""
  if [[ -f $jar && $jar == "$FLINK_DIR"/jobs/* ]]; then
    stale=$(find "$FLINK_DIR/pom.xml" "$FLINK_DIR/jobs" "$REPO_ROOT/libs/contracts/src/event/schemas" \
      "$REPO_ROOT/libs/contracts/src/aggregate/schemas" -newer "$jar" -type f \
      \( -name pom.xml -o -path '*/src/*' -o -name '*.avsc' \) -not -path '*/target/*' -print -quit 2>/dev/null || true)
  fi
  if [[ ! -f $jar || -n $stale ]]; then
    log "building $job job (mvn)${stale:+: ${stale#"$REPO_ROOT"/} is newer than the jar}"
    bash "$FLINK_DIR/mvn.sh" -DskipTests package >&2
  fi

  local savepoint=""
  if [[ -n ${FLINK_SAVEPOINT:-} ]]; then
    savepoint=${FLINK_SAVEPOINT#file:}
    [[ -f $savepoint/_metadata ]] || die "FLINK_SAVEPOINT='$FLINK_SAVEPOINT': no _metadata there"
  elif [[ ${FLINK_FRESH:-0} != 1 ]]; then
    prune_runs "$name"
    savepoint=$(latest_checkpoint "$name")
  fi
  # A retained checkpoint restores only into the state backend that wrote it (hashmap -> rocksdb fails in restore).
  # The backend is recorded per job id (next to its chk-* directories) when a job is submitted.
  local written
  if [[ -n $savepoint && -z ${FLINK_SAVEPOINT:-} ]]; then
    written=$(cat "$(dirname "$savepoint")/STATE_BACKEND" 2>/dev/null || echo hashmap) # older jobs: hashmap
    [[ $written == "$backend" ]] || die "the checkpoints of $name were written with state backend '$written' but this" \
      "submission uses '$backend'; a checkpoint cannot switch backends. Pass --state-backend $written, or start" \
      "without the checkpoint (FLINK_FRESH=1: resumes from the group's committed offsets but loses the dedup state)"
  fi
  local extra; mapfile -t extra < <(job_args "$job")
  local program=(--job-name "$name" --bootstrap "$BOOTSTRAP" "${extra[@]}"
    --checkpoint-dir "file://$CHECKPOINT_ROOT/$name" "$@")

  local upload jar_id body jobid
  upload=$(rest -X POST -F "jarfile=@$jar" "$FLINK_REST/jars/upload")
  jar_id=$(basename "$(json_get '["filename"]' <<<"$upload")")
  body=$(python3 -c '
import json, sys
body = {"entryClass": sys.argv[1], "programArgsList": sys.argv[4:]}
if sys.argv[2]:
    body["savepointPath"] = sys.argv[2]
    body["allowNonRestoredState"] = False
    body["restoreMode"] = sys.argv[3]
print(json.dumps(body))' "$(job_class "$job")" "$savepoint" "$restore_mode" "${program[@]}")
  if [[ -n $savepoint ]]; then log "submitting $name from checkpoint ${savepoint#"$REPO_ROOT"/}"
  else log "submitting $name without a checkpoint (fresh start)"; fi
  local out status
  out=$(curl -sS -m 120 -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' -d "$body" "$FLINK_REST/jars/$jar_id/run")
  status=${out##*$'\n'}; out=${out%$'\n'*}
  # The cluster already holds the jar in its blob store once the job is submitted; the upload copy is clutter.
  rest -X DELETE "$FLINK_REST/jars/$jar_id" >/dev/null || true
  [[ $status == 200 ]] || die "job submission failed (HTTP $status): $(cut -c1-2000 <<<"$out")"
  jobid=$(json_get '["jobid"]' <<<"$out")
  mkdir -p "$CHECKPOINT_ROOT/$name/$jobid" && printf '%s\n' "$backend" >"$CHECKPOINT_ROOT/$name/$jobid/STATE_BACKEND"
  log "submitted $name as $jobid"
  local wait_s=${FLINK_WAIT_RUNNING:-120}
  if [[ -z $savepoint && -z ${FLINK_WAIT_RUNNING:-} ]]; then
    # Without a checkpoint, the Kafka sink first aborts whatever a predecessor of the same transactional-id prefix may
    # have left open: it initialises one id per checkpoint that predecessor took, from checkpoint 1 up. After a job
    # that ran for hours at 1 s checkpoints, that takes minutes (126 s after about a thousand, docs/MEASUREMENTS.md).
    wait_s=900
    log "starting without a checkpoint: waiting up to ${wait_s}s while the Kafka sink aborts a predecessor's transactions"
  fi
  wait_running "$jobid" "$wait_s"
  log "job $name running"
  printf '%s\n' "$jobid"
}

main() {
  [[ $# -ge 1 ]] || die "usage: submit.sh <job> [--key value ...] | submit.sh --cancel <job-name>"
  if [[ $1 == --cancel ]]; then
    [[ $# -eq 2 ]] || die "usage: submit.sh --cancel <job-name>"
    cancel "$2"
  else
    submit "$@"
  fi
}

main "$@"
