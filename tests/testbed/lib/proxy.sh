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
  wait_for_listener "$BRIDGE_ADDRESS" "$PROXY_PORT" || die "apt-cacher-ng did not start; see $dir/output.log"
}

stop_proxy() { stop_recorded "$(proxy_dir)/pid"; }

proxy_url() { echo "http://$BRIDGE_ADDRESS:$PROXY_PORT"; }
