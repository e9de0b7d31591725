# Sourced by services_test.sh before its kernel-server part (functions tb, check, deploy,
# take_inventory, result_of, changed_steps; $WORK, $CLUSTERCTL,
# $tb_inventory): the site's own storage (issue 38).
#  - node05 (testbed up --outside: not in the inventory, /export on the
#    machine's ext4 like node01's) stands in for a site's NAS: nfs-ganesha
#    configured here by hand, since clusterctl does not manage it, exporting
#    two directories on its management address.
#  - The compute nodes mount both (nfs_external_mounts: two mounts of one
#    server, typed options, fsc). Their fstab entries carry the requested
#    options; cachefilesd is configured and not started (facts
#    nfs.kernel_cachefiles: this kernel has no cachefiles, as it has no NFS
#    client).
#  - validate's nfs.export round-trips through both exports (libnfs over
#    the network, each file read back on another client); nfs.mounts fails
#    saying why, as for the cluster's own.
#  - The second deploy changes nothing.

nas_started=$(date +%s)
nas_address=$TESTBED_SUBNET.15
tb up 5 --outside >/dev/null 2>&1 || { echo "testbed up 5 --outside failed"; exit 1; }
check "node05 (outside) is not in the testbed's inventory" sh -c "! grep -q 'node05\|node\[0[0-9]-05\]' '$tb_inventory'"
echo "# outside NAS booted: $(seconds_since "$nas_started")s"

# The NAS's own configuration, as its admin would write it: v3 and v4, the
# cluster's management network as clients, root squashed to nobody, and
# the .clusterctl-validate directories validate's round trips write into.
nas_conf="NFS_CORE_PARAM { Protocols = 3, 4; Bind_addr = $nas_address; Enable_NLM = false; Enable_RQUOTA = false; }
NFSV4 { Grace_Period = 15; Only_Numeric_Owners = true; }
EXPORT_DEFAULTS { Access_Type = None; }"
for export_id in 1 2; do
  nas_dir=/export/$([ $export_id -eq 1 ] && echo projects || echo scratch)
  nas_conf+="
EXPORT { Export_Id = $export_id; Path = \"$nas_dir\"; Pseudo = \"$nas_dir\"; Protocols = 3, 4; Transports = TCP;
  Squash = root_squash; Anonymous_Uid = 65534; Anonymous_Gid = 65534; SecType = sys; FSAL { Name = VFS; }
  CLIENT { Clients = $TESTBED_SUBNET.0/24; Access_Type = RW; } }"
done
tb exec node05 sh -c 'export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null && apt-get install -y -q nfs-ganesha nfs-ganesha-vfs >/dev/null &&
  for d in /export/projects /export/scratch; do
    mkdir -p "$d/.clusterctl-validate" && chown nobody:nogroup "$d/.clusterctl-validate"
  done &&
  printf "%s\n" "$1" >/etc/ganesha/ganesha.conf && systemctl restart nfs-ganesha' sh "$nas_conf"
check "node05: the NAS's ganesha runs" tb exec node05 systemctl is-active -q nfs-ganesha
echo "# outside NAS set up: $(seconds_since "$nas_started")s"

# The clients' mounts of it (cluster-wide vars: only nfs_clients mount).
take_inventory "$tb_inventory" ""
cat >"$WORK/external.yaml" <<YAML
  nfs_external_mounts:
    - {server: $nas_address, export: /export/projects, path: /projects, fsc: true,
       options: [hard, nconnect=4, rsize=1048576, wsize=1048576, vers=3]}
    - {server: $nas_address, export: /export/scratch, path: /scratch, options: [soft, timeo=100, retrans=3, noatime]}
YAML
sed -i "/^vars:/r $WORK/external.yaml" "$WORK/inventory.yaml"

deploy outside
rc=$?
check "the deploy adding the NAS's mounts exits 0" test $rc -eq 0 || { tail -20 "$WORK/outside.err"; grep -i failed "$WORK/outside.json" | tail -5; }
for n in node02 node03 node04; do
  check "$n: /projects from the NAS in fstab with the requested options and fsc" \
    tb exec "$n" grep -qx "$nas_address:/export/projects /projects nfs hard,nconnect=4,rsize=1048576,wsize=1048576,vers=3,_netdev,fsc 0 0" /etc/fstab
  check "$n: /scratch from the same NAS" \
    tb exec "$n" grep -qx "$nas_address:/export/scratch /scratch nfs soft,timeo=100,retrans=3,noatime,_netdev 0 0" /etc/fstab
  check "$n: the cluster's /home entry unchanged" \
    tb exec "$n" grep -q "^10.213.178.11:/export/home /home nfs vers=4.2,hard,_netdev 0 0$" /etc/fstab
done
check "node02: cachefilesd configured (RUN=yes, its cache directory)" \
  sh -c "$TESTBED exec node02 grep -qx 'RUN=yes' /etc/default/cachefilesd && $TESTBED exec node02 grep -qx 'dir /var/cache/fscache' /etc/cachefilesd.conf"
# (Debian's postinst leaves the unit "active (exited)" without a daemon while RUN is unset.)
check "node02: no cachefilesd daemon runs (no cachefiles in this kernel)" \
  sh -c "! $TESTBED exec node02 pgrep -x cachefilesd >/dev/null"
check "node01 exports only the cluster's own" \
  sh -c "! $TESTBED exec node01 grep -q projects /etc/ganesha/clusterctl-exports.conf"

"$CLUSTERCTL" validate "$WORK/inventory.yaml" --json --checks nfs.export,nfs.mounts >"$WORK/validate-outside.json" 2>/dev/null
for n in node02 node03 node04; do
  export_result=$(result_of "$WORK/validate-outside.json" nfs.export "$n")
  check "$n: nfs.export passes through the NAS's exports and the cluster's ($export_result)" \
    sh -c "echo '$export_result' | grep -q '^pass .*$nas_address:/export/projects (read back on node0[2-4]).*$nas_address:/export/scratch (read back on node0[2-4])'"
  check "$n: nfs.mounts fails, saying the kernel has no NFS client" \
    sh -c "result=\$(python3 -c 'import json,sys
print([r[\"result\"]+\" \"+r[\"detail\"] for r in json.load(open(sys.argv[1]))[\"results\"] if r[\"check\"]==\"nfs.mounts\" and r[\"subject\"]==sys.argv[2]][0])' '$WORK/validate-outside.json' $n); echo \"\$result\" | grep -q '^fail .*kernel has no NFS client'"
done
check "node05: the round-trip files are on the NAS's disk" \
  sh -c "test \$($TESTBED exec node05 sh -c 'ls /export/projects/.clusterctl-validate | wc -l') -ge 3"

deploy outside-again
check "the second deploy with the NAS exits 0" test $? -eq 0
for n in node01 node02 node03 node04; do
  check "$n: the second deploy changes nothing ($(changed_steps "$WORK/outside-again.json" "$n"))" \
    test -z "$(changed_steps "$WORK/outside-again.json" "$n")"
done
echo "# outside storage, in all: $(seconds_since "$nas_started")s"
