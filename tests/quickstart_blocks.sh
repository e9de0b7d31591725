#!/usr/bin/env bash
# quickstart_blocks.sh KIND: the bash blocks of docs/quickstart.md marked
# `<!-- quickstart: KIND -->` (controller, scratch or node), in order, each
# headed by a line "# --- block N". The tests run them as written:
# tests/e2e/validate_test.sh the controller blocks on the testbed and the
# node block on node01,
# tests/cli/cases/quickstart.sh the scratch ones (and `bash -n` the node ones).
set -euo pipefail
kind=${1:?usage: quickstart_blocks.sh controller|scratch|node}
awk -v marker="<!-- quickstart: $kind -->" '
  $0 == marker { wanted = 1; next }
  wanted && /^```bash$/ { inside = 1; wanted = 0; print "# --- block " ++n; next }
  inside && /^```$/ { inside = 0; next }
  inside { print }
  END { if (n == 0) exit 1 }
' "$(dirname "$0")/../docs/quickstart.md"
