# apt-cacher-ng on the bridge: nodes install real Debian packages through it,
# and its cache in $TESTBED_CACHE survives `down`, so later runs are fast.

proxy_dir() { echo "$TESTBED_STATE/proxy"; }

ensure_proxy() {
  local dir pid
  dir=$(proxy_dir)
  mkdir -p "$dir" "$TESTBED_CACHE/apt-cacher-ng"
  pid=$(read_pid "$dir/pid")
  if pid_alive "$pid"; then return 0; fi
  command -v apt-cacher-ng >/dev/null || die "apt-cacher-ng is not installed (scripts/install-deps.sh --testbed)"
  setsid apt-cacher-ng ForeGround=1 Port=$PROXY_PORT BindAddress="$BRIDGE_ADDRESS" \
    CacheDir="$TESTBED_CACHE/apt-cacher-ng" LogDir="$dir" PidFile="$dir/acng.pid" \
    ExThreshold=365 >"$dir/output.log" 2>&1 </dev/null 8>&- 9>&- &
  record_pid "$dir/pid" $!
  local i
  for i in $(seq 50); do
    if (exec 3<>"/dev/tcp/$BRIDGE_ADDRESS/$PROXY_PORT") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "apt-cacher-ng did not start; see $dir/output.log"
}

stop_proxy() {
  local dir pid
  dir=$(proxy_dir)
  pid=$(read_pid "$dir/pid")
  if pid_alive "$pid"; then
    kill "$pid"
    local i
    for i in $(seq 50); do pid_alive "$pid" || break; sleep 0.1; done
    pid_alive "$pid" && kill -9 "$pid"
  fi
  rm -f "$dir/pid"
}

proxy_url() { echo "http://$BRIDGE_ADDRESS:$PROXY_PORT"; }
