# Sourced by slurm_test.sh after slurm_accounting_checks.sh (functions tb,
# on01, check; alice has an association): MPI across nodes (issue 37). The mpi
# role installed Debian's Open MPI and PMIx, set MpiDefault=pmix and built its
# test program (a ring and a ping-pong) on node01, the submit host; srun
# --bcast copies it to the compute nodes (no shared file system here).
program=/usr/local/lib/clusterctl/mpi-ring
check "the MPI test program is built on the submit host node01 only" \
  bash -c "$TESTBED ssh node01 test -x $program && ! $TESTBED ssh node02 test -e $program"
check "slurm.conf starts MPI programs with PMIx" tb ssh node02 grep -qx MpiDefault=pmix /etc/slurm/slurm.conf
ring=$(on01 "cd /tmp && timeout 120 runuser -u alice -- srun -N2 --ntasks-per-node=1 --mpi=pmix --bcast=/tmp/mpi-ring-alice $program" 2>&1)
check "alice's srun -N2 --mpi=pmix runs the ring on node02 and node03 ($(grep -E '^(ring|pingpong):' <<<"$ring" | paste -sd';'))" \
  grep -qx 'ring: ok ranks=2 nodes=node02,node03' <<<"$ring"
grep -q '^ring: ok' <<<"$ring" || tail -15 <<<"$ring"
"$CLUSTERCTL" validate "$inventory" --checks mpi.cluster >"$outputs/validate-mpi.txt" 2>&1
rc=$?
check "validate's mpi.cluster passes with its measured latency and bandwidth ($(grep '^mpi.cluster' "$outputs/validate-mpi.txt" | tr -s ' '))" \
  grep -qE '^mpi.cluster +pass +testbed +[0-9.]+ us, [0-9.]+ MB/s ' "$outputs/validate-mpi.txt"
[ $rc -eq 0 ] || cat "$outputs/validate-mpi.txt"
# A floor no veth reaches: the same run fails, naming the bandwidth and the variable.
"$CLUSTERCTL" validate "$inventory" --checks mpi.cluster -e validate_mpi_bandwidth_min_mbps=1000000000 \
  >"$outputs/validate-mpi-floor.txt" 2>&1
rc=$?
check "with a floor it cannot reach, mpi.cluster fails naming it (exit $rc)" \
  bash -c "[ $rc -ne 0 ] && grep -q 'mpi.cluster on testbed: ping-pong bandwidth between node02 and node03 is .* MB/s, under 1000000000 MB/s (validate_mpi_bandwidth_min_mbps)' '$outputs/validate-mpi-floor.txt'"
[ $rc -ne 0 ] || cat "$outputs/validate-mpi-floor.txt"

# Lmod (the lmod role): a module per CUDA toolkit installed (the testbed's
# SIMULATED cuda-toolkit-12-4 and -12-6: /usr/local/cuda-12.N with a
# placeholder nvcc) and for Debian's Open MPI, in a login shell.
avail() { tb ssh "$1" "bash -lc 'module -t avail 2>&1'" | grep -E '^(cuda|openmpi)/[0-9]' | sort | paste -sd' '; }
check "module avail on node02 lists both toolkits and Open MPI ($(avail node02))" \
  bash -c "[[ '$(avail node02)' =~ ^cuda/12\.4\ cuda/12\.6\ openmpi/[0-9.]+$ ]]"
check "... and on node01 (login, no GPU) Open MPI only ($(avail node01))" bash -c "[[ '$(avail node01)' =~ ^openmpi/[0-9.]+$ ]]"
loaded=$(tb ssh node02 "bash -lc 'module load cuda/12.4 && echo \$PATH && echo \$LD_LIBRARY_PATH && nvcc'" 2>&1 | paste -sd'|')
check "module load cuda/12.4 puts its bin first in PATH and lib64 in LD_LIBRARY_PATH, and runs its nvcc ($loaded)" \
  bash -c "[[ '$loaded' =~ ^/usr/local/cuda-12\.4/bin:.*\|/usr/local/cuda-12\.4/lib64.*\|SIMULATED\ nvcc\ 12\.4 ]]"
# A toolkit removed by hand loses its module at the next deploy; installed
# again, it gets it back in the same deploy that installs it.
tb ssh node03 "DEBIAN_FRONTEND=noninteractive apt-get remove -y -q cuda-toolkit-12-4" >/dev/null 2>&1
# --verify: the inventory did not change, so a plain deploy would contact no node.
"$CLUSTERCTL" deploy --verify "$inventory" --roles lmod --limit node03 >"$outputs/lmod-removed.txt" 2>&1
check "cuda-toolkit-12-4 removed on node03: the next deploy removes its module only ($(avail node03))" \
  bash -c "[[ '$(avail node03)' =~ ^cuda/12\.6\ openmpi/[0-9.]+$ ]]"
"$CLUSTERCTL" deploy --verify "$inventory" --roles cuda-toolkit,lmod --limit node03 >"$outputs/lmod-again.txt" 2>&1
check "installed again, its module is back after the same deploy ($(avail node03))" \
  bash -c "[[ '$(avail node03)' =~ ^cuda/12\.4\ cuda/12\.6\ openmpi/[0-9.]+$ ]]"

# Containers (the containers and registry roles): Slurm's own OCI support
# with crun, a local registry on node01 over TLS (the directory's CA, which
# every node trusts). An image is made on node02 from its own tree (dash,
# cat and id with their libraries, and a file with a token of this run) and
# turned into an OCI image with umoci. The registry serves pulls on
# node01:5000 to anyone and refuses pushes and deletes there; node01:5001
# takes them only with the push credential (user push, the state's
# generated registry_push_password), which reaches node02 in a 0600 auth
# file on stdin, never on a command line. node02 pushes from its own tree
# because the registry listens on node01's management address, and node01's
# own name is 127.0.1.1 there (Debian's /etc/hosts line).
# alice pulls it into a bundle on both compute nodes (clusterctl-image-bundle)
# and runs `srun -N2 --container` in it, rootless. The testbed lets the nodes
# use the kernel keyring (node.sh: nspawn refuses it, a real machine does
# not), which the runtimes need.
token=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
image_made=$(tb ssh node02 "set -e; rm -rf /tmp/e2e-image && mkdir /tmp/e2e-image && cd /tmp/e2e-image
  umoci init --layout layout && umoci new --image layout:1 && umoci unpack --image layout:1 b >/dev/null
  r=b/rootfs; mkdir -p \$r/usr/bin \$r/etc \$r/tmp && chmod 1777 \$r/tmp && ln -s usr/bin \$r/bin && ln -s usr/lib \$r/lib && ln -s usr/lib64 \$r/lib64
  for f in /usr/bin/dash /usr/bin/cat /usr/bin/id; do cp \$f \$r/usr/bin/; ldd \$f | grep -o '/[^ ]*' | xargs -I{} cp --parents -L {} \$r/usr/; done
  ln -s dash \$r/usr/bin/sh; echo '$token' >\$r/etc/clusterctl-e2e
  umoci repack --image layout:1 b && umoci config --image layout:1 --config.cmd=/bin/sh
  umoci config --image layout:1 --tag 2 --config.env=E2E_TAG=2 && echo made" 2>&1 | tail -3)
check "an image is made from node02's tree ($image_made)" test "$image_made" = made
# Tag 2 is another image (its configuration differs): a delete removes a
# manifest with every tag naming it, and tag 1 must stay.
push() {  # push LISTENER-PORT TAG [SKOPEO-OPTION...]: skopeo copy of layout:TAG to node01, its output and exit status
  tb ssh node02 "cd /tmp/e2e-image && skopeo copy --quiet ${*:3} oci:layout:$2 docker://node01:$1/e2e/base:$2 2>&1; echo rc=\$?"
}
refused=$(push 5000 1; push 5001 1)
check "without the credential a push is refused on both listeners ($(tr '\n' ' ' <<<"$refused" | cut -c1-300))" \
  bash -c "[ \$(grep -c '^rc=0$' <<<\"\$0\") = 0 ] && grep -qiE 'unsupported|not allowed|405' <<<\"\$0\" && grep -qiE 'authentication required|unauthorized|401' <<<\"\$0\"" "$refused"
check "... and nothing was stored" bash -c "! $TESTBED ssh node03 skopeo list-tags docker://node01:5000/e2e/base >/dev/null 2>&1"
auth=$(printf 'push:%s' "$(cat "$TESTBED_STATE/.clusterctl/secrets/registry_push_password")" | base64 -w0)
printf '{"auths":{"node01:5001":{"auth":"%s"}}}\n' "$auth" | tb ssh node02 "umask 077 && cat >/root/e2e-push-auth.json"
image_pushed=$(push 5001 1 --dest-authfile /root/e2e-push-auth.json; push 5001 2 --dest-authfile /root/e2e-push-auth.json)
check "with the push credential (an auth file, 0600) node02 pushes over TLS to node01:5001 ($(paste -sd' ' <<<"$image_pushed"))" \
  test "$(paste -sd' ' <<<"$image_pushed")" = "rc=0 rc=0"
tags=$(tb ssh node03 "skopeo list-tags docker://node01:5000/e2e/base | python3 -c 'import json, sys; print(sorted(json.load(sys.stdin)[\"Tags\"]))'" 2>&1)
check "node03 trusts the registry's certificate and lists the tags on the pull listener ($tags)" test "$tags" = "['1', '2']"
deleted=$(tb ssh node03 "skopeo delete docker://node01:5000/e2e/base:2 2>&1; echo rc=\$?; skopeo delete docker://node01:5001/e2e/base:2 2>&1; echo rc=\$?")
check "without the credential a delete is refused on both listeners ($(tr '\n' ' ' <<<"$deleted" | cut -c1-300))" \
  bash -c "[ \$(grep -c '^rc=0$' <<<\"\$0\") = 0 ]" "$deleted"
deleted=$(tb ssh node02 "skopeo delete --authfile /root/e2e-push-auth.json docker://node01:5001/e2e/base:2 2>&1; echo rc=\$?")
tags=$(tb ssh node03 "skopeo list-tags docker://node01:5000/e2e/base | python3 -c 'import json, sys; print(sorted(json.load(sys.stdin)[\"Tags\"]))'" 2>&1)
check "with it, the tag is deleted ($(tr '\n' ' ' <<<"$deleted") $tags)" test "$deleted-$tags" = "rc=0-['1']"
bundled=$(on01 "cd /tmp && timeout 120 runuser -u alice -- srun -N2 sh -c 'clusterctl-image-bundle e2e/base:1 /tmp/alice-e2e-bundle && echo \$(hostname) bundled'" 2>&1 | sort | paste -sd';')
check "alice unpacks it into a bundle on both compute nodes ($bundled)" test "$bundled" = "node02 bundled;node03 bundled"
inside=$(on01 "cd /tmp && timeout 60 runuser -u alice -- srun -N2 --container=/tmp/alice-e2e-bundle sh -c 'cat /etc/clusterctl-e2e; id -u'" 2>&1 | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd';')
check "srun -N2 --container runs in it on both nodes: the image's file, root in the user namespace ($inside)" \
  test "$inside" = "2 0;2 $token"
check "... and the file is the image's only (not on the nodes)" bash -c "! $TESTBED ssh node02 test -e /etc/clusterctl-e2e"
check "the runtime ran as alice, its state in her own directory (made by the prolog)" tb ssh node02 "test \"\$(stat -c '%U %a' /run/clusterctl-oci/2001)\" = 'alice 700'"
# No user can make another's state directory first: only root writes the
# parent, and the Slurm prolog makes each job user's.
claimed=$(tb ssh node02 "rm -rf /run/clusterctl-oci/5001; stat -c '%a %U' /run/clusterctl-oci; runuser -u bob -- mkdir -m 0777 /run/clusterctl-oci/5001 2>&1; echo rc=\$?; test -e /run/clusterctl-oci/5001 && echo exists")
check "bob cannot make carol's runtime state directory: the parent is root's 0755 ($(paste -sd' ' <<<"$claimed" | cut -c1-200))" \
  bash -c "[ \"\$(head -n 1 <<<\"\$0\")\" = '755 root' ] && grep -q 'Permission denied' <<<\"\$0\" && grep -qx 'rc=1' <<<\"\$0\" && ! grep -qx exists <<<\"\$0\"" "$claimed"
# The wrapper still refuses a directory that is not the user's own (root
# plants one here, as nobody else can now).
refused=$(tb ssh node02 "mkdir -m 0777 /run/clusterctl-oci/5001 && chown bob /run/clusterctl-oci/5001; runuser -u carol -- /usr/local/lib/clusterctl/oci-runtime list 2>&1; rmdir /run/clusterctl-oci/5001")
check "the runtime still refuses a state directory of another owner ($refused)" grep -q "is not a 0700 directory of user 5001's own; refusing it" <<<"$refused"
# The prolog replaces it at carol's next job on the node.
tb ssh node02 "mkdir -m 0777 /run/clusterctl-oci/5001 && chown bob /run/clusterctl-oci/5001"
on01 "cd /tmp && runuser -u carol -- srun -N1 -w node02 true" >/dev/null 2>&1
check "carol's next job on node02 gets her own directory in its place ($(tb ssh node02 "stat -c '%U %a' /run/clusterctl-oci/5001"))" \
  test "$(tb ssh node02 "stat -c '%U %a' /run/clusterctl-oci/5001")" = "carol 700"
on01 "runuser -u alice -- srun -N2 rm -rf /tmp/alice-e2e-bundle" >/dev/null 2>&1
tb ssh node02 "rm -rf /tmp/e2e-image /root/e2e-push-auth.json" >/dev/null 2>&1
