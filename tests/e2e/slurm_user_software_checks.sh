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
