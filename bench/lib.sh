# Shared by the benchmarks: a private network namespace with only loopback,
# one sshd in it, and inventories of N hosts at distinct loopback addresses
# (127.0.x.y). Nothing here can send a packet outside that namespace.

BENCH_NETNS=${BENCH_NETNS:-ccbench-$$}
BENCH_DIR=$(mktemp -d /tmp/clusterctl-bench-XXXXXX)
SSHD_PID=""

bench_cleanup() {
  [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null && wait "$SSHD_PID" 2>/dev/null
  # sshd's per-connection children die with their connections; give them a moment.
  sleep 0.5
  for pid in $(ip netns pids "$BENCH_NETNS" 2>/dev/null); do kill "$pid" 2>/dev/null; done
  ip netns del "$BENCH_NETNS" 2>/dev/null
  rm -rf "$BENCH_DIR"
}

in_netns() { ip netns exec "$BENCH_NETNS" "$@"; }

# Starts one sshd on 0.0.0.0:22 inside the namespace, where every 127.x.y.z
# address is loopback. MaxStartups is large so the fan-out is not throttled.
start_loopback_sshd() {
  ip netns add "$BENCH_NETNS"
  in_netns ip link set lo up
  ssh-keygen -q -t ed25519 -N '' -f "$BENCH_DIR/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$BENCH_DIR/client_key"
  cp "$BENCH_DIR/client_key.pub" "$BENCH_DIR/authorized_keys"
  chmod 600 "$BENCH_DIR/authorized_keys"
  mkdir -p /run/sshd
  cat >"$BENCH_DIR/sshd_config" <<CONFIG
Port 22
ListenAddress 0.0.0.0
HostKey $BENCH_DIR/host_key
PidFile $BENCH_DIR/sshd.pid
AuthorizedKeysFile $BENCH_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 4000:30:8000
MaxSessions 10
LoginGraceTime 60
UseDNS no
PrintMotd no
CONFIG
  # The simulated nodes get a stock root shell: this machine's own ~/.bashrc
  # (pyenv, cargo, ...) would otherwise run on every SSH command and dominate
  # the measurement. A private mount namespace hides it from sshd only.
  : >"$BENCH_DIR/empty_bashrc"
  in_netns unshare --mount --propagation private sh -c \
    "mount --bind '$BENCH_DIR/empty_bashrc' /root/.bashrc 2>/dev/null; exec /usr/sbin/sshd -D -f '$BENCH_DIR/sshd_config' -E '$BENCH_DIR/sshd.log'" &
  SSHD_PID=$!
  for _ in $(seq 50); do
    in_netns bash -c "exec 3<>/dev/tcp/127.0.0.1/22" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "sshd did not start; see $BENCH_DIR/sshd.log" >&2
  return 1
}

source "$(dirname "${BASH_SOURCE[0]}")/inventory.sh"

machine_busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat; }

# measure COMMAND...: runs it under GNU time; prints
# "wall_s user_s sys_s max_rss_kib exit machine_cpu_s" where the last is the
# CPU the whole machine spent meanwhile (controller + sshd + agents).
measure() {
  local out="$BENCH_DIR/time.$$" before after
  before=$(machine_busy_ticks)
  /usr/bin/time -f '%e %U %S %M %x' -o "$out" "$@" >/dev/null 2>"$BENCH_DIR/last.err"
  after=$(machine_busy_ticks)
  echo "$(tail -1 "$out") $(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')"
}
