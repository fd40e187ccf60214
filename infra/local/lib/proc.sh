# Process and port helpers for stack.sh: pid files, cheap health checks, start/stop of exactly our pids.
# shellcheck shell=bash
# Sourced by stack.sh, tools/smoke and tools/pipeline after tools/lib/common.sh.

PID_DIR="$RUN_DIR/pids"

pid_file() { printf '%s/%s.pid' "$PID_DIR" "$1"; }

# Alive, a process and not a zombie (a child of this shell that died stays a zombie until reaped).
# /proc/N exists for a thread id too, though ls /proc does not list it: a stale pid file whose number
# had become a thread of a broker once passed as a live TaskManager, and `up` never started one.
is_alive() {
  local state tgid
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  tgid=$(sed -n 's/^Tgid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) || return 1
  [[ $tgid == "$1" && -n $state && $state != Z && $state != X ]]
}

# Prints the pid recorded in file $1 if that process is alive and its command line contains $2, else
# nothing: a pid reused by an unrelated process (after a reboot, or a session killed without `down`)
# is never mistaken for ours, nor signalled. With $2 empty, alive is enough (see recorded_alive).
pid_from_file() {
  local pid
  [[ -f $1 ]] || return 0
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && is_alive "$pid" || return 0
  [[ -z ${2:-} ]] || tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2" || return 0
  printf '%s' "$pid"
}

# The recorded pid of component $1 while it is ours: its command line names this repo (configs, data or engines).
live_pid() { pid_from_file "$(pid_file "$1")" "$REPO_ROOT"; }

# True when something accepts TCP connections on 127.0.0.1:$1 (no process spawned but bash itself).
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

http_ok() { curl -fsS -m 2 -o /dev/null "$1" 2>/dev/null; }

# Pid of the process listening on port $1, if visible.
port_owner() {
  ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2
}

# Fails with a specific message when a port is taken by a process that is not component $1.
ensure_port_free() {
  local name=$1 port=$2 owner
  port_open "$port" || return 0
  owner=$(port_owner "$port")
  local cmd="unknown process"
  [[ -n $owner ]] && cmd="pid $owner ($(ps -o args= -p "$owner" 2>/dev/null | cut -c1-100))"
  die "$name: port $port is already taken by $cmd, which is not ours; stop it or change infra/local/ports.env"
}

# Starts "$@" detached (own session, so a test runner or terminal exiting does not take it down).
start_detached() {
  local name=$1 logfile=$2; shift 2
  mkdir -p "$PID_DIR" "$(dirname "$logfile")"
  printf '\n[%s] stack.sh starting %s: %s\n' "$(date -Is)" "$name" "$*" >>"$logfile"
  # 9>&-: the stack.lock descriptor must not be inherited, or the daemon would hold the lock forever.
  setsid nohup "$@" >>"$logfile" 2>&1 </dev/null 9>&- &
  printf '%s' "$!" >"$(pid_file "$name")"
}

# Whether the pid recorded for component $1 is alive, whatever its command line says. Only for the moments after a
# start: while the new process execs (setsid, nohup, setpriv, java), its /proc/N/cmdline reads empty or still as
# stack.sh's own (1 first read in 60 here), so live_pid's check of it once took a starting kafka-3 for dead.
recorded_alive() { [[ -n $(pid_from_file "$(pid_file "$1")") ]]; }

# Waits until `$check...` succeeds; on timeout or early death prints the log tail and fails.
wait_healthy() {
  local name=$1 timeout=$2 logfile=$3; shift 3
  local deadline=$((SECONDS + timeout))
  while ! "$@"; do
    if ! recorded_alive "$name"; then
      tail -n 30 "$logfile" >&2 || true
      die "$name exited during start-up (log: ${logfile#"$REPO_ROOT"/})"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 30 "$logfile" >&2 || true
      die "$name did not become healthy within ${timeout}s (log: ${logfile#"$REPO_ROOT"/})"
    fi
    sleep 0.5
  done
}

# SIGTERM, then SIGKILL after a grace period; only ever the pid we recorded.
stop_component() {
  local name=$1 grace=${2:-20} pid
  pid=$(live_pid "$name")
  if [[ -z $pid ]]; then rm -f "$(pid_file "$name")"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  await_stop "$name" "$pid" "$grace"
}

# SIGTERM to all at once, then wait for each: the last KRaft node alone cannot finish a controlled
# shutdown (no controller quorum left), so stopping nodes one by one ends in a SIGKILL.
stop_components_together() {
  local grace=$1 name pid; shift
  local -A pids=()
  for name in "$@"; do
    pid=$(live_pid "$name")
    if [[ -n $pid ]]; then kill -TERM "$pid" 2>/dev/null || true; pids[$name]=$pid
    else rm -f "$(pid_file "$name")"; fi
  done
  for name in "${!pids[@]}"; do await_stop "$name" "${pids[$name]}" "$grace"; done
}

await_stop() {
  local name=$1 pid=$2 grace=$3
  local deadline=$((SECONDS + grace))
  while is_alive "$pid" && ((SECONDS < deadline)); do sleep 0.3; done
  if is_alive "$pid"; then
    warn "$name (pid $pid) ignored SIGTERM for ${grace}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while is_alive "$pid"; do sleep 0.1; done
  fi
  rm -f "$(pid_file "$name")"
  log "stopped $name (pid $pid)"
}

# Our ports inside the kernel's ephemeral range (39092/39093 with the default 32768-60999) can be
# taken by a client's outgoing socket: while a node is down, clients retrying 127.0.0.1:39092 can get
# that very port as their source port (a TCP self-connect) and the node then fails to bind. Reserving
# them keeps the kernel from handing them out. Not persistent across reboots, hence done on every up.
reserve_ephemeral_ports() {
  local f=/proc/sys/net/ipv4/ip_local_reserved_ports lo hi want=() p current
  read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
  for p in "$@"; do ((p >= lo && p <= hi)) && want+=("$p"); done
  ((${#want[@]})) || return 0
  current=$(<"$f")
  local missing=()
  for p in "${want[@]}"; do port_reserved "$p" "$current" || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  local IFS=,
  if ! { printf '%s\n' "${current:+$current,}${missing[*]}" >"$f"; } 2>/dev/null; then
    warn "cannot reserve ports ${missing[*]} (need root): a restarted node may fail to bind while clients retry"
  fi
}

# True when port $1 is in the reserved list $2 ("a,b-c,...").
port_reserved() {
  local item IFS=,
  for item in $2; do
    if [[ $item == *-* ]]; then ((${item%-*} <= $1 && $1 <= ${item#*-})) && return 0
    elif [[ $item == "$1" ]]; then return 0; fi
  done
  return 1
}

