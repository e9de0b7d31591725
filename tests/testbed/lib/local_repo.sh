# The testbed's local package repository (with --services): what a site's
# mirror of a vendor repository is to its nodes, for packages Debian does
# not have. It is served over HTTP on the bridge (python3's http.server,
# bound to the bridge address only; nodes reach it directly, not through
# the apt proxy) from $TESTBED_STATE/repo, a flat repository
# (`deb [trusted=yes] http://BRIDGE:8099/ ./`).
#
# It is served with --services or when the testbed has GPUs (kept until
# down). Its packages are SIMULATED: placeholders with the vendor's names,
# versions (ending in +simulated) and service units, built here by
# dpkg-deb, holding no real program (every description starts with
# SIMULATED, every package ships /usr/share/doc/PKG/SIMULATED):
#   grafana  Grafana Labs' package layout (/etc/grafana, grafana-server.service
#            running a placeholder that only logs and waits, user grafana)
#   NVIDIA's driver, fabric manager, DCGM and CUDA toolkit packages and a
#            kernel for the GPU nodes (nvidia_repo.sh)
#   NVIDIA's enroot, pyxis (a real SPANK plugin that refuses container jobs)
#            and container toolkit (container_repo.sh)

LOCAL_REPO_PORT=8099
local_repo_dir() { echo "$TESTBED_STATE/repo"; }
local_repo_url() { echo "http://$BRIDGE_ADDRESS:$LOCAL_REPO_PORT/"; }

# The packages are built once (41 dpkg-deb runs and a compile, about 13 s of
# CPU) and cached under $TESTBED_CACHE/local-repo/<key>, the key hashing the
# scripts and source that write them, the spank.h the pyxis plugin is built
# against and the architecture; each testbed gets its own copy.
build_local_repo() {
  local dir cached
  dir=$(local_repo_dir)/packages
  [ -f "$dir/Packages" ] && grep -q '^Package: nvslurm-plugin-pyxis$' "$dir/Packages" && return 0
  cached="$TESTBED_CACHE/local-repo/$(cat "$TESTBED_HOME"/lib/{local_repo,nvidia_repo,ofed_bundle,container_repo}.sh \
    "$TESTBED_HOME"/lib/spank_pyxis_simulated.c "$TESTBED_HOME"/lib/dcgm_exporter_simulated.py "$TESTBED_HOME"/lib/nvidia_smi_simulated.py /usr/include/slurm/spank.h 2>/dev/null |
    { cat; dpkg --print-architecture; } | sha256sum | cut -c1-16)"
  if [ ! -f "$cached/complete" ]; then
    mkdir -p "$TESTBED_CACHE/local-repo"
    exec 7>"$TESTBED_CACHE/local-repo/.lock"
    flock -w 300 7 || die "another testbed is building the local repository"
    if [ ! -f "$cached/complete" ]; then
      rm -rf "$cached"
      write_local_repo "$cached/packages"
      touch "$cached/complete"
    fi
    exec 7>&-
  fi
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  cp -a "$cached/packages" "$dir"
}

write_local_repo() {
  local dir=$1 arch
  mkdir -p "$dir"
  arch=$(dpkg --print-architecture)
  PLACEHOLDER_VENDOR="Grafana Labs" PLACEHOLDER_BUILDER=local_repo.sh \
    PLACEHOLDER_FOR="the testbed's local repository (a site's mirror of apt.grafana.com)" \
    write_placeholder_deb "$dir" grafana 10.4.2+simulated "$arch" adduser "the Grafana server" \
    "usr/sbin/grafana-server=#!/bin/sh
# SIMULATED grafana-server (clusterctl testbed): no Grafana here.
echo \"SIMULATED grafana-server: would serve Grafana with \$*\"
exec sleep infinity" \
    "lib/systemd/system/grafana-server.service=[Unit]
Description=SIMULATED Grafana (clusterctl testbed placeholder)
After=network-online.target
[Service]
User=grafana
Group=grafana
ExecStart=/usr/sbin/grafana-server --config=/etc/grafana/grafana.ini --homepath=/usr/share/grafana
[Install]
WantedBy=multi-user.target" \
    "etc/grafana/grafana.ini=; SIMULATED default configuration (clusterctl testbed)" \
    "DEBIAN/postinst=#!/bin/sh
set -e
getent group grafana >/dev/null || addgroup --system grafana
getent passwd grafana >/dev/null || adduser --system --ingroup grafana --home /usr/share/grafana --no-create-home grafana
mkdir -p /etc/grafana/provisioning/datasources /etc/grafana/provisioning/dashboards /var/lib/grafana
chown grafana:grafana /var/lib/grafana"
  build_nvidia_placeholders "$dir" "$arch"
  build_container_placeholders "$dir" "$arch"
  write_packages_index "$dir"
}

ensure_local_repo() {
  local dir pid
  dir=$(local_repo_dir)
  build_local_repo
  pid=$(read_pid "$dir/pid")
  if pid_alive "$pid"; then return 0; fi
  setsid python3 -m http.server "$LOCAL_REPO_PORT" --bind "$BRIDGE_ADDRESS" --directory "$dir/packages" \
    >"$dir/output.log" 2>&1 </dev/null 8>&- 9>&- &
  record_pid "$dir/pid" $!
  wait_for_listener "$BRIDGE_ADDRESS" "$LOCAL_REPO_PORT" ||
    die "the local repository's HTTP server did not start; see $dir/output.log"
}

stop_local_repo() { stop_recorded "$(local_repo_dir)/pid"; }
