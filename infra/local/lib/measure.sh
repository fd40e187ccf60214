# `stack.sh measure [seconds]`: CPU% and RSS of each stack process over a window, from /proc deltas
# shellcheck shell=bash
# (no sampling process per tick), written to results/bench/idle.json.

proc_rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

cmd_measure() {
  local seconds=${1:-30}
  [[ $seconds =~ ^[1-9][0-9]*$ ]] || die "seconds='$seconds' is invalid: expected a positive integer"
  local hz; hz=$(getconf CLK_TCK)
  local -A pid0=() t0=()
  local c pid
  for c in "${COMPONENTS[@]}"; do
    pid=$(live_pid "$c")
    [[ -n $pid ]] || die "$c is not running: run 'stack.sh up' first"
    pid0[$c]=$pid; t0[$c]=$(proc_ticks "$pid")
  done
  local jobs; jobs=$(curl -fsS -m 2 "http://127.0.0.1:$FLINK_REST_PORT/overview" | grep -o '"jobs-running":[0-9]*' | cut -d: -f2)
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  log "measuring ${#COMPONENTS[@]} processes for ${seconds}s (flink jobs running: ${jobs:-?}, load ${load0})"
  sleep "$seconds"
  local out="$REPO_ROOT/results/bench/idle.json" rows=() total_cpu=0 total_rss=0 cpu rss t1
  for c in "${COMPONENTS[@]}"; do
    pid=${pid0[$c]}
    t1=$(proc_ticks "$pid") || die "$c (pid $pid) exited during the measurement"
    cpu=$(awk -v d="$((t1 - t0[$c]))" -v hz="$hz" -v s="$seconds" 'BEGIN {printf "%.2f", 100 * d / hz / s}')
    rss=$(( $(proc_rss_kb "$pid") / 1024 ))
    total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN {printf "%.2f", a + b}')
    total_rss=$((total_rss + rss))
    rows+=("    {\"component\": \"$c\", \"pid\": $pid, \"cpu_percent_of_one_core\": $cpu, \"rss_mb\": $rss}")
    printf '%-18s cpu %6s%%  rss %5s MB\n' "$c" "$cpu" "$rss"
  done
  printf '%-18s cpu %6s%%  rss %5s MB\n' total "$total_cpu" "$total_rss"
  mkdir -p "$(dirname "$out")"
  {
    printf '{\n  "measurement": "stack-idle",\n  "measured_at": "%s",\n  "window_seconds": %s,\n' "$(date -u +%FT%TZ)" "$seconds"
    printf '  "flink_jobs_running": %s,\n  "load_average_1m_at_start": %s,\n  "machine_cores": %s,\n' "${jobs:-null}" "$load0" "$(nproc)"
    printf '  "command": "bash infra/local/stack.sh measure %s",\n  "components": [\n' "$seconds"
    local IFS=$'\n'; printf '%s\n' "$(printf '%s,\n' "${rows[@]}" | sed '$ s/,$//')"
    printf '  ],\n  "total_cpu_percent_of_one_core": %s,\n  "total_rss_mb": %s\n}\n' "$total_cpu" "$total_rss"
  } >"$out"
  log "wrote ${out#"$REPO_ROOT"/}"
}
