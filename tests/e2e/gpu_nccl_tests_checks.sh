# Sourced by gpu_test.sh after its own sections (issue 37: nccl-tests for
# validate). Uses its testbed, WORK, inventory, deploy and step_error.
#   With a source bundle beside the inventory, `plan` lists the nccl-tests
#   build on a GPU node; `deploy` installs the (SIMULATED) CUDA toolkit, then
#   refuses the build there, naming what is missing: the testbed's nvcc is a
#   SIMULATED placeholder and there is no GPU. Nothing is built, and the host
#   without a GPU deploys as before.
# The bundle is the layout of an nccl-tests release (one top directory, its
# Makefile and src/) with a stand-in Makefile: it is never built here, since
# the toolkit check refuses first.
nccl_tests_checks() {
  local top="$WORK/nccl-bundle/nccl-tests-2.13.9" roles=mpi,cuda-toolkit,nccl-tests
  mkdir -p "$top/src"
  printf 'BUILDDIR ?= build\nall:\n\t$(MAKE) -C src BUILDDIR=$(abspath $(BUILDDIR))\n' >"$top/Makefile"
  printf 'all:\n\tmkdir -p $(BUILDDIR) && $(CUDA_HOME)/bin/nvcc -o $(BUILDDIR)/all_reduce_perf all_reduce.cu -lnccl -lmpi\n' >"$top/src/Makefile"
  echo '// stand-in for nccl-tests source (testbed: never compiled)' >"$top/src/all_reduce.cu"
  tar -czf "$WORK/nccl-tests-2.13.9.tar.gz" -C "$WORK/nccl-bundle" nccl-tests-2.13.9
  inventory "$V2" '  cuda_toolkit_versions: ["12-6"]
  nccl_tests_source: nccl-tests-2.13.9.tar.gz'

  "$CLUSTERCTL" plan "$WORK/inventory.yaml" --limit node01,node03 --roles "$roles" >"$WORK/nccl-plan.out" 2>&1
  # Before the bundle is on the node, plan cannot check the toolkit (it is
  # checked after the role's earlier changes): it lists what would change.
  grep -q '^  nccl-tests/build: ' "$WORK/nccl-plan.out" || cat "$WORK/nccl-plan.out"
  check "plan lists the nccl-tests bundle copy and build for node03" sh -c "
    grep -q '^  nccl-tests/bundle: ' '$WORK/nccl-plan.out' && grep -q '^  nccl-tests/build: ' '$WORK/nccl-plan.out' &&
    grep -q '^node03' '$WORK/nccl-plan.out'"
  check "... and none for node01 (no GPU)" sh -c "! awk '/^[^ ]/ { host = \$0 } /nccl-tests/ && host ~ /node01/' '$WORK/nccl-plan.out' | grep -q ."

  deploy nccl --limit node01,node03 --roles "$roles"
  local rc=$? err
  err=$(step_error "$WORK/nccl.json" node03)
  echo "# node03's nccl-tests: $err"
  check "deploy refuses the nccl-tests build on node03" test "$rc" -ne 0
  check "... at its toolkit check, naming the SIMULATED nvcc and the missing GPU" sh -c "
    echo \"\$1\" | grep -q '^nccl-tests/toolkit and GPU nccl-tests cannot be built on this node' &&
    echo \"\$1\" | grep -q 'nvcc at /usr/local/cuda-12.6/bin/nvcc is SIMULATED' &&
    echo \"\$1\" | grep -q 'no NVIDIA GPU usable: nvidia-smi -L says: SIMULATED'" sh "$err"
  check "... after the CUDA toolkit it needs was installed" tb exec node03 test -x /usr/local/cuda-12.6/bin/nvcc
  check "... with nothing built or linked" sh -c "
    $TESTBED exec node03 test ! -e /usr/local/lib/nccl-tests && $TESTBED exec node03 test ! -e /usr/local/bin/all_reduce_perf"
  # Now nothing before the check would change: plan checks it, and says why.
  "$CLUSTERCTL" plan "$WORK/inventory.yaml" --limit node03 --roles "$roles" >"$WORK/nccl-plan2.out" 2>&1
  rc=$?
  check "a plan after the refusal fails on node03 with the same reason (exit $rc)" sh -c "
    test $rc -ne 0 && grep -q 'nvcc at /usr/local/cuda-12.6/bin/nvcc is SIMULATED' '$WORK/nccl-plan2.out'" ||
    cat "$WORK/nccl-plan2.out"
  check "node01 (no GPU) deploys with no failed step" test -z "$(step_error "$WORK/nccl.json" node01)"
  check "... and finishes ok" python3 -c 'import json,sys
ok = [e for e in map(json.loads, filter(str.strip, open(sys.argv[1])))
      if e.get("event") == "host_finished" and e.get("host") == "node01" and e.get("outcome") == "ok"]
sys.exit(0 if ok else 1)' "$WORK/nccl.json"
}
