# Kafka nodes in network namespaces (`KAFKA_NET=netns stack.sh up`): each node its own host.
# shellcheck shell=bash
#
# By default (KAFKA_NET=loopback) the three nodes share the machine's loopback and a partition is a
# set of nftables drops (lib/partition.sh). With KAFKA_NET=netns each node runs in a namespace of its
# own (cs-kafkaN, address 10.200.0.N on a veth whose host end is on the bridge cs-kafka-br), so a
# partition is what it is between hosts: `partition-node N` takes the node's link down and no packet
# crosses, whoever sent it.
#
# Every client keeps the addresses of ports.env (127.0.0.1:PORT): in the root namespace and in each
# node's, an nftables NAT table sends 127.0.0.1:<node N's ports> to 10.200.0.N (and masquerades the
# loopback source, which route_localnet lets leave on the bridge or veth). So the pipeline, Flink,
# Prometheus, the tests and the nodes themselves (advertised listeners and quorum voters stay on
# 127.0.0.1) need no other configuration, and a mode switch is a restart of the three nodes only.

KAFKA_NET_SUBNET=10.200.0
KAFKA_NET_BRIDGE=cs-kafka-br
KAFKA_NET_TABLE=clickstream_kafka_net

kafka_net_file() { printf '%s/kafka/net' "$RUN_DIR"; }
kafka_netns_name() { printf 'cs-kafka%s' "$1"; }
kafka_veth() { printf 'cs-kafka%s-h' "$1"; }

# The mode the nodes run in: what `up` recorded (it holds until `down`), else what KAFKA_NET asks for.
kafka_net() {
  local f; f=$(kafka_net_file)
  if [[ -f $f ]]; then cat "$f"; else printf '%s' "${KAFKA_NET:-loopback}"; fi
}

# The address node $1 listens on.
kafka_host() {
  if [[ $(kafka_net) == netns ]]; then printf '%s.%s' "$KAFKA_NET_SUBNET" "$1"; else printf 127.0.0.1; fi
}

# Prefix that runs a command in node $1's namespace (nothing on loopback).
kafka_netns_exec() {
  [[ $(kafka_net) == netns ]] && printf '%s\n' ip netns exec "$(kafka_netns_name "$1")"
  return 0
}

kafka_net_validate() {
  [[ -z ${KAFKA_NET:-} || $KAFKA_NET == loopback || $KAFKA_NET == netns ]] ||
    die "KAFKA_NET='$KAFKA_NET' is invalid: expected loopback (the default) or netns"
}

# Called by kafka_up before any node starts: settles the mode, builds or removes the namespaces.
kafka_net_prepare() {
  local f want=${KAFKA_NET:-} have=loopback; f=$(kafka_net_file)
  [[ -f $f ]] && have=$(<"$f")
  # The recorded mode holds until `down`; KAFKA_NET picks another only while no node runs.
  if [[ -n $(kafka_pids | tr -d ,) && -n $want && $want != "$have" ]]; then
    die "Kafka runs with KAFKA_NET=$have; to switch to $want, stop the stack first (bash infra/local/stack.sh down)"
  fi
  want=${want:-$have}
  mkdir -p "$(dirname "$f")"
  printf '%s' "$want" >"$f"
  if [[ $want == netns ]]; then kafka_net_up; else kafka_net_down; fi
}

kafka_net_nft() {
  local n out=""
  for n in 1 2 3; do
    out+="    ip daddr 127.0.0.1 tcp dport { $(kafka_port "$n"), $(kafka_cport "$n"), $(kafka_metrics_port "$n") } dnat to $KAFKA_NET_SUBNET.$n"$'\n'
  done
  cat <<NFT
table ip $KAFKA_NET_TABLE {
  chain out {
    type nat hook output priority -100; policy accept;
$out  }
  chain post {
    type nat hook postrouting priority 100; policy accept;
    ip saddr 127.0.0.0/8 oifname "$1" masquerade
  }
}
NFT
}

# Idempotent: the bridge, three namespaces with their veths, and the NAT table in each namespace.
kafka_net_up() {
  [[ $(id -u) == 0 ]] || die "KAFKA_NET=netns needs root (ip netns, nftables)"
  command -v ip >/dev/null || die "ip (iproute2) not installed: run tools/setup"
  command -v nft >/dev/null || die "nft not installed: run tools/setup"
  local br=$KAFKA_NET_BRIDGE n ns veth
  if ! ip link show "$br" >/dev/null 2>&1; then
    ip link add "$br" type bridge || die "could not create the bridge $br"
    ip addr add "$KAFKA_NET_SUBNET.254/24" dev "$br"
  fi
  ip link set "$br" up
  sysctl -qw "net.ipv4.conf.$br.route_localnet=1" || die "could not set route_localnet on $br"
  for n in 1 2 3; do
    ns=$(kafka_netns_name "$n") veth=$(kafka_veth "$n")
    ip netns list | grep -qw "^$ns" || ip netns add "$ns" || die "could not create the network namespace $ns"
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add "$veth" type veth peer name eth0 netns "$ns" || die "could not create the veth pair of $ns"
      ip -n "$ns" addr add "$KAFKA_NET_SUBNET.$n/24" dev eth0
    fi
    ip link set "$veth" master "$br" up
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.eth0.route_localnet=1
    ip netns exec "$ns" nft list table ip "$KAFKA_NET_TABLE" >/dev/null 2>&1 ||
      kafka_net_nft eth0 | ip netns exec "$ns" nft -f - || die "nft refused the NAT table in $ns"
  done
  nft list table ip "$KAFKA_NET_TABLE" >/dev/null 2>&1 ||
    kafka_net_nft "$br" | nft -f - || die "nft refused the NAT table in the root namespace"
  log "kafka network: namespaces cs-kafka1..3 at $KAFKA_NET_SUBNET.1-3 on $br; 127.0.0.1:<node ports> NATed to them"
}

# Removes whatever kafka_net_up made (nothing when it made nothing).
kafka_net_down() {
  local n ns did=0
  nft list table ip "$KAFKA_NET_TABLE" >/dev/null 2>&1 && { nft delete table ip "$KAFKA_NET_TABLE"; did=1; }
  for n in 1 2 3; do
    ns=$(kafka_netns_name "$n")
    ip netns list 2>/dev/null | grep -qw "^$ns" && { ip netns del "$ns"; did=1; }
  done
  ip link show "$KAFKA_NET_BRIDGE" >/dev/null 2>&1 && { ip link del "$KAFKA_NET_BRIDGE"; did=1; }
  ((did)) && log "kafka network: namespaces, bridge and NAT table removed"
  return 0
}

# In netns mode a partition is the node's link taken down, on the host side of its veth (the
# partition_<mode>_* functions of lib/partition.sh).
partition_netns_cut() {
  ip link set "$(kafka_veth "$1")" down || die "could not take the link of kafka-$1 down"
  log "partitioned kafka-$1 (pid $2 keeps running in $(kafka_netns_name "$1"); its link is down, no packet crosses)"
}
partition_netns_heal() { ip link set "$(kafka_veth "$1")" up; }
partition_netns_is_cut() {
  local flags; flags=$(cat "/sys/class/net/$(kafka_veth "$1")/flags" 2>/dev/null) || return 1
  ((!(flags & 1)))
}
