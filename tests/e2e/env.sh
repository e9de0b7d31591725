# The end-to-end suite's testbed: its own state directory, link-name prefix
# and subnet, apart from a developer's testbed (tests/testbed defaults).
# Sourced by lib.sh and by scripts/test.sh (which prepares its base image).
export TESTBED_STATE=${E2E_TESTBED_STATE:-/var/lib/clusterctl-testbed-e2e}
export TESTBED_PREFIX=${E2E_TESTBED_PREFIX:-cte}
export TESTBED_SUBNET=${E2E_TESTBED_SUBNET:-10.213.78}
