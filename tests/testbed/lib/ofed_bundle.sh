# ofed-bundle: a SIMULATED MLNX_OFED bundle in NVIDIA's layout, for the rdma
# role's bundle path (copy, unpack, node-local repository, openibd).
#
#   MLNX_OFED_LINUX-<version>-<distro>-<arch>.tgz
#     MLNX_OFED_LINUX-<version>-<distro>-<arch>/
#       distro  .arch  .mlnx  .supported_kernels  SIMULATED
#       DEBS/     the packages and their Packages index (apt: deb file:.../DEBS ./)
#       src/MLNX_OFED_SRC-debian-<version>.tgz   random bytes standing for the
#                 sources, so the bundle has a real bundle's size to copy
#
# The packages carry NVIDIA's names and version schemes (mlnx-ofed-basic,
# mlnx-ofed-kernel-utils with openibd, ofed-scripts with ofed_info, and
# rdma-core, ibverbs-utils, infiniband-diags, perftest at the versions that
# supersede the distribution's), every version ending in +simulated, every
# description starting with SIMULATED, every package shipping
# /usr/share/doc/PKG/SIMULATED. Their contents are placeholders: openibd only
# logs what it would load; no library or kernel module is real.

OFED_DEFAULT_VERSION=24.10-1.1.4.0
OFED_DEFAULT_DISTRO=debian12.5

# write_placeholder_deb DIR NAME VERSION ARCH DEPENDS SUMMARY [FILE=CONTENT... | @FILE=BUILT...]
write_placeholder_deb() {
  local out=$1 name=$2 version=$3 arch=$4 depends=$5 summary=$6
  shift 6
  local work
  work=$(mktemp -d)
  mkdir -p "$work/DEBIAN" "$work/usr/share/doc/$name"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: clusterctl testbed <testbed@clusterctl.invalid>"
    [ -z "$depends" ] || echo "Depends: $depends"
    echo "Section: net"
    echo "Priority: optional"
    echo "Description: SIMULATED placeholder of ${PLACEHOLDER_VENDOR:-NVIDIA}'s $name ($summary)"
    echo " Built by the clusterctl testbed (tests/testbed/lib/${PLACEHOLDER_BUILDER:-ofed_bundle.sh}) for"
    echo " ${PLACEHOLDER_FOR:-the layout of an MLNX_OFED bundle}. It holds no real program."
  } >"$work/DEBIAN/control"
  echo "SIMULATED: placeholder of $name $version built by the clusterctl testbed." >"$work/usr/share/doc/$name/SIMULATED"
  local file
  for file in "$@"; do
    if [[ $file == @* ]]; then  # @PATH=FILE: a built file (a shared object), copied as it is
      file=${file#@}
      mkdir -p "$work/$(dirname "${file%%=*}")"
      cp "${file#*=}" "$work/${file%%=*}"
      continue
    fi
    mkdir -p "$work/$(dirname "${file%%=*}")"
    printf '%s\n' "${file#*=}" >"$work/${file%%=*}"
  done
  local program
  for program in "$work"/usr/bin/* "$work"/usr/sbin/* "$work"/usr/local/*/bin/* "$work"/DEBIAN/postinst "$work"/DEBIAN/prerm "$work"/DEBIAN/postrm; do [ ! -f "$program" ] || chmod 755 "$program"; done
  dpkg-deb --root-owner-group -Zgzip --build "$work" "$out/${name}_${version}_${arch}.deb" >/dev/null
  rm -rf "$work"
}

# A Packages index as apt reads it: each package's control fields plus where
# the file is and its size and checksums.
write_packages_index() {
  local dir=$1 deb
  : >"$dir/Packages"
  for deb in "$dir"/*.deb; do
    {
      dpkg-deb -f "$deb"
      echo "Filename: ./$(basename "$deb")"
      echo "Size: $(stat -c %s "$deb")"
      echo "MD5sum: $(md5sum <"$deb" | cut -d' ' -f1)"
      echo "SHA256: $(sha256sum <"$deb" | cut -d' ' -f1)"
      echo
    } >>"$dir/Packages"
  done
  gzip -9kf "$dir/Packages"
}

cmd_ofed_bundle() {
  local out="" version=$OFED_DEFAULT_VERSION distro=$OFED_DEFAULT_DISTRO src_mib=64
  while [ $# -gt 0 ]; do
    case "$1" in
      --version) version=${2:?--version needs a value}; shift 2 ;;
      --distro) distro=${2:?--distro needs a value}; shift 2 ;;
      --src-mib) src_mib=${2:?--src-mib needs a number}; shift 2 ;;
      -*) die "unknown option $1" ;;
      *) out=$1; shift ;;
    esac
  done
  [ -n "$out" ] && [ -d "$out" ] || die "usage: testbed ofed-bundle DIR [--version V] [--distro D] [--src-mib N] (DIR exists)"
  [[ $version =~ ^[0-9]+\.[0-9]+-[0-9.]+$ ]] || die "--version looks like 24.10-1.1.4.0"
  [[ $distro =~ ^[a-z]+[0-9][0-9.]*$ ]] || die "--distro looks like debian12.5 or ubuntu22.04"
  [[ $src_mib =~ ^[0-9]+$ ]] || die "--src-mib must be a number"
  local arch deb_arch name
  arch=$(uname -m)
  deb_arch=$(dpkg --print-architecture)
  name="MLNX_OFED_LINUX-$version-$distro-$arch"
  local work
  work=$(mktemp -d)
  local top="$work/$name"
  mkdir -p "$top/DEBS" "$top/src"
  echo "$distro" >"$top/distro"
  echo "$arch" >"$top/.arch"
  echo "$version" >"$top/.mlnx"
  uname -r >"$top/.supported_kernels"
  echo "SIMULATED: built by the clusterctl testbed; placeholder packages only." >"$top/SIMULATED"

  # NVIDIA's version schemes: 24.10-1.1.4.0 -> 24.10.OFED.24.10.1.1.4.0-1 for
  # its own packages, 2410mlnx54-1.2410114 for the rdma-core family.
  local major=${version%%-*} rest=${version#*-}
  local ofed="$major.OFED.$major.$rest-1+simulated"
  local build=${major//./}${rest%%.*}${rest//./}
  local rdma="${major//./}mlnx54-1.${build:0:7}+simulated"
  local perftest="$major.0-0.66.g4b9f1a1.${build:0:7}+simulated"
  local d="$top/DEBS"
  write_placeholder_deb "$d" mlnx-ofed-kernel-utils "$ofed" "$deb_arch" "" "openibd and the kernel stack's utilities" \
    "lib/systemd/system/openibd.service=[Unit]
Description=openibd (SIMULATED by the clusterctl testbed: no HCA driver to load)
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/echo openibd SIMULATED: would load the HCA driver and its upper layers
ExecStop=/bin/echo openibd SIMULATED: would unload the HCA driver
[Install]
WantedBy=multi-user.target" \
    "etc/infiniband/openib.conf=# SIMULATED openib.conf (clusterctl testbed)
ONBOOT=yes"
  write_placeholder_deb "$d" mlnx-ofed-kernel-modules "$ofed" "$deb_arch" "mlnx-ofed-kernel-utils (= $ofed)" \
    "kernel modules prebuilt for $(uname -r)" "lib/modules/$(uname -r)/updates/SIMULATED-mlnx-ofed-kernel=no modules: simulated"
  write_placeholder_deb "$d" ofed-scripts "$ofed" "$deb_arch" "" "ofed_info" \
    "usr/bin/ofed_info=#!/bin/sh
echo 'MLNX_OFED_LINUX-$version (SIMULATED by the clusterctl testbed):'"
  write_placeholder_deb "$d" mlnx-tools "$ofed" all "" "mlnx_qos, ibdev2netdev and friends"
  local superseded
  for superseded in rdma-core ibverbs-utils infiniband-diags; do
    write_placeholder_deb "$d" "$superseded" "$rdma" "$deb_arch" "" "NVIDIA's build superseding the distribution's"
  done
  write_placeholder_deb "$d" perftest "$perftest" "$deb_arch" "" "ib_write_bw and the other perftest tools"
  write_placeholder_deb "$d" mlnx-ofed-basic "$ofed" all \
    "mlnx-ofed-kernel-utils (= $ofed), mlnx-ofed-kernel-modules (= $ofed), ofed-scripts (= $ofed), mlnx-tools (= $ofed), rdma-core (>= $rdma), ibverbs-utils (>= $rdma), infiniband-diags (>= $rdma), perftest (>= $perftest)" \
    "the basic MLNX_OFED metapackage"
  write_packages_index "$d"
  head -c "$((src_mib * 1024 * 1024))" /dev/urandom >"$top/src/MLNX_OFED_SRC-debian-$version.tgz"
  tar -C "$work" -cf - "$name" | gzip -1 >"$out/$name.tgz.partial"
  mv "$out/$name.tgz.partial" "$out/$name.tgz"
  rm -rf "$work"
  echo "$out/$name.tgz"
}

# offline / online: stop and start the apt proxy, so the nodes reach nothing
# but the controller (their SSH) in between.
cmd_offline() {
  stop_proxy
  stop_local_repo
  log "apt proxy and local repository stopped: the nodes reach nothing but the controller"
}
cmd_online() {
  ensure_proxy
  if [ -e "$TESTBED_STATE/services" ] || [ -e "$TESTBED_STATE/gpus" ]; then ensure_local_repo; fi
  log "apt proxy running at $(proxy_url)"
}
