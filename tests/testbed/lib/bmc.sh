# Simulated BMCs (up --bmc, kept until down): one OpenIPMI ipmi_sim per
# node, a real IPMI-over-LAN (RMCP+) BMC, whose chassis power really powers
# the node's container. What is real and what is simulated: README.md, "BMCs".
#
# Where a BMC listens: its own address on the management network (the
# bridge), in a /24 of its own (the management /24's third number + 50:
# 10.213.127.0/24 for 10.213.77), port 623, as a site's BMCs have an address
# each on a BMC network; node i's BMC is .(10+i), like the node. The
# controller (this machine) reaches them directly; so could the nodes
# (their default route is the bridge), as on a site whose BMC network is
# routed. Costs one `ip addr add` per node.
#
# Power: ipmi_sim runs the node's power process (its `startcmd`, `testbed
# __bmc-power NODE`) at power on and reads "power is on" while it lives. At
# power off it sends it SIGTERM: the process cuts the node's power
# (power_off_node: SIGKILL to the container's init, as `testbed kill`) and
# ends. At power on it starts again and boots the node (as `testbed
# start`, without waiting for it), after TESTBED_BMC_POST seconds of
# SIMULATED firmware time. A cycle is both, a second apart. A node
# that ends by itself (`systemctl poweroff` inside it, `testbed kill`) ends
# its power process too, so the BMC then reads off, as a real one would.
#
# Per node in $TESTBED_STATE/nodes/NODE/bmc: lan.conf (the BMC's config,
# with its user's password: mode 600), bmc.emu, state/ (ipmi_sim's), power
# (the startcmd), sim.pid, power.pid, sim.log, power.log. The controller's
# copy of the password: $TESTBED_STATE/bmc/NODE.pw (mode 600), which the
# inventory names.

BMC_USER="admin"
# ipmi_sim accepts chassis power commands only with a serial interface of
# codec VM (the connection a VM such as qemu makes back to its BMC). No VM
# connects here, so a power off is a SIGTERM at once (ipmi_lan(5)). It
# listens on a loopback address of the node's own, which no node reaches.
BMC_SERIAL_PORT=9002

# SIMULATED firmware time: the seconds between a BMC's power on and the
# container's boot (TESTBED_BMC_POST, as `up` had it; default 0). A real
# server spends a minute or more in its firmware (POST) before its OS
# boots, long enough for Slurm to see it down; a container boots in about
# a second.
bmc_post_seconds() {
  local post=${TESTBED_BMC_POST:-0}
  [[ $post =~ ^[0-9]+$ ]] && [ "$post" -le 600 ] || die "TESTBED_BMC_POST must be 0-600 seconds (got '$post')"
  echo "$post"
}

bmc_enabled() { [ -e "$TESTBED_STATE/bmc/enabled" ]; }
bmc_subnet() {
  local a b c
  IFS=. read -r a b c <<<"$TESTBED_SUBNET"
  echo "$a.$b.$((c + 50))"
}
bmc_address() { echo "$(bmc_subnet).$((10 + $1))"; }
bmc_serial_address() {
  local a b c
  IFS=. read -r a b c <<<"$(bmc_subnet)"
  echo "127.$b.$c.$((10 + $1))"
}
bmc_dir() { echo "$(node_dir "$1")/bmc"; }
bmc_password_file() { echo "$TESTBED_STATE/bmc/$1.pw"; }
# The inventory names the password file relative to itself.
bmc_password_file_relative() { echo "bmc/$1.pw"; }

# up --bmc: remembered until down, so nodes added later get BMCs too.
enable_bmcs() {
  command -v ipmi_sim >/dev/null && command -v ipmitool >/dev/null ||
    die "--bmc needs ipmi_sim (openipmi) and ipmitool: scripts/install-deps.sh --testbed installs them"
  mkdir -p "$TESTBED_STATE/bmc"
  chmod 700 "$TESTBED_STATE/bmc"
  touch "$TESTBED_STATE/bmc/enabled"
}

# bmc_ipmitool NODE ARGS...: ipmitool against the node's BMC with its
# credentials (the password from its file: never on a command line).
bmc_ipmitool() {
  local node=$1 index
  shift
  index=$(node_index "$node")
  ipmitool -I lanplus -H "$(bmc_address "$index")" -U "$BMC_USER" -f "$(bmc_password_file "$node")" -C 3 \
    -N 1 -R 2 "$@"
}

# The BMC's config. Its paths are the testbed's own (no quote can occur in
# them: checked), the password is 16 hex digits.
write_bmc_config() {
  local node=$1 index=$2 dir=$3 password=$4 startnow=$5
  case "$dir" in *'"'* | *' '*) die "the testbed's state directory may not hold quotes or spaces for ipmi_sim: $dir" ;; esac
  (
    umask 077
    cat >"$dir/lan.conf" <<CONF
# ipmi_sim's config for $node's simulated BMC (tests/testbed/lib/bmc.sh).
name "$node"
set_working_mc 0x20
  startlan 1
    addr $(bmc_address "$index") 623
    priv_limit admin
    allowed_auths_admin md5 straight
    guid $(printf '5e1ec7ed0000000000000000%08x' "$index")
  endlan
  user 2 true "$BMC_USER" "$password" admin 10 md5 straight
  startcmd "$dir/power"
  startnow $startnow
  poweroff_wait 2
  kill_wait 60
serial 15 $(bmc_serial_address "$index") $BMC_SERIAL_PORT codec VM
CONF
  )
  # One MC (the BMC itself), no sensors, a SEL of up to 1000 entries.
  printf '%s\n' 'mc_setbmc 0x20' 'mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr' \
    'sel_enable 0x20 1000 0x0a' 'mc_enable 0x20' >"$dir/bmc.emu"
  # The startcmd: the testbed's settings travel with it (ipmi_sim's
  # environment is this command's, but the file says what it runs). The
  # firmware time is read at each power on from post (bmc-post sets it).
  bmc_post_seconds >"$dir/post"
  cat >"$dir/power" <<SCRIPT
#!/bin/sh
exec >>"$dir/power.log" 2>&1
export TESTBED_STATE='$TESTBED_STATE' TESTBED_CACHE='$TESTBED_CACHE' TESTBED_SUBNET='$TESTBED_SUBNET' TESTBED_PREFIX='$TESTBED_PREFIX'
TESTBED_BMC_POST=\$(cat '$dir/post')
export TESTBED_BMC_POST
exec '$TESTBED_HOME/testbed' __bmc-power '$node'
SCRIPT
  chmod 755 "$dir/power"
}

# Starts NODE's BMC unless it runs, without waiting for it to answer. A
# node that runs is powered on at the BMC's start (the power process adopts
# it); one that is off stays off.
start_bmc() {
  local node=$1 index=$2 dir password_file startnow=false
  dir=$(bmc_dir "$node")
  pid_alive "$(read_pid "$dir/sim.pid")" && return 0
  bmc_post_seconds >/dev/null
  mkdir -p "$dir/state"
  password_file=$(bmc_password_file "$node")
  if [ ! -s "$password_file" ]; then
    (umask 077 && od -An -tx1 -N8 /dev/urandom | tr -d ' \n' >"$password_file" && echo >>"$password_file")
  fi
  node_running "$node" && startnow=true
  write_bmc_config "$node" "$index" "$dir" "$(head -n 1 "$password_file")" "$startnow"
  ip addr replace "$(bmc_address "$index")/24" dev "$TESTBED_BRIDGE"  # see ensure_bridge
  # Its own session, without the testbed's lock (fd 9) or anything else open.
  setsid ipmi_sim -c "$dir/lan.conf" -f "$dir/bmc.emu" -s "$dir/state" -n >>"$dir/sim.log" 2>&1 </dev/null 8>&- 9>&- &
  record_pid "$dir/sim.pid" $!
}

# Waits until each node's BMC answers a power status (10 s each at most).
# ipmitool is asked once the BMC's UDP port is bound: asked before, it
# waits out its retries (seconds).
wait_bmcs() {
  local node address
  for node in "$@"; do
    address=$(bmc_address "$(node_index "$node")")
    for _ in $(seq 100); do
      if [ -n "$(ss -Hlun src "$address:623" 2>/dev/null)" ] &&
        bmc_ipmitool "$node" chassis power status >/dev/null 2>&1; then
        continue 2
      fi
      pid_alive "$(read_pid "$(bmc_dir "$node")/sim.pid")" || break
      sleep 0.1
    done
    die "$node: its BMC does not answer; see $(bmc_dir "$node")/sim.log"
  done
}

# Ends NODE's BMC and its power process, by their pids (SIGKILL for the
# power process: its SIGTERM would power the node off under the lock the
# caller holds; the caller removes the node anyway).
stop_bmc() {
  local dir pid
  dir=$(bmc_dir "$1")
  [ -d "$dir" ] || return 0
  stop_recorded "$dir/sim.pid"  # ipmi_sim leaves its power process running when it ends
  pid=$(read_pid "$dir/power.pid")
  if pid_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -f "$dir/power.pid"
}

# For `testbed status`: the BMC's address, "(stopped)" when its ipmi_sim
# does not run, "-" without one.
bmc_status() {
  local dir index
  dir=$(bmc_dir "$1")
  [ -d "$dir" ] || { echo -; return 0; }
  index=$(node_index "$1")
  if pid_alive "$(read_pid "$dir/sim.pid")"; then bmc_address "$index"; else echo "$(bmc_address "$index")(stopped)"; fi
}

# `testbed start NODE` of a node with a BMC: the BMC is told too, so it
# reads on (its power process waits for the lock `start` holds, then finds
# the node running and adopts it).
bmc_follow_start() {
  [ -d "$(bmc_dir "$1")" ] || return 0
  bmc_ipmitool "$1" chassis power on >/dev/null || log "$1: its BMC did not take the power on (it may read off)"
}

# `testbed __bmc-power NODE`: the node's power process, run by its BMC
# (ipmi_sim's startcmd) at power on. Powers the node on unless it runs, then
# lives as long as the node does; SIGTERM (the BMC's power off) cuts the
# node's power. Changes to the node are made under the testbed's lock, held
# on fd 9 in this very process (no subshell that a SIGKILL would leave).
bmc_power() {
  local node=$1 dir
  dir=$(node_dir "$node")
  [ -d "$dir" ] || die "no such node: $node"
  record_pid "$(bmc_dir "$node")/power.pid" $$
  trap 'bmc_power_off "$node"' TERM
  echo "$(date '+%F %T') power on"
  if ! node_running "$node" && [ "${TESTBED_BMC_POST:-0}" -gt 0 ]; then
    echo "$(date '+%F %T') firmware (SIMULATED POST): ${TESTBED_BMC_POST}s"
    sleep "$TESTBED_BMC_POST" &
    wait $! || true
  fi
  if ! node_running "$node"; then
    exec 9>"$TESTBED_STATE/.lock"
    flock -w 600 9 || die "$node: the testbed's lock stays held; not powered on"
    node_running "$node" || bmc_boot_node "$node"
    exec 9>&-
  fi
  while pid_alive "$(read_pid "$dir/supervisor.pid")"; do
    sleep 0.5 &
    wait $! || true
  done
  # The node ended by itself (powered off inside, testbed kill): it stays off.
  echo "$(date '+%F %T') the node ended by itself: power off"
  [ -d "$dir" ] && touch "$dir/stopped"
  rm -f "$(bmc_dir "$node")/power.pid"
}

bmc_boot_node() {
  local node=$1 INDEX GPUS HCAS ADDRESS NVSWITCHES=0 GPU_MODEL=h100
  source "$(node_dir "$node")/node.env"
  ensure_bridge
  ensure_proxy
  prepare_node "$node" "$INDEX" "$GPUS" "$HCAS" "$NVSWITCHES" "$GPU_MODEL"
  start_supervisor "$node"
  echo "$(date '+%F %T') booting"
}

bmc_power_off() {
  local node=$1
  echo "$(date '+%F %T') power off requested"
  exec 9>"$TESTBED_STATE/.lock"
  flock -w 60 9 || echo "$(date '+%F %T') the testbed's lock stays held; cutting the power without it"
  power_off_node "$node"
  exec 9>&-
  rm -f "$(bmc_dir "$node")/power.pid"
  echo "$(date '+%F %T') off"
  exit 0
}

# `testbed bmc-post NODE SECONDS`: the SIMULATED firmware time of the
# node's BMC from its next power on (a test's part that needs no long POST).
cmd_bmc_post() {
  local node=${1:?usage: testbed bmc-post NODE SECONDS} post
  require_node "$node"
  [ -d "$(bmc_dir "$node")" ] || die "$node has no BMC (testbed up N --bmc)"
  post=$(TESTBED_BMC_POST=${2:-} bmc_post_seconds)
  echo "$post" >"$(bmc_dir "$node")/post"
}

# `testbed bmc NODE ARGS...`: ipmitool ARGS against the node's BMC, as the
# controller reaches it (lanplus, cipher suite 3, its user and password
# file): what tests use to read and set what clusterctl does not, such as
# `sel add FILE` (README.md, "BMCs").
cmd_bmc() {
  local node=${1:?usage: testbed bmc NODE IPMITOOL-ARGS...}
  shift
  require_node "$node"
  [ -d "$(bmc_dir "$node")" ] || die "$node has no BMC (testbed up N --bmc)"
  [ $# -gt 0 ] || die "usage: testbed bmc NODE IPMITOOL-ARGS... (e.g. chassis power status, sel add FILE, sel clear)"
  bmc_ipmitool "$node" "$@"
}
