# clusterctl power against real BMCs: OpenIPMI's ipmi_sim (Debian's openipmi)
# on loopback, one per node, whose power state is a process it starts and
# kills (startcmd); ipmitool talks IPMI over LAN to it. Nothing is faked.
power_dir="$WORK/power"
mkdir -p "$power_dir"
power_base=$((20000 + $$ % 20000))
power_pids=()
if ! command -v ipmi_sim >/dev/null || ! command -v ipmitool >/dev/null; then
  fail "power: ipmi_sim and ipmitool are needed (scripts/install-deps.sh installs openipmi and ipmitool)"
else
  printf 'power-pw-1\n' >"$power_dir/bmc.pw"
  printf 'not-the-password\n' >"$power_dir/wrong.pw"
  chmod 600 "$power_dir/bmc.pw" "$power_dir/wrong.pw"
  for n in 1 2; do
    # The simulated node: a process that runs while it is powered on, and
    # ends (with its child) on the SIGTERM of the BMC's power off.
    printf '#!/bin/sh\ntrap '"'"'kill $child; exit 0'"'"' TERM\nsleep 100000 &\nchild=$!\nwait $child\n' \
      >"$power_dir/node0$n.power"
    chmod +x "$power_dir/node0$n.power"
    cat >"$power_dir/lan$n.conf" <<CONF
name "node0$n"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 $((power_base + n))
    priv_limit admin
    allowed_auths_admin md5 straight
    guid a123456789abcdefa123456789abcde$n
  endlan
  user 2 true "admin" "power-pw-1" admin 10 md5 straight
  startcmd "$power_dir/node0$n.power"
  startnow true
  poweroff_wait 2
  kill_wait 2
serial 15 127.0.0.1 $((power_base + 10 + n)) codec VM
CONF
    printf 'mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr\nsel_enable 0x20 1000 0x0a\nmc_enable 0x20\n' >"$power_dir/bmc.emu"
    ipmi_sim -c "$power_dir/lan$n.conf" -f "$power_dir/bmc.emu" -s "$power_dir/state$n" -n >"$power_dir/sim$n.log" 2>&1 &
    power_pids+=($!)
  done
  cat >"$power_dir/inventory.yaml" <<YAML
cluster: t
connection: {user: root, connect_timeout: 3}
bmc: {user: admin, password_file: bmc.pw, cipher_suite: 3}
hosts:
  head01: {address: 127.0.0.2, connection: {port: 1}}
  node01:
    address: 127.0.0.3
    bmc: {address: 127.0.0.1, port: $((power_base + 1))}
  node02:
    address: 127.0.0.4
    bmc: {address: 127.0.0.1, port: $((power_base + 2)), password_file: wrong.pw}
  node03: {address: 127.0.0.5}
  node04:  # a BMC that does not answer: nothing listens there
    address: 127.0.0.6
    bmc: {address: 127.0.0.1, port: $((power_base + 3))}
groups:
  controller: {hosts: head01}
  compute: {hosts: "node[01-04]"}
YAML
  inv="$power_dir/inventory.yaml"
  for _ in $(seq 50); do
    "$CLUSTERCTL" power status "$inv" node01 >/dev/null 2>&1 && break
    sleep 0.1
  done
  expect "power of a host not in the inventory is a usage error" 2 "NODES: 'node09' matches no host or group" -- \
    "$CLUSTERCTL" power status "$inv" node09
  expect "power status asks the BMC" 0 "node01: power is on" -- "$CLUSTERCTL" power status "$inv" node01
  out=$("$CLUSTERCTL" power status "$inv" 'node[01-03]' 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && grep -qx 'node01: power is on' <<<"$out" &&
    grep -qx "node02: failed: the BMC at 127.0.0.1:$((power_base + 2)) refused the password of user 'admin' (from $power_dir/wrong.pw)" <<<"$out" &&
    grep -qx 'node03: failed: has no bmc in the inventory' <<<"$out"; then
    pass "a wrong BMC password and a host without a bmc fail those hosts alone"
  else
    fail "power status of three hosts (exit $rc): $out"
  fi
  expect "power off asks Slurm first and refuses when it cannot" 1 \
    "node01: failed: cannot ask Slurm on head01 whether jobs run on node01" -- "$CLUSTERCTL" power off "$inv" node01
  expect "a refused power off leaves the node on" 0 "node01: power is on" -- "$CLUSTERCTL" power status "$inv" node01
  expect "power off --force powers the node off" 0 "node01: power off requested" -- \
    "$CLUSTERCTL" power off "$inv" node01 --force
  for _ in $(seq 50); do pgrep -f "$power_dir/node01.power" >/dev/null || break; sleep 0.1; done
  if pgrep -f "$power_dir/node01.power" >/dev/null; then
    fail "the BMC's power off stopped node01's process"
  else
    pass "the BMC's power off stopped node01's process"
  fi
  expect "power status then says off" 0 "node01: power is off" -- "$CLUSTERCTL" power status "$inv" node01
  expect "power on powers it on again" 0 "node01: power on requested" -- "$CLUSTERCTL" power on "$inv" node01
  expect "and its process runs again" 0 "" -- pgrep -f "$power_dir/node01.power"
  expect "power sel --json lists an empty SEL" 0 '"sel": []' -- "$CLUSTERCTL" power sel "$inv" node01 --json
  # Command lines sampled while power runs (ipmitool retries the silent
  # BMC for seconds): ipmitool's is seen, never the password.
  "$CLUSTERCTL" power status "$inv" 'node[01-02],node04' >"$power_dir/sampled.out" 2>&1 &
  power_cli=$!
  seen_ipmitool=0 seen_password=0
  while kill -0 "$power_cli" 2>/dev/null; do
    lines=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ')
    grep -q "ipmitoo[l]" <<<"$lines" && seen_ipmitool=1
    grep -q "power-pw-[1]" <<<"$lines" && seen_password=1
  done
  wait "$power_cli"
  if grep -qx "node04: failed: the BMC at 127.0.0.1:$((power_base + 3)) does not answer" "$power_dir/sampled.out"; then
    pass "a BMC that does not answer fails that host, saying so"
  else
    fail "the silent BMC: $(cat "$power_dir/sampled.out")"
  fi
  if [ "$seen_ipmitool" = 1 ] && [ "$seen_password" = 0 ]; then
    pass "ipmitool's command line never holds the BMC password"
  else
    fail "command lines sampled: ipmitool seen=$seen_ipmitool, password seen=$seen_password"
  fi
  chmod 644 "$power_dir/bmc.pw"
  expect "a password file others may read is refused" 1 "may be read by others (mode 0644): chmod 600 it" -- \
    "$CLUSTERCTL" power status "$inv" node01
  for pid in "${power_pids[@]}"; do  # the BMCs and the processes they power
    for child in $(pgrep -P "$pid"); do kill "$child" 2>/dev/null; done
    kill "$pid" 2>/dev/null
  done
fi
