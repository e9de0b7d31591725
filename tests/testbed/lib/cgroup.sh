# Each node gets its own cgroup in every hierarchy of the machine
# (clusterctl-testbed/PREFIX-NODE). nspawn without a systemd host puts its
# "payload" cgroup below the cgroup it is started in; started from the root,
# every node's systemd would manage the same /payload/system.slice tree, and
# one node stopping a service would race (or kill) another node's service of
# the same name. The node's cgroup namespace is rooted in its own cgroup, so
# inside the node the hierarchies look like a machine of its own.

node_cgroup() { echo "clusterctl-testbed/$TESTBED_PREFIX-$1"; }

# Mount points of the cgroup hierarchies (v1 controllers and the v2 tree).
cgroup_hierarchies() {
  awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts
}

# Moves the calling shell into the node's cgroup in every hierarchy.
enter_node_cgroup() {
  local node=$1 hierarchy path part current
  for hierarchy in $(cgroup_hierarchies); do
    current=$hierarchy
    for part in $(node_cgroup "$node" | tr / ' '); do
      current="$current/$part"
      [ -d "$current" ] || mkdir "$current"
      # A new v1 cpuset cgroup starts with no CPUs and memory nodes; a task
      # cannot join it until they are copied from the parent.
      if [ -f "$current/cpuset.cpus" ] && [ -z "$(cat "$current/cpuset.cpus")" ]; then
        cat "$(dirname "$current")/cpuset.cpus" >"$current/cpuset.cpus"
        cat "$(dirname "$current")/cpuset.mems" >"$current/cpuset.mems"
      fi
    done
    path="$hierarchy/$(node_cgroup "$node")"
    echo "$BASHPID" >"$path/cgroup.procs"
  done
}

# Removes the node's cgroups, innermost first, once its processes are gone.
remove_node_cgroup() {
  local node=$1 hierarchy path
  for hierarchy in $(cgroup_hierarchies); do
    path="$hierarchy/$(node_cgroup "$node")"
    [ -d "$path" ] || continue
    find "$path" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    [ -d "$path" ] && log "$1: cgroup $path is still in use; left in place"
  done
  return 0
}
