# Flink component of stack.sh: a session cluster (JobManager + one TaskManager) from the PyPI-packaged distribution.
# shellcheck shell=bash

FLINK_HOME_DIST="$CACHE_DIR/pyflink/pyflink"
FLINK_RUN="$RUN_DIR/flink"
COMPONENTS+=(flink-jobmanager flink-taskmanager)

flink_jobmanager_port() { printf '%s' "$FLINK_REST_PORT"; }
flink_taskmanager_port() { printf '%s' "-"; }
flink_jobmanager_healthy() { http_ok "http://127.0.0.1:$FLINK_REST_PORT/overview"; }
# Healthy once the JobManager sees at least one registered TaskManager.
flink_taskmanager_healthy() {
  curl -fsS -m 2 "http://127.0.0.1:$FLINK_REST_PORT/overview" 2>/dev/null | grep -q '"taskmanagers":[1-9]'
}
flink_logs() {
  printf '%-18s %s\n' flink-jobmanager "$FLINK_RUN/log/jobmanager.log" flink-taskmanager "$FLINK_RUN/log/taskmanager.log"
}

# Environment the distribution's scripts honour: our conf, a lib dir with the connectors, one plugin.
flink_env() {
  export FLINK_CONF_DIR="$FLINK_RUN/conf" FLINK_LIB_DIR="$FLINK_RUN/lib" FLINK_PLUGINS_DIR="$FLINK_RUN/plugins"
  export FLINK_OPT_DIR="$FLINK_RUN/opt"
  export FLINK_LOG_DIR="$FLINK_RUN/log" FLINK_PID_DIR="$FLINK_RUN"
}

flink_render() {
  [[ -f $FLINK_HOME_DIST/bin/jobmanager.sh ]] || die "Flink distribution missing in .cache/pyflink: run tools/setup"
  compgen -G "$CACHE_DIR/flink-connectors/*.jar" >/dev/null || die "Flink connector jars missing in .cache/flink-connectors: run tools/setup"
  compgen -G "$CACHE_DIR/flink-opt/flink-sql-gateway-*.jar" >/dev/null || die "flink-sql-gateway jar missing in .cache/flink-opt: run tools/setup"
  mkdir -p "$FLINK_RUN"/{conf,log,tmp,upload,checkpoints,savepoints,plugins}
  flink_render_conf
  # lib = distribution lib + connectors, rebuilt each start so a changed connector set takes effect.
  rm -rf "${FLINK_RUN:?}/lib" && mkdir -p "$FLINK_RUN/lib"
  ln -s "$FLINK_HOME_DIST"/lib/*.jar "$CACHE_DIR"/flink-connectors/*.jar "$FLINK_RUN/lib/"
  flink_link_opt
  ln -sfn "$FLINK_HOME_DIST/plugins/metrics-prometheus" "$FLINK_RUN/plugins/metrics-prometheus"
}

# conf = the distribution's, our log4j and infra/local/flink/config.yaml with the ports filled in. Rendered again at
# every TaskManager start, so that `stack.sh restart flink-taskmanager` takes a changed config.yaml (the JobManager's
# settings take effect at its own restart).
flink_render_conf() {
  cp "$FLINK_HOME_DIST"/conf/* "$FLINK_RUN/conf/"
  cp "$STACK_DIR/flink/log4j-console.properties" "$FLINK_RUN/conf/"
  sed -e "s|@RUN@|$FLINK_RUN|g" -e "s|@FLINK_RPC_PORT@|$FLINK_RPC_PORT|g" -e "s|@FLINK_REST_PORT@|$FLINK_REST_PORT|g" \
    -e "s|@FLINK_METRICS_PORT_FIRST@|$FLINK_METRICS_PORT_FIRST|g" -e "s|@FLINK_METRICS_PORT_LAST@|$FLINK_METRICS_PORT_LAST|g" \
    "$STACK_DIR/flink/config.yaml" >"$FLINK_RUN/conf/config.yaml"
}

# opt = distribution opt + the SQL gateway jar that the SQL client needs (not in the PyPI package).
flink_link_opt() {
  rm -rf "$FLINK_RUN/opt" && mkdir -p "$FLINK_RUN/opt"
  ln -s "$FLINK_HOME_DIST"/opt/*.jar "$CACHE_DIR"/flink-opt/*.jar "$FLINK_RUN/opt/"
}

# Runs the SQL client against the session cluster with the stack's conf and connector jars.
flink_sql_client() {
  [[ -f $FLINK_RUN/conf/config.yaml && -d $FLINK_RUN/lib ]] || die "Flink is not set up: run infra/local/stack.sh up"
  [[ -d $FLINK_RUN/opt ]] || flink_link_opt
  flink_env
  "$FLINK_HOME_DIST/bin/sql-client.sh" "$@"
}

flink_up() {
  if [[ -z $(live_pid flink-jobmanager) ]]; then
    ensure_port_free flink-jobmanager "$FLINK_REST_PORT"
    ensure_port_free flink-jobmanager "$FLINK_RPC_PORT"
    flink_render
    (flink_env; start_detached flink-jobmanager "$FLINK_RUN/log/jobmanager.log" \
      "$FLINK_HOME_DIST/bin/jobmanager.sh" start-foreground)
    log "started flink-jobmanager (pid $(live_pid flink-jobmanager))"
  fi
  wait_healthy flink-jobmanager "${FLINK_START_TIMEOUT:-90}" "$FLINK_RUN/log/jobmanager.log" flink_jobmanager_healthy
  if [[ -z $(live_pid flink-taskmanager) ]]; then
    if [[ -d $FLINK_RUN/lib ]]; then flink_render_conf; else flink_render; fi
    # Each TaskManager works in a new tmp/tm_<address>-<id> (its RocksDB instances: about 200 MB here), which Flink
    # removes only on a clean shutdown: every kill left one behind. No TaskManager runs now, so none is in use.
    rm -rf "${FLINK_RUN:?}"/tmp/tm_*
    (flink_env; start_detached flink-taskmanager "$FLINK_RUN/log/taskmanager.log" \
      "$FLINK_HOME_DIST/bin/taskmanager.sh" start-foreground)
    log "started flink-taskmanager (pid $(live_pid flink-taskmanager))"
  fi
  wait_healthy flink-taskmanager "${FLINK_START_TIMEOUT:-90}" "$FLINK_RUN/log/taskmanager.log" flink_taskmanager_healthy
}
