# The testbed network: a bridge in the root namespace with $BRIDGE_ADDRESS,
# and per node a network namespace joined by a veth pair. The subnet exists
# only here; nothing is routed anywhere else.

ensure_bridge() {
  if ! ip link show "$TESTBED_BRIDGE" >/dev/null 2>&1; then
    ip link add "$TESTBED_BRIDGE" type bridge
  fi
  # replace: adds the address or keeps it, with no check first. A check
  # (`ip addr show | grep -q`, under pipefail) once said "absent" for an
  # address that was there, and the add then died on "Address already
  # assigned" at a BMC's power on (e2e_power); why the check missed it is
  # not pinned down.
  ip addr replace "$BRIDGE_ADDRESS/24" dev "$TESTBED_BRIDGE"
  ip link set "$TESTBED_BRIDGE" up
}

remove_bridge() {
  ip link show "$TESTBED_BRIDGE" >/dev/null 2>&1 && ip link del "$TESTBED_BRIDGE"
  local bridge
  for bridge in $(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 |
    grep "^${TESTBED_PREFIX}f[0-9]$" || true); do
    ip link del "$bridge"
  done
  return 0
}

# The simulated InfiniBand fabric (--hcas M): rail i is a bridge
# ${TESTBED_PREFIX}f<i> without an address (nothing on the host takes part),
# and a node with M adapters has ib0..ib<M-1> on rails 0..M-1: veth pairs,
# so IPoIB addresses, MTUs and routes are real and nodes reach each other
# over them (there is no IPoIB mode file on a veth). The host side takes the
# largest IPoIB MTU (65520), so each node's own MTU is what limits a packet,
# as on a fabric. Simulation: link type Ethernet, not InfiniBand.
IPOIB_DEFAULT_MTU=2044  # the IPoIB datagram MTU of a 2K-MTU subnet, what a fresh ib0 has

fabric_bridge() { echo "${TESTBED_PREFIX}f$1"; }
# Rail i's subnet: the management /24's third number + 100 + i (10.213.77 -> 10.213.177 for ib0).
fabric_subnet() {
  local a b c
  IFS=. read -r a b c <<<"$TESTBED_SUBNET"
  echo "$a.$b.$((c + 100 + $1))"
}
fabric_veth() { echo "$TESTBED_PREFIX-$1-f$2"; }

ensure_fabric_links() {
  local node=$1 hcas=$2 ns i bridge veth
  ns=$(netns_name "$node")
  for ((i = 0; i < hcas; i++)); do
    bridge=$(fabric_bridge "$i")
    veth=$(fabric_veth "$node" "$i")
    if ! ip link show "$bridge" >/dev/null 2>&1; then
      ip link add "$bridge" type bridge
      ip link set "$bridge" mtu 65520
    fi
    ip link set "$bridge" up
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add "$veth" mtu 65520 type veth peer name "ib$i" mtu "$IPOIB_DEFAULT_MTU" netns "$ns"
    fi
    ip link set "$veth" master "$bridge" up
  done
}

# A boot finds ib0.. as the adapter's driver leaves them: down, no address,
# the default MTU (the namespace outlives the container; a real reboot
# resets the interface).
reset_fabric_links() {
  local node=$1 hcas=$2 ns i
  ns=$(netns_name "$node")
  for ((i = 0; i < hcas; i++)); do
    ip netns exec "$ns" ip link set "ib$i" down 2>/dev/null || continue
    ip netns exec "$ns" ip addr flush dev "ib$i"
    ip netns exec "$ns" ip link set "ib$i" mtu "$IPOIB_DEFAULT_MTU"
  done
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
  ip netns exec "$ns" ip addr replace "$address/24" dev eth0  # as ensure_bridge's
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
  # The veth goes with its namespace too; either may end first.
  ip link del "$veth" 2>/dev/null || ! ip link show "$veth" >/dev/null 2>&1 || die "$node: could not remove link $veth"
  # `ip netns del` fails (EBUSY) while a dying container's mount namespace
  # still holds a copy of the namespace's mount: a crashed testbed's nodes
  # are torn down together, so it is retried while they finish dying.
  if [ -e "/run/netns/$ns" ]; then
    retry_for 10 netns_delete "$ns" || die "$node: could not remove network namespace $ns"
  fi
}
netns_delete() { ip netns del "$1" 2>/dev/null || [ ! -e "/run/netns/$1" ]; }

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
