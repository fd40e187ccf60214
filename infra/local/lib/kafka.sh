# Kafka component of stack.sh: render node configs, format storage once, start/stop nodes, create topics.
# shellcheck shell=bash

KAFKA_CLUSTER_ID=${KAFKA_CLUSTER_ID:-MkU3OEVBNTcwNTJENDM2Qk}
KAFKA_CP="$CACHE_DIR/kafka/*"
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
# Serial GC: a 512 MB heap needs no concurrent collector, and fewer GC threads on two shared cores.
KAFKA_JVM_OPTS=(-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -XX:CICompilerCount=2)

kafka_port() { local v="KAFKA_$1_PORT"; printf '%s' "${!v}"; }
kafka_cport() { local v="KAFKA_$1_CONTROLLER_PORT"; printf '%s' "${!v}"; }
kafka_bootstrap() { printf '127.0.0.1:%s,127.0.0.1:%s,127.0.0.1:%s' "$KAFKA_1_PORT" "$KAFKA_2_PORT" "$KAFKA_3_PORT"; }
kafka_dir() { printf '%s/kafka/%s' "$RUN_DIR" "$1"; }

# kafka_java SRC [JVM options] -- [program args]: runs a single-file Java program against the Kafka
# jars, compiled once per source version (the `java File.java` launcher recompiles on every call,
# which costs seconds on a busy machine).
kafka_java() {
  local src=$1 cls dir jvm=(); shift
  while (($#)) && [[ $1 != -- ]]; do jvm+=("$1"); shift; done
  (($#)) && shift
  cls=$(basename "$src" .java)
  dir="$CACHE_DIR/classes/$cls-$(hash_files "$src")"
  if [[ ! -f $dir/$cls.class ]]; then
    mkdir -p "$dir"
    javac -nowarn -cp "$KAFKA_CP" -d "$dir" "$src" || die "could not compile $src"
  fi
  java -cp "$dir:$KAFKA_CP" -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2.properties" "${jvm[@]}" "$cls" "$@"
}

kafka_require_jars() {
  compgen -G "$CACHE_DIR/kafka/kafka_2.13-*.jar" >/dev/null || die "Kafka jars missing in .cache/kafka: run tools/setup"
}

kafka_render() {
  local n=$1 dir; dir=$(kafka_dir "$n")
  mkdir -p "$dir/data" "$dir/logs"
  sed -e "s|@NODE@|$n|g" -e "s|@HOST@|$(kafka_host "$n")|g" -e "s|@PORT@|$(kafka_port "$n")|g" -e "s|@CPORT@|$(kafka_cport "$n")|g" \
    -e "s|@C1@|$KAFKA_1_CONTROLLER_PORT|g" -e "s|@C2@|$KAFKA_2_CONTROLLER_PORT|g" -e "s|@C3@|$KAFKA_3_CONTROLLER_PORT|g" \
    -e "s|@DATA@|$dir/data|g" -e "s|@PARTITIONS@|$PARTITIONS|g" \
    "$STACK_DIR/kafka/server.properties.tmpl" >"$dir/server.properties"
}

# Storage is formatted once with the fixed cluster id; a formatted dir is never touched again.
kafka_format() {
  local n=$1 dir; dir=$(kafka_dir "$n")
  [[ -f $dir/data/meta.properties ]] && return 0
  log "formatting kafka-$n storage (cluster id $KAFKA_CLUSTER_ID)"
  java -cp "$KAFKA_CP" -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2.properties" -Dkafka.logs.dir="$dir/logs" \
    kafka.tools.StorageTool format -t "$KAFKA_CLUSTER_ID" -c "$dir/server.properties" >>"$dir/logs/format.log" 2>&1 ||
    { tail -n 20 "$dir/logs/format.log" >&2; die "kafka-$n: storage format failed (log: ${dir#"$REPO_ROOT"/}/logs/format.log)"; }
}

kafka_healthy() { port_open "$(kafka_port "$1")"; }

kafka_metrics_port() { local v="KAFKA_$1_METRICS_PORT"; printf '%s' "${!v}"; }
# The Prometheus JMX exporter agent (tools/setup fetches it into .cache/jmx-exporter) serving a
# filtered set of broker metrics on 127.0.0.1:KAFKA_N_METRICS_PORT; nothing when it is not there.
kafka_metrics_agent() {
  local jar; jar=$(compgen -G "$CACHE_DIR/jmx-exporter/jmx_prometheus_javaagent-*.jar" | head -n 1 || true)
  # A port the agent cannot bind makes the JVM exit: keep it out of the ephemeral range.
  [[ -n $jar ]] && reserve_ephemeral_ports "$(kafka_metrics_port "$1")" >&2
  [[ -n $jar ]] && printf -- '-javaagent:%s=%s:%s:%s' "$jar" "$(kafka_host "$1")" "$(kafka_metrics_port "$1")" "$STACK_DIR/kafka/jmx-exporter.yml"
  return 0
}

kafka_start() {
  local n=$1 name="kafka-$1" dir; dir=$(kafka_dir "$1")
  if [[ -n $(live_pid "$name") ]]; then return 0; fi
  ensure_port_free "$name" "$(kafka_port "$n")"
  ensure_port_free "$name" "$(kafka_cport "$n")"
  kafka_render "$n"
  kafka_format "$n"
  local user runas=()
  user=$(kafka_user "$n")
  if [[ -n $user ]]; then
    chown -R "$user:" "$dir/data" "$dir/logs"
    runas=(setpriv --reuid="$user" --regid="$user" --clear-groups --)
  fi
  local agent=() netns=()
  mapfile -t agent < <(kafka_metrics_agent "$n")
  mapfile -t netns < <(kafka_netns_exec "$n")
  # shellcheck disable=SC2086 # heap options are a word list
  (cd "$dir" && start_detached "$name" "$dir/logs/stdout.log" "${netns[@]}" "${runas[@]}" java $KAFKA_HEAP_OPTS "${KAFKA_JVM_OPTS[@]}" \
    "${agent[@]}" \
    -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2.properties" -Dkafka.logs.dir="$dir/logs" \
    -cp "$KAFKA_CP" kafka.Kafka "$dir/server.properties")
  log "started $name (pid $(live_pid "$name")${user:+, user $user}${netns[*]:+, namespace $(kafka_netns_name "$n")})"
}

# Each node runs as its own system user (created by tools/setup) when we are root, so that
# partition-node can drop exactly that node's packets by socket owner.
kafka_user() {
  local u="cs-kafka$1"
  [[ $(id -u) == 0 ]] && id -u "$u" >/dev/null 2>&1 && printf '%s' "$u"
  return 0
}

kafka_wait() { wait_healthy "kafka-$1" "${KAFKA_START_TIMEOUT:-90}" "$(kafka_dir "$1")/logs/server.log" kafka_healthy "$1"; }

kafka_up() {
  kafka_require_jars
  local n all_running=1 none_running=1
  for n in 1 2 3; do
    if [[ -n $(live_pid "kafka-$n") ]]; then none_running=0; else all_running=0; fi
  done
  kafka_net_prepare
  # All three start before any wait: a KRaft quorum needs a majority before any node serves.
  for n in 1 2 3; do kafka_start "$n"; done
  for n in 1 2 3; do kafka_wait "$n"; done
  # Checking topics costs a JVM (seconds on a busy machine); skip it while the same three processes
  # that already ensured these topics with these settings are still running.
  local want; want="$(kafka_pids)|$PARTITIONS|$(hash_files "$STACK_DIR/topics.txt" "$STACK_DIR/kafka/EnsureTopics.java")"
  if ((all_running)) && [[ -f $RUN_DIR/kafka/topics.ok && $(<"$RUN_DIR/kafka/topics.ok") == "$want" ]]; then return 0; fi
  kafka_topics "$none_running"
  printf '%s' "$want" >"$RUN_DIR/kafka/topics.ok"
}

kafka_pids() { local n; for n in 1 2 3; do printf '%s,' "$(live_pid "kafka-$n")"; done; }

# Ensures the topics; with 1, also elects every partition's preferred leader (after a start of the whole cluster, which
# leaves the node that stopped last leading everything: docs/KAFKA.md, "Leaders").
kafka_topics() {
  local elect=() topics; (($1)) && elect=(-Delect.preferred.leaders=true)
  mapfile -t topics < <(grep -v '^\s*#' "$STACK_DIR/topics.txt" | grep -v '^\s*$')
  local out="$RUN_DIR/kafka/topics.log"
  kafka_java "$STACK_DIR/kafka/EnsureTopics.java" -Dkafka.logs.dir="$RUN_DIR/kafka/tools" "${elect[@]}" \
    -- "$(kafka_bootstrap)" "$PARTITIONS" 3 "${topics[@]}" >"$out" 2>&1 ||
    { tail -n 20 "$out" >&2; die "creating topics failed (log: ${out#"$REPO_ROOT"/})"; }
  log "topics: $(grep -c '^created' "$out") created, $(grep -c '^exists' "$out") existing (partitions=$PARTITIONS, rf=3)"
  if (($1)); then log "$(grep -m1 '^leaders: ' "$out")"; fi
}

# kafka_idle_topics MINUTES: "topic idle-minutes" for each topic whose files on every node have not changed for at
# least MINUTES, the stack's own topics (topics.txt) and Kafka's internal ones (__*) excepted. A partition's log file
# is written on every append, and an empty partition's files date from its creation, so this is "no write, and no
# creation, for MINUTES" without asking the brokers.
kafka_idle_topics() {
  local minutes=$1 n dirs=() own
  for n in 1 2 3; do [[ -d $(kafka_dir "$n")/data ]] && dirs+=("$(kafka_dir "$n")/data"); done
  ((${#dirs[@]})) || return 0
  own=$(stack_topics | paste -sd' ')
  # Partition directories are <topic>-<partition>; deleted ones (<topic>-<p>.<id>-delete) do not match.
  find "${dirs[@]}" -mindepth 2 -maxdepth 2 -type f -printf '%T@ %h\n' |
    awk -v now="$(date +%s)" -v idle="$((minutes * 60))" -v own="$own" '
      BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) skip[o[i]] = 1 }
      { d = $2; sub(/.*\//, "", d); if (d !~ /-[0-9]+$/) next
        t = d; sub(/-[0-9]+$/, "", t); if (t ~ /^__/ || t in skip) next
        if (!(t in newest) || $1 > newest[t]) newest[t] = $1 }
      END { for (t in newest) if (now - newest[t] >= idle) printf "%s %d\n", t, (now - newest[t]) / 60 }' |
    sort
}

# prune-topics [--idle-minutes N] [--match REGEX] [--dry-run]: deletes the topics that are neither the stack's nor
# Kafka's and have been idle N minutes (default 60), optionally only those whose name matches REGEX (extended, not
# anchored). Tests delete their topics when they end; a test that is killed cannot, and what it leaves costs the
# brokers CPU on every fetch (docs/KAFKA.md, "Topics are created, never auto-created").
cmd_prune_topics() {
  local minutes=60 match='' dry=0
  while (($#)); do
    case $1 in
      --idle-minutes)
        [[ ${2:-} =~ ^[0-9]+$ ]] || die "prune-topics: --idle-minutes expects a whole number of minutes, got '${2:-}'"
        minutes=$2; shift 2 ;;
      --match)
        [[ -n ${2:-} ]] || die "prune-topics: --match expects a regular expression"
        local rc=0; grep -qE -- "$2" </dev/null 2>/dev/null || rc=$?
        ((rc != 2)) || die "prune-topics: --match '$2' is not a valid extended regular expression"
        match=$2; shift 2 ;;
      --dry-run) dry=1; shift ;;
      *) die "prune-topics: unknown argument '$1' (expected --idle-minutes N, --match REGEX, --dry-run)" ;;
    esac
  done
  local n
  for n in 1 2 3; do
    [[ -n $(live_pid "kafka-$n") ]] && kafka_healthy "$n" || die "prune-topics: kafka-$n is not running; it needs all three nodes up"
  done
  local topic age topics=() listing=()
  while read -r topic age; do
    [[ -z $match || $topic =~ $match ]] || continue
    topics+=("$topic"); listing+=("$topic (${age} min)")
  done < <(kafka_idle_topics "$minutes")
  if ((${#topics[@]} == 0)); then log "prune-topics: no topic idle for ${minutes} min${match:+ matching '$match'}"; return 0; fi
  if ((dry)); then
    log "prune-topics: would delete ${#topics[@]} topic(s) idle for ${minutes} min or more:"
    printf '  %s\n' "${listing[@]}"
    return 0
  fi
  log "prune-topics: deleting ${#topics[@]} topic(s) idle for ${minutes} min or more: ${listing[*]}"
  local out="$RUN_DIR/kafka/prune-topics.log"
  kafka_java "$STACK_DIR/kafka/DeleteTopics.java" -Dkafka.logs.dir="$RUN_DIR/kafka/tools" -- "$(kafka_bootstrap)" "${topics[@]}" \
    >"$out" 2>&1 || { tail -n 20 "$out" >&2; die "prune-topics: deleting topics failed (log: ${out#"$REPO_ROOT"/})"; }
  log "prune-topics: deleted $(grep -c '^deleted' "$out")"
}
