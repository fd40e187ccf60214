#!/usr/bin/env bash
# Local stack runner: Kafka x3 (KRaft), ClickHouse, Flink session cluster, Prometheus, Alertmanager on 127.0.0.1.
# KAFKA_NET=netns (at `up`, while no node runs) puts each Kafka node in a network namespace of its own (lib/netns.sh).
# Usage: stack.sh up|down|status|logs|restart COMPONENT|restart-node N|kill-node N|partition-node N|heal-node N|prune-topics [--idle-minutes N] [--match REGEX] [--dry-run]|pid COMPONENT|components|net|measure [seconds]|sql [sql-client args]
# State (data, logs, pids) lives under .run/; engines come from .cache/ (tools/setup).
set -euo pipefail
STACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$STACK_DIR/../../tools/lib/common.sh"
set -a; source "$STACK_DIR/ports.env"; set +a
source "$STACK_DIR/lib/proc.sh"
# The stack's processes never dump core, whoever starts them (tools/deadline turns cores on for test
# processes, and the kill specs restart components from inside a test): a JVM's core is as large as
# its memory, and a JVM that crashes writes hs_err_pid*.log in its working directory anyway.
ulimit -c 0
# Components in start order; each lib/<component>.sh appends its own.
COMPONENTS=(kafka-1 kafka-2 kafka-3)
source "$STACK_DIR/lib/kafka.sh"
source "$STACK_DIR/lib/clickhouse.sh"
source "$STACK_DIR/lib/flink.sh"
source "$STACK_DIR/lib/prometheus.sh"
source "$STACK_DIR/lib/partition.sh"
source "$STACK_DIR/lib/netns.sh"

# Overrides are validated before anything starts, naming the bad value.
validate_env() {
  PARTITIONS=${PARTITIONS:-6}
  [[ $PARTITIONS =~ ^[0-9]+$ ]] && ((PARTITIONS >= 1 && PARTITIONS <= 1000)) ||
    die "PARTITIONS='$PARTITIONS' is invalid: expected an integer from 1 to 1000"
  local v
  # A typo in ports.env fails here, naming the key, rather than deep inside a component's start.
  for v in $(grep -oE '^[A-Z0-9_]+' "$STACK_DIR/ports.env"); do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] && ((${!v} <= 65535)) || die "$v='${!v}' is invalid: expected a TCP port 1-65535"
  done
  kafka_net_validate
  for v in KAFKA_START_TIMEOUT CLICKHOUSE_START_TIMEOUT FLINK_START_TIMEOUT; do
    [[ -z ${!v:-} || ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v='${!v}' is invalid: expected a positive number of seconds"
  done
}

node_arg() {
  [[ ${1:-} =~ ^[123]$ ]] || die "expected a Kafka node number 1, 2 or 3, got '${1:-}'"
}

cmd_up() {
  local t0 t times=() part
  t0=$(now_ms)
  mkdir -p "$RUN_DIR"
  local ports; mapfile -t ports < <(cut -d= -f2 "$STACK_DIR/ports.env" | grep -E '^[0-9]+$')
  reserve_ephemeral_ports "${ports[@]}"
  # Each part's duration goes to .run/up-times.json (read by tools/bench-stack).
  for part in kafka clickhouse flink prometheus; do
    t=$(now_ms)
    "${part}_up"
    times+=("\"$part\": $(($(now_ms) - t))")
  done
  local IFS=,
  printf '{"total_ms": %s, "parts_ms": {%s}}\n' "$(($(now_ms) - t0))" "${times[*]}" >"$RUN_DIR/up-times.json"
  log "stack up in $(( ($(now_ms) - t0) / 1000 ))s"
}

cmd_down() {
  local i
  # The platform's own processes (tools/pipeline: gatekeeper, loader) go first: they are ours too.
  bash "$REPO_ROOT/tools/pipeline" down || warn "tools/pipeline down failed; continuing with the stack"
  # Reverse order: consumers of Kafka first, brokers last (together).
  for ((i = ${#COMPONENTS[@]} - 1; i >= 3; i--)); do stop_component "${COMPONENTS[i]}" 30; done
  stop_components_together 30 kafka-1 kafka-2 kafka-3
  # Leave nothing behind: partition rules too.
  local n
  for n in 1 2 3; do kafka_partitioned "$n" && cmd_heal_node "$n"; done
  kafka_net_down
  rm -f "$(kafka_net_file)"
  return 0
}

component_port() {
  case $1 in
    kafka-*) kafka_port "${1#kafka-}" ;;
    *) "${1//-/_}_port" ;;
  esac
}

component_healthy() {
  case $1 in
    kafka-*) kafka_healthy "${1#kafka-}" ;;
    *) "${1//-/_}_healthy" ;;
  esac
}

cmd_status() {
  local c pid health bad=0 not_healthy=()
  printf '%-18s %-8s %-6s %s\n' COMPONENT PID PORT STATE
  for c in "${COMPONENTS[@]}"; do
    pid=$(live_pid "$c")
    if [[ -z $pid ]]; then health=stopped; bad=1
    elif [[ $c == kafka-* ]] && kafka_partitioned "${c#kafka-}"; then health=partitioned; bad=1
    elif component_healthy "$c"; then health=healthy
    else health=unhealthy; bad=1; fi
    printf '%-18s %-8s %-6s %s\n' "$c" "${pid:--}" "$(component_port "$c")" "$health"
    [[ $health == healthy ]] || not_healthy+=("$c")
  done
  # What is firing (Alertmanager); informational, it does not change the exit code.
  [[ -n $(live_pid alertmanager) ]] && { bash "$REPO_ROOT/tools/alerts" --brief || true; }
  # The HTTP collector, the stack's front door (a pipeline app: tools/pipeline up starts it);
  # informational, it does not change the exit code. Port: the collector; health: its /healthz.
  local collector=stopped
  curl -fsS -m 2 "http://127.0.0.1:$COLLECTOR_METRICS_PORT/healthz" >/dev/null 2>&1 && collector=healthy
  printf '%-18s %-8s %-6s %s\n' collector - "$COLLECTOR_PORT" "$collector"
  if ((bad)); then
    printf 'not healthy: %s (exit 1; `bash infra/local/stack.sh up` starts what is stopped)\n' "${not_healthy[*]}" >&2
  fi
  return $bad
}

cmd_logs() {
  local n
  for n in 1 2 3; do printf '%-18s %s\n' "kafka-$n" "$(kafka_dir "$n")/logs/server.log"; done
  clickhouse_logs
  flink_logs
  prometheus_logs
}

cmd_kill_node() {
  node_arg "${1:-}"
  local pid; pid=$(live_pid "kafka-$1")
  [[ -n $pid ]] || die "kafka-$1 is not running"
  kill -KILL "$pid"
  log "SIGKILLed kafka-$1 (pid $pid)"
}

cmd_restart_node() {
  node_arg "${1:-}"
  reserve_ephemeral_ports "$(kafka_port "$1")" "$(kafka_cport "$1")"
  stop_component "kafka-$1" 30
  kafka_require_jars
  kafka_net_prepare
  kafka_start "$1"
  kafka_wait "$1"
  log "kafka-$1 is back"
}

# Stops one component (TERM, then KILL) and starts whatever is missing, e.g. `restart clickhouse`.
cmd_restart() {
  local name=${1:-} c
  for c in "${COMPONENTS[@]}"; do
    if [[ $c == "$name" ]]; then
      stop_component "$c" 30
      cmd_up
      return 0
    fi
  done
  die "unknown component '$name': expected one of ${COMPONENTS[*]}"
}

# For experiments (SIGSTOP/SIGCONT stalls): prints the pid of a running component, fails otherwise.
cmd_pid() {
  local name=${1:-} c
  for c in "${COMPONENTS[@]}"; do
    if [[ $c == "$name" ]]; then
      local pid; pid=$(live_pid "$c")
      [[ -n $pid ]] || die "$c is not running"
      printf '%s\n' "$pid"; return 0
    fi
  done
  die "unknown component '$name': expected one of ${COMPONENTS[*]}"
}

# Commands that start or stop processes hold an exclusive lock: two concurrent `up`s (several
# engineers' tests restart what they killed) would otherwise both start a missing component.
take_lock() {
  mkdir -p "$RUN_DIR"
  exec 9>"$RUN_DIR/stack.lock"
  flock -w "${STACK_LOCK_TIMEOUT:-600}" 9 || die "another stack.sh command held $RUN_DIR/stack.lock for too long"
}

main() {
  local cmd=${1:-}; shift || true
  validate_env
  case $cmd in up | down | restart | restart-node | kill-node | partition-node | heal-node | prune-topics) take_lock ;; esac
  case $cmd in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status || exit 1 ;;
    logs) cmd_logs ;;
    kill-node) cmd_kill_node "$@" ;;
    restart) cmd_restart "$@" ;;
    restart-node) cmd_restart_node "$@" ;;
    partition-node) cmd_partition_node "$@" ;;
    heal-node) cmd_heal_node "$@" ;;
    prune-topics) cmd_prune_topics "$@" ;;
    sql) flink_sql_client "$@" ;;
    pid) cmd_pid "$@" ;;
    components) printf '%s\n' "${COMPONENTS[@]}" ;;
    net) kafka_net; printf '\n' ;;
    measure) source "$STACK_DIR/lib/measure.sh"; cmd_measure "$@" ;;
    *) die "usage: stack.sh up|down|status|logs|restart COMPONENT|restart-node N|kill-node N|partition-node N|heal-node N|prune-topics [--idle-minutes N] [--match REGEX] [--dry-run]|pid COMPONENT|components|net|measure [seconds]|sql [-f file.sql]" ;;
  esac
}

main "$@"
