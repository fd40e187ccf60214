# ClickHouse component of stack.sh: render our config into .run/clickhouse and run the Debian server binary on it.
# shellcheck shell=bash

CH_DIR="$RUN_DIR/clickhouse"
CH_CONFIG_SRC="$REPO_ROOT/infra/clickhouse/config"
COMPONENTS+=(clickhouse)

clickhouse_port() { printf '%s' "$CLICKHOUSE_HTTP_PORT"; }
clickhouse_healthy() { [[ $(curl -fsS -m 2 "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT/ping" 2>/dev/null) == "Ok." ]]; }
clickhouse_logs() { printf '%-18s %s\n' clickhouse "$CH_DIR/log/clickhouse-server.log"; }

clickhouse_render() {
  mkdir -p "$CH_DIR"/{conf,data,tmp,log,user_files,format_schemas}
  local f
  for f in "$CH_CONFIG_SRC"/*.xml; do
    sed -e "s|@CH_DIR@|$CH_DIR|g" -e "s|<http_port>18123<|<http_port>$CLICKHOUSE_HTTP_PORT<|" \
      -e "s|<tcp_port>19000<|<tcp_port>$CLICKHOUSE_TCP_PORT<|" \
      -e "s|<interserver_http_port>19009<|<interserver_http_port>$CLICKHOUSE_INTERSERVER_PORT<|" \
      "$f" >"$CH_DIR/conf/$(basename "$f")"
  done
}

clickhouse_up() {
  command -v clickhouse-server >/dev/null || [[ -x /usr/sbin/clickhouse-server ]] ||
    die "clickhouse-server not installed: run tools/setup"
  if [[ -z $(live_pid clickhouse) ]]; then
    local p
    for p in "$CLICKHOUSE_HTTP_PORT" "$CLICKHOUSE_TCP_PORT" "$CLICKHOUSE_INTERSERVER_PORT"; do ensure_port_free clickhouse "$p"; done
    clickhouse_render
    # Runs in the foreground (no --daemon) so the recorded pid is the server itself.
    start_detached clickhouse "$CH_DIR/log/stdout.log" /usr/sbin/clickhouse-server --config-file="$CH_DIR/conf/config.xml"
    log "started clickhouse (pid $(live_pid clickhouse))"
  fi
  wait_healthy clickhouse "${CLICKHOUSE_START_TIMEOUT:-60}" "$CH_DIR/log/clickhouse-server.err.log" clickhouse_healthy
}
