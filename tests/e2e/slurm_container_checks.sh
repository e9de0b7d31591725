# Sourced by slurm_test.sh after slurm_user_software_checks.sh (functions tb,
# on01, check; $outputs holds the first plan and deploy): containers (issue
# 37). The inventory names pyxis_repository (the testbed's local repository:
# NVIDIA's enroot, pyxis and container toolkit as SIMULATED packages) and
# the site's NGC credentials; the pyxis role ran on node01 (login) and the
# compute nodes, nvidia-container-toolkit on the GPU nodes after the driver.
check "the first plan would install enroot, enroot+caps and pyxis and write the CDI spec" \
  bash -c "grep -q 'pyxis/packages' '$outputs/plan.txt' && grep -q 'nvslurm-plugin-pyxis' '$outputs/plan.txt' &&
    grep -q 'nvidia-container-toolkit/cdi spec' '$outputs/plan.txt'"
help=$(on01 "srun --help" 2>&1)
check "srun --help on node01 lists pyxis's --container-image ($(grep -o -- '--container-image=[^ ]*' <<<"$help"))" \
  grep -q -- '--container-image=\[USER@\]\[REGISTRY#\]IMAGE' <<<"$help"
check "... and --container-mounts, --container-workdir, --container-name" \
  bash -c "grep -q -- --container-mounts= <<<\"\$0\" && grep -q -- --container-workdir= <<<\"\$0\" && grep -q -- --container-name= <<<\"\$0\"" "$help"
start=$(date +%s%N)
refused=$(on01 "cd /tmp && timeout 60 runuser -u alice -- srun -N1 --container-image='nvcr.io#nvidia/pytorch:24.05-py3' hostname" 2>&1)
rc=$?
echo "# refused container step: $(( ($(date +%s%N) - start) / 1000000 )) ms"
check "a step with --container-image fails saying pyxis is SIMULATED, and nothing ran (exit $rc: $(head -c 300 <<<"$refused"))" \
  bash -c "[ $rc -ne 0 ] && grep -q 'SIMULATED: pyxis is not available on this testbed (--container-image given)' <<<\"\$0\" &&
    ! grep -qx 'node0[0-9]' <<<\"\$0\"" "$refused"
batch=$(on01 "cd /tmp && runuser -u alice -- sbatch --container-mounts=/tmp:/tmp --wrap hostname" 2>&1)
rc=$?
check "so does sbatch with a pyxis option (exit $rc: $(head -c 200 <<<"$batch"))" \
  bash -c "[ $rc -ne 0 ] && grep -q 'SIMULATED: pyxis is not available on this testbed (--container-mounts given)' <<<\"\$0\"" "$batch"
check "a plain step still runs" test "$(on01 "cd /tmp && runuser -u alice -- srun -N1 -w node02 hostname")" = node02
imported=$(tb ssh node02 "runuser -u alice -- enroot import 'docker://nvcr.io#nvidia/cuda:12.4.1-base-ubuntu22.04'" 2>&1)
check "enroot on node02 is SIMULATED and refuses to import ($imported)" grep -q "^SIMULATED enroot" <<<"$imported"
conf=$(tb ssh node02 "grep -E '^ENROOT_(RUNTIME|CACHE|DATA|CONFIG)_PATH ' /etc/enroot/enroot.conf" | paste -sd';')
check "enroot.conf puts the runtime on tmpfs, cache and data on local scratch, the site's credentials in ENROOT_CONFIG_PATH ($conf)" \
  test "$conf" = 'ENROOT_RUNTIME_PATH /run/enroot/user-$(id -u);ENROOT_CACHE_PATH /var/lib/enroot/cache/user-$(id -u);ENROOT_DATA_PATH /var/lib/enroot/data/user-$(id -u);ENROOT_CONFIG_PATH /etc/enroot/config'
check "only root writes enroot's runtime, cache and data parents" \
  test "$(tb ssh node02 "stat -c '%a %U' /run/enroot /var/lib/enroot/cache /var/lib/enroot/data" | paste -sd,)" = "755 root,755 root,755 root"
# alice ran jobs on node02: the prolog made her three directories, hers and
# 0700; bob cannot make carol's first.
mine=$(tb ssh node02 "stat -c '%U %a' /run/enroot/user-2001 /var/lib/enroot/cache/user-2001 /var/lib/enroot/data/user-2001" | paste -sd,)
check "alice's enroot directories were made for her by the prolog ($mine)" test "$mine" = "alice 700,alice 700,alice 700"
claimed=$(tb ssh node02 "rm -rf /var/lib/enroot/data/user-5001 /var/lib/enroot/cache/user-5001; runuser -u bob -- mkdir /var/lib/enroot/data/user-5001 /var/lib/enroot/cache/user-5001 2>&1; ls /var/lib/enroot/data")
check "bob cannot make carol's enroot directories first ($(paste -sd' ' <<<"$claimed" | cut -c1-200))" \
  bash -c "[ \$(grep -c 'Permission denied' <<<\"\$0\") = 2 ] && ! grep -qx user-5001 <<<\"\$0\"" "$claimed"
credentials=$(tb ssh node02 "stat -c '%a %U:%G' /etc/enroot/config/.credentials; sha256sum </etc/enroot/config/.credentials" | paste -sd' ')
check "the NGC credentials are the inventory's file, 0640 root:root ($(cut -c1-30 <<<"$credentials"))" \
  test "$credentials" = "640 root:root $(sha256sum <"$TESTBED_STATE/ngc.netrc")"
check "Slurm reads pyxis through Debian's plugstack.conf.d" \
  tb ssh node02 "grep -qx 'include /etc/slurm/plugstack.conf.d/\*.conf' /etc/slurm/plugstack.conf && test \"\$(readlink /etc/slurm/plugstack.conf.d/pyxis.conf)\" = /usr/share/pyxis/pyxis.conf"
cdi=$(tb ssh node02 "head -n 1 /etc/cdi/nvidia.yaml; grep -c 'path: /dev/nvidia[01]$' /etc/cdi/nvidia.yaml")
check "node02's CDI spec is nvidia-ctk's, labelled SIMULATED, naming both simulated GPUs ($(paste -sd' ' <<<"$cdi" | cut -c1-60))" \
  bash -c "grep -q '^# SIMULATED CDI spec' <<<\"\$0\" && [ \"\$(tail -n 1 <<<\"\$0\")\" = 2 ]" "$cdi"
check "node01 (no GPU) has no Container Toolkit" bash -c "! $TESTBED ssh node01 test -e /usr/bin/nvidia-ctk"
# A driver change: the spec was written for another driver than the loaded
# one (the stamp says so), so the next deploy generates it again, and only it.
tb ssh node03 "echo 550.54.15 >/var/lib/clusterctl/nvidia-cdi.driver"
"$CLUSTERCTL" deploy --verify --json "$inventory" --roles nvidia-container-toolkit --limit node03 >"$outputs/cdi-again.json" 2>&1
check "a CDI spec written for another driver is generated again ($(changed_steps "$outputs/cdi-again.json" node03))" \
  test "$(changed_steps "$outputs/cdi-again.json" node03)" = "nvidia-container-toolkit/cdi spec"
check "... for the loaded driver ($(tb ssh node03 cat /sys/module/nvidia/version))" \
  test "$(tb ssh node03 cat /var/lib/clusterctl/nvidia-cdi.driver)" = "$(tb ssh node03 cat /sys/module/nvidia/version)"
