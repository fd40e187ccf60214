# A second pipeline beside the shared one (PIPELINE_INSTANCE=<name>, issue #20): the same apps, as
# containers or processes, on their own ports, topics, transactional id, consumer groups, probe run id
# and pages directory, so that a test can run `tools/pipeline up --containers` for real while the
# shared pipeline keeps serving the others on ports.env's ports.
# shellcheck shell=bash
# Sourced by tools/pipeline after infra/local/ports.env and tools/lib/containers.sh.
#   PIPELINE_INSTANCE   [a-z0-9][a-z0-9-]{0,39}; unset or empty: the shared pipeline
#   PIPELINE_PORT_BASE  the first of six consecutive free ports, used in ports.env's order 9400-9405:
#                       gatekeeper metrics, probe metrics, loader metrics, pager, collector, collector metrics
# The caller creates the instance's topics <name>.raw (LogAppendTime), <name>.valid and <name>.dlq.
# Shared with the pipeline: ClickHouse's tables (rows carry their run id) and the Flink jobs, which
# `up` only makes sure are live, as for the shared pipeline. The instance's events never reach
# events.clean, so its probe watches the valid layer only; Prometheus does not scrape its ports.

PIPELINE_INSTANCE=${PIPELINE_INSTANCE:-}
# shellcheck disable=SC2034 # read by tools/pipeline
PAGES_DIR="$REPO_ROOT/results/pages"

# shellcheck disable=SC2034 # ports.env's names, read by tools/pipeline
if [[ -n $PIPELINE_INSTANCE ]]; then
  [[ $PIPELINE_INSTANCE =~ ^[a-z0-9][a-z0-9-]{0,39}$ ]] ||
    die "PIPELINE_INSTANCE '$PIPELINE_INSTANCE': expected [a-z0-9][a-z0-9-]{0,39}"
  [[ ${PIPELINE_PORT_BASE:-} =~ ^[0-9]{4,5}$ ]] && ((PIPELINE_PORT_BASE >= 1024 && PIPELINE_PORT_BASE <= 65530)) ||
    die "PIPELINE_PORT_BASE '${PIPELINE_PORT_BASE:-}': expected the first of six free ports, 1024-65530 (PIPELINE_INSTANCE is set)"
  GATEKEEPER_METRICS_PORT=$PIPELINE_PORT_BASE
  PROBE_METRICS_PORT=$((PIPELINE_PORT_BASE + 1))
  LOADER_METRICS_PORT=$((PIPELINE_PORT_BASE + 2))
  PAGER_PORT=$((PIPELINE_PORT_BASE + 3))
  COLLECTOR_PORT=$((PIPELINE_PORT_BASE + 4))
  COLLECTOR_METRICS_PORT=$((PIPELINE_PORT_BASE + 5))
  PAGES_DIR="$REPO_ROOT/results/tmp/pipeline-$PIPELINE_INSTANCE/pages"
fi

# instance_args APP: the flags that move APP onto the instance's topics, ids and groups (nothing for
# the shared pipeline, whose apps run on their defaults).
instance_args() {
  [[ -n $PIPELINE_INSTANCE ]] || return 0
  local n=$PIPELINE_INSTANCE
  case $1 in
    gatekeeper) echo "--instance-id $n --group-id $n-gatekeeper --raw-topic $n.raw --valid-topic $n.valid --dlq-topic $n.dlq" ;;
    loader) echo "--group $n-loader --client-id $n-loader --topics valid=$n.valid,dlq=$n.dlq" ;;
    collector) echo "--topic $n.raw" ;;
    probe) echo "--topic $n.raw --run-id $n --layers valid" ;;
    pager) ;;
  esac
}
