# Prometheus and Alertmanager components of stack.sh (Debian binaries, our configs, state under .run/).
# shellcheck shell=bash

PROM_DIR="$RUN_DIR/prometheus"
AM_DIR="$RUN_DIR/alertmanager"
COMPONENTS+=(prometheus alertmanager)

prometheus_port() { printf '%s' "$PROMETHEUS_PORT"; }
alertmanager_port() { printf '%s' "$ALERTMANAGER_PORT"; }
prometheus_healthy() { http_ok "http://127.0.0.1:$PROMETHEUS_PORT/-/ready"; }
alertmanager_healthy() { http_ok "http://127.0.0.1:$ALERTMANAGER_PORT/-/ready"; }
prometheus_logs() {
  printf '%-18s %s\n' prometheus "$PROM_DIR/prometheus.log" alertmanager "$AM_DIR/alertmanager.log"
}

prometheus_up() {
  command -v prometheus >/dev/null || die "prometheus not installed: run tools/setup"
  command -v prometheus-alertmanager >/dev/null || die "prometheus-alertmanager not installed: run tools/setup"
  if [[ -z $(live_pid alertmanager) ]]; then
    ensure_port_free alertmanager "$ALERTMANAGER_PORT"
    mkdir -p "$AM_DIR/data"
    # An empty cluster.listen-address turns off gossip clustering (and its port 9094).
    start_detached alertmanager "$AM_DIR/alertmanager.log" prometheus-alertmanager \
      --config.file="$REPO_ROOT/infra/alertmanager/alertmanager.yml" --storage.path="$AM_DIR/data" \
      --web.listen-address="127.0.0.1:$ALERTMANAGER_PORT" --cluster.listen-address=
    log "started alertmanager (pid $(live_pid alertmanager))"
  fi
  wait_healthy alertmanager 30 "$AM_DIR/alertmanager.log" alertmanager_healthy
  if [[ -z $(live_pid prometheus) ]]; then
    ensure_port_free prometheus "$PROMETHEUS_PORT"
    mkdir -p "$PROM_DIR/data"
    # --web.enable-lifecycle: rule changes are picked up with `curl -X POST 127.0.0.1:9090/-/reload`.
    start_detached prometheus "$PROM_DIR/prometheus.log" prometheus \
      --config.file="$REPO_ROOT/infra/prometheus/prometheus.yml" --storage.tsdb.path="$PROM_DIR/data" \
      --storage.tsdb.retention.time=7d --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" --web.enable-lifecycle
    log "started prometheus (pid $(live_pid prometheus))"
  fi
  wait_healthy prometheus 60 "$PROM_DIR/prometheus.log" prometheus_healthy
}
