# The testbed network: a bridge in the root namespace with $BRIDGE_ADDRESS,
# and per node a network namespace joined by a veth pair. The subnet exists
# only here; nothing is routed anywhere else.

ensure_bridge() {
  if ! ip link show "$TESTBED_BRIDGE" >/dev/null 2>&1; then
    ip link add "$TESTBED_BRIDGE" type bridge
  fi
  if ! ip -4 addr show dev "$TESTBED_BRIDGE" | grep -q "inet $BRIDGE_ADDRESS/"; then
    ip addr add "$BRIDGE_ADDRESS/24" dev "$TESTBED_BRIDGE"
  fi
  ip link set "$TESTBED_BRIDGE" up
}

remove_bridge() {
  ip link show "$TESTBED_BRIDGE" >/dev/null 2>&1 && ip link del "$TESTBED_BRIDGE"
  return 0
}

# Creates the node's namespace and link (idempotent).
ensure_node_network() {
  local node=$1 index=$2
  local ns veth address
  ns=$(netns_name "$node")
  veth=$(veth_name "$node")
  address=$(node_address "$index")
  [ -e "/run/netns/$ns" ] || ip netns add "$ns"
  if ! ip link show "$veth" >/dev/null 2>&1; then
    ip link add "$veth" type veth peer name eth0 netns "$ns"
  fi
  ip link set "$veth" master "$TESTBED_BRIDGE" up
  ip netns exec "$ns" ip link set lo up
  if ! ip netns exec "$ns" ip -4 addr show dev eth0 | grep -q "inet $address/"; then
    ip netns exec "$ns" ip addr add "$address/24" dev eth0
  fi
  ip netns exec "$ns" ip link set eth0 up
  ip netns exec "$ns" ip route replace default via "$BRIDGE_ADDRESS" 2>/dev/null || true
}

# Kills every process inside the node's network namespace: the container's
# init (taking its PID namespace down) first, then anything else. Finds them
# by the namespace this testbed created (ip netns pids), so it works even
# when the nspawn that started them is already gone.
kill_netns_processes() {
  local ns pid
  ns=$(netns_name "$1")
  [ -e "/run/netns/$ns" ] || return 0
  for pid in $(ip netns pids "$ns" 2>/dev/null); do
    if awk '/^NSpid:/ { exit !($NF == 1 && NF > 2) }' "/proc/$pid/status" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  local i
  for i in $(seq 50); do
    [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && return 0
    sleep 0.1
  done
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
}

remove_node_network() {
  local node=$1
  local ns veth
  ns=$(netns_name "$node")
  veth=$(veth_name "$node")
  kill_netns_processes "$node"
  ip link show "$veth" >/dev/null 2>&1 && ip link del "$veth"
  [ -e "/run/netns/$ns" ] && ip netns del "$ns"
  return 0
}

link_is_up() {
  ip -o link show "$(veth_name "$1")" 2>/dev/null | grep -q 'state UP\|,UP'
}

cmd_partition() {
  local node=${1:?usage: testbed partition NODE}
  require_node "$node"
  ip link set "$(veth_name "$node")" down
  touch "$(node_dir "$node")/partitioned"
  log "$node: link cut"
}

cmd_heal() {
  local node=${1:?usage: testbed heal NODE}
  require_node "$node"
  ip link set "$(veth_name "$node")" up
  rm -f "$(node_dir "$node")/partitioned"
  log "$node: link restored"
}
