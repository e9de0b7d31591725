# write_loopback_inventory N FILE KEY_FILE GROUP: an inventory of N hosts
# h0001.. at distinct loopback addresses 127.0.x.y (250 per /24), root with
# KEY_FILE, all in GROUP. Shared by the loopback benchmarks (fanout.sh,
# scale.sh): the addresses exist only inside the namespace they run in.
write_loopback_inventory() {
  local count=$1 file=$2 key_file=$3 group=$4 first=1 block=0
  {
    echo "version: 1"
    echo "cluster: bench"
    echo "connection: {user: root, key_file: $key_file, host_key_policy: accept-new, connect_timeout: 30}"
    echo "hosts:"
    while [ "$first" -le "$count" ]; do
      local last=$((first + 249))
      [ "$last" -gt "$count" ] && last=$count
      printf '  h[%04d-%04d]:\n    address: 127.0.%d.[1-%d]\n' "$first" "$last" "$((block + 1))" "$((last - first + 1))"
      first=$((last + 1))
      block=$((block + 1))
    done
    echo "groups:"
    echo "  $group:"
    echo "    hosts: h[0001-$(printf '%04d' "$count")]"
  } >"$file"
}
