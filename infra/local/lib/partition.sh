# Network partition of one Kafka node (`stack.sh partition-node N` / `heal-node N`).
# shellcheck shell=bash
# With the nodes in network namespaces (KAFKA_NET=netns, lib/netns.sh) the node's link goes down.
# On loopback (the default) it is done with nftables: all traffic is on loopback, so the cut is by
# port (the node's listeners: in and out) and by socket owner (the node's own outgoing connections;
# each node runs as its own user, see kafka_user).

partition_table() { printf 'clickstream_partition_%s' "$1"; }

# Each mode of lib/netns.sh cuts in its own way: partition_<mode>_{cut,heal,is_cut} NODE PID.
kafka_partitioned() { "partition_$(kafka_net)_is_cut" "$1"; }

cmd_partition_node() {
  node_arg "${1:-}"
  local n=$1 pid
  pid=$(live_pid "kafka-$n")
  [[ -n $pid ]] || die "kafka-$n is not running"
  kafka_partitioned "$n" && { log "kafka-$n is already partitioned"; return 0; }
  "partition_$(kafka_net)_cut" "$n" "$pid"
}

cmd_heal_node() {
  node_arg "${1:-}"
  if kafka_partitioned "$1"; then
    "partition_$(kafka_net)_heal" "$1"
    log "healed kafka-$1"
  else
    log "kafka-$1 was not partitioned"
  fi
}

partition_loopback_is_cut() { command -v nft >/dev/null && nft list table inet "$(partition_table "$1")" >/dev/null 2>&1; }
partition_loopback_heal() { nft delete table inet "$(partition_table "$1")"; }

partition_loopback_cut() {
  local n=$1 pid=$2 user uid
  command -v nft >/dev/null || die "nft not installed: run tools/setup"
  user=$(kafka_user "$n")
  [[ -n $user ]] || die "kafka-$n has no user of its own (run tools/setup as root)"
  uid=$(id -u "$user")
  [[ $(awk '/^Uid:/ {print $2}' "/proc/$pid/status") == "$uid" ]] ||
    die "kafka-$n (pid $pid) does not run as $user (started before per-node users): run 'stack.sh restart-node $n' first"
  local p cp; p=$(kafka_port "$n"); cp=$(kafka_cport "$n")
  # Packets leave through the output hook once, even on loopback; dropping there cuts both directions.
  nft -f - <<NFT || die "nft refused the partition rules for kafka-$n"
table inet $(partition_table "$n") {
  chain out {
    type filter hook output priority 0; policy accept;
    tcp dport { $p, $cp } drop
    tcp sport { $p, $cp } drop
    meta skuid $uid drop
  }
}
NFT
  log "partitioned kafka-$n (pid $pid keeps running; no packet to or from it passes)"
}
