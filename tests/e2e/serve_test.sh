#!/usr/bin/env bash
# End-to-end test of `clusterctl serve` (issue: "The daemon") on a 3-node
# testbed: a deploy started through the API streams its events and ends with
# the command line's recap; a second deploy meanwhile is 409; the page in
# headless Chromium shows every host converged (screenshot kept); chronyd
# stopped on node02 shows as drift with its reason within one verify
# interval, in the API, the metrics and `clusterctl status`; promtool passes
# /metrics and a test-local Prometheus scrapes it; an inventory edit is
# planned, not deployed; SIGTERM stops the daemon;
# with --remediate the drift is repaired and an inventory change deployed;
# kill -9 of the daemon while a restart is owed, then a restart of the
# daemon, honours that restart exactly once. Last, the daemon under its own
# systemd unit on node01, as the unprivileged user clusterctl: READY, no
# capability, SSH out works, a bad inventory does not restart it in a loop.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
for tool in curl chromium promtool prometheus; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is missing (scripts/install-deps.sh --daemon)"; exit 77; }
done
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-serve-XXXXXX)
PORT=${E2E_SERVE_PORT:-19431}
PROM_PORT=$((PORT + 1))
METRICS_PORT=$((PORT + 2))  # the daemon's metrics listener (--metrics-listen)
ARTIFACTS=${E2E_ARTIFACTS:-/tmp/clusterctl-e2e-artifacts}
INTERVAL=15
daemon_pid="" prom_pid="" stream_pid=""
cleanup() {
  for pid in $stream_pid $prom_pid $daemon_pid; do kill -9 "$pid" 2>/dev/null; done
  tb down >/dev/null 2>&1
  [ -n "${E2E_KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/roles" "$ARTIFACTS"
cp "$(dirname "$0")"/serve/*.yaml "$WORK/roles/"
INV="$WORK/inventory.yaml"
write_inventory() {
  cat >"$INV" <<YAML
cluster: e2e-serve
connection: {key_file: $TESTBED_STATE/ssh/id_ed25519, connect_timeout: 5}
vars:
  chrony_no_clock_control: true
  probe_generation: ${1:-1}
hosts:
  node[01-03]:
    address: $TESTBED_SUBNET.[11-13]
groups:
  workers:
    hosts: node[01-03]
    roles: [slow-probe]
YAML
}

start_daemon() {  # start_daemon ARGS...: in the background; waits for /healthz
  "$CLUSTERCTL" serve "$INV" --listen "127.0.0.1:$PORT" --verify-interval "$INTERVAL" "$@" >>"$WORK/serve.log" 2>&1 &
  daemon_pid=$!
  local i
  for i in $(seq 50); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return 0
    sleep 0.2
  done
  return 1
}
api() { curl -s -H "Authorization: Bearer $TOKEN" "$@"; }  # api [curl args] URL
post() { api -o "$WORK/post.json" -w '%{http_code}' -H 'Content-Type: application/json' -d "$2" "http://127.0.0.1:$PORT$1"; }
post_when_idle() {  # like post, but waits out a drift check the daemon runs meanwhile (409)
  local code i
  for i in $(seq 90); do
    code=$(post "$@")
    [ "$code" != 409 ] && break
    sleep 1
  done
  echo "$code"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
status_doc() { api "http://127.0.0.1:$PORT/api/v1/status" >"$WORK/status.json"; }
health() { status_doc; json "$WORK/status.json" "next(h['health'] for h in d['hosts'] if h['name'] == '$1')"; }
health_is() { [ "$(health "$1")" = "$2" ]; }
idle() { api "http://127.0.0.1:$PORT/api/v1/jobs" | grep -q '"running":null'; }
wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local until=$(($(date +%s) + $1))
  shift
  while [ "$(date +%s)" -lt "$until" ]; do "$@" && return 0; sleep 1; done
  return 1
}
stream_job() {  # stream_job JOB FILE: follows the job's events in the background
  api -N "http://127.0.0.1:$PORT/api/v1/events?job=$1" >"$2" &
  stream_pid=$!
}
job_finished() { grep -q '"event":"job_finished"' "$1"; }
recap_of() { grep '"event":"recap"' "$1" | tail -1 | python3 -c 'import json,sys; r=json.loads(sys.stdin.read().split("data: ",1)[-1]); r.pop("elapsed_ms"); print(json.dumps(r, sort_keys=True))'; }
starts() { tb ssh "$1" 'cat /var/lib/clusterctl-slow-probe.starts 2>/dev/null | wc -l'; }
open_intents() { sqlite3 "$WORK/.clusterctl/state.db" 'SELECT COUNT(*) FROM intents WHERE done_at IS NULL'; }

tb down >/dev/null 2>&1
tb up 3 >/dev/null 2>&1 || { echo "testbed up failed"; exit 1; }
write_inventory 1
TOKEN=$("$CLUSTERCTL" serve "$INV" --print-token 2>/dev/null)
check "--print-token prints a 43-character token" test ${#TOKEN} -eq 43
check "the token file is 0600" test "$(stat -c %a "$WORK/.clusterctl/secrets/daemon_token")" = 600
METRICS_TOKEN=$("$CLUSTERCTL" serve "$INV" --print-token --scope metrics 2>/dev/null)
READ_TOKEN=$("$CLUSTERCTL" serve "$INV" --print-token --scope read 2>/dev/null)
check "each scope has its own 43-character token, 0600 (issue 47, item 4)" \
  bash -c "test ${#METRICS_TOKEN} -eq 43 && test ${#READ_TOKEN} -eq 43 && test '$METRICS_TOKEN' != '$TOKEN' && test '$READ_TOKEN' != '$TOKEN' && \
           test \"\$(stat -c %a '$WORK/.clusterctl/secrets/daemon_metrics_token' '$WORK/.clusterctl/secrets/daemon_read_token' | sort -u)\" = 600"
check "a non-loopback --listen without --insecure-listen is refused (exit 2)" \
  bash -c "'$CLUSTERCTL' serve '$INV' --listen 0.0.0.0:$PORT >/dev/null 2>&1; test \$? -eq 2"
start_daemon --metrics-listen "127.0.0.1:$METRICS_PORT"
check "the daemon answers /healthz" test $? -eq 0
as_token() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "${@:2}"; }  # as_token TOKEN [curl args] URL
check "the metrics token cannot deploy (403)" \
  test "$(as_token "$METRICS_TOKEN" -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$PORT/api/v1/deploy")" = 403
check "the metrics token cannot read the API (403)" test "$(as_token "$METRICS_TOKEN" "http://127.0.0.1:$PORT/api/v1/status")" = 403
check "the read token reads the API but cannot stop (403)" \
  bash -c "test \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $READ_TOKEN' http://127.0.0.1:$PORT/api/v1/status)\" = 200 && \
           test \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $READ_TOKEN' -H 'Content-Type: application/json' -d '{}' http://127.0.0.1:$PORT/api/v1/stop)\" = 403"
check "the metrics listener refuses the admin token (403) and serves nothing but /metrics" \
  bash -c "test \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $TOKEN' http://127.0.0.1:$METRICS_PORT/metrics)\" = 403 && \
           test \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $METRICS_TOKEN' http://127.0.0.1:$METRICS_PORT/api/v1/status)\" = 404"

# 1. A deploy through the API: events streamed, 409 meanwhile, the CLI's recap.
code=$(post /api/v1/deploy '{}')
check "POST /api/v1/deploy is 202 ($code)" test "$code" = 202
job=$(json "$WORK/post.json" "d['job']")
stream_job "$job" "$WORK/deploy.events"
code=$(post /api/v1/deploy '{}')
check "a second deploy while one runs is 409 ($code)" test "$code" = 409
check "the 409 names the running job" grep -q "a deploy runs (job $job" "$WORK/post.json"
"$CLUSTERCTL" deploy "$INV" >"$WORK/cli-busy.txt" 2>&1
check "a deploy from a shell meanwhile exits 3 and names the daemon" \
  bash -c "test $? -eq 3 && grep -q 'clusterctl serve' '$WORK/cli-busy.txt'"
wait_for 600 job_finished "$WORK/deploy.events"
check "the API deploy's event stream ends with job_finished" job_finished "$WORK/deploy.events"
check "the stream carried step and host_finished events" \
  bash -c "grep -q '\"event\":\"step\"' '$WORK/deploy.events' && test \$(grep -c '\"event\":\"host_finished\"' '$WORK/deploy.events') = 3"
api_recap=$(recap_of "$WORK/deploy.events")
check "the API deploy converged every host ($api_recap)" \
  bash -c "echo '$api_recap' | grep -q '\"failed\": 0' && echo '$api_recap' | grep -q '\"ok\": \"node\[01-03\]\"'"
for i in $(seq 90); do  # a drift check of the daemon may hold the state for a moment
  "$CLUSTERCTL" deploy --json "$INV" >"$WORK/cli.json" 2>"$WORK/cli.err"
  rc=$?
  [ $rc -ne 3 ] && break
  sleep 1
done
check "a deploy from a shell runs once the daemon's job ended (exit $rc)" test $rc -eq 0
code=$(post_when_idle /api/v1/deploy '{}')
job=$(json "$WORK/post.json" "d['job']")
stream_job "$job" "$WORK/noop.events"
wait_for 120 job_finished "$WORK/noop.events"
check "an API deploy ends with the same recap as the command line's" test "$(recap_of "$WORK/noop.events")" = "$(recap_of "$WORK/cli.json")"

# 2. The status API and the page in a real browser.
for n in node01 node02 node03; do check "$n is converged in the API" test "$(health $n)" = converged; done
URL="http://127.0.0.1:$PORT/#token=$TOKEN"
chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=6000 --dump-dom "$URL" >"$WORK/page.html" 2>/dev/null
chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=6000 --window-size=1400,1100 \
  --screenshot="$ARTIFACTS/serve-page.png" "$URL" >/dev/null 2>&1
echo "# screenshot: $ARTIFACTS/serve-page.png"
check "the page lists every host" bash -c "for n in node01 node02 node03; do grep -q \">\$n<\" '$WORK/page.html' || exit 1; done"
converged=$(grep -o 'class="pill converged">converged<' "$WORK/page.html" | wc -l)
check "the page shows 3 hosts converged ($converged)" test "$converged" -eq 3
check "the page shows the group collapsed: node[01-03]" grep -q 'node\[01-03\] (3)' "$WORK/page.html"
check "the page shows the recent runs" grep -q '>deploy<' "$WORK/page.html"
# This testbed runs no Slurm (slurm_test.sh checks the daemon's reading of a real one).
check "status.slurm: no Slurm controller in this inventory" test "$(json "$WORK/status.json" "d['slurm']['configured']")" = False
check "the page's Slurm section says so" grep -q 'no Slurm controller in the inventory' "$WORK/page.html"
check "the screenshot was taken" test -s "$ARTIFACTS/serve-page.png"

# 3. Drift: chronyd stopped on node02.
tb ssh node02 systemctl stop chrony
stopped_at=$(date +%s)
wait_for $((INTERVAL + 30)) health_is node02 drifted
took=$(seconds_since "$stopped_at")
check "node02 shows as drifted within one verify interval plus the check ($took s)" test "$(health node02)" = drifted
why=$(json "$WORK/status.json" "' '.join(' '.join(s['why']) for h in d['hosts'] if h['name'] == 'node02' for s in h['drift']['steps'])")
check "the drift says why: chrony is not running ($why)" bash -c "echo '$why' | grep -q 'not running'"
check "node01 and node03 stay converged" bash -c "test \"$(health node01) $(health node03)\" = 'converged converged'"
check "clusterctl status shows the drift" bash -c "'$CLUSTERCTL' status '$INV' | grep node02 | grep -q 'drift detected'"
api "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt"
check "metrics: node02 drifted" grep -q '^clusterctl_host_health{host="node02",health="drifted"} 1$' "$WORK/metrics.txt"
promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool.txt" 2>&1
check "promtool check metrics passes" test $? -eq 0 || cat "$WORK/promtool.txt"

# 4. A test-local Prometheus scrapes the metrics listener with the metrics token.
printf '%s' "$METRICS_TOKEN" >"$WORK/token" && chmod 600 "$WORK/token"
cat >"$WORK/prometheus.yml" <<YAML
global: {scrape_interval: 2s}
scrape_configs:
  - job_name: clusterctl
    metrics_path: /metrics
    authorization: {credentials_file: $WORK/token}
    static_configs: [{targets: ['127.0.0.1:$METRICS_PORT']}]
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
prom_pid=$!
scraped() { curl -s "http://127.0.0.1:$PROM_PORT/api/v1/query?query=clusterctl_host_health%7Bhost%3D%22node02%22%2Chealth%3D%22drifted%22%7D" | grep -q '"value":\[[0-9.]*,"1"\]'; }
wait_for 60 scraped
check "Prometheus scraped the daemon: node02 drifted" scraped
kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null; prom_pid=""

# 4b. An inventory edit is planned, not deployed (without --remediate).
# planned AFTER N: the daemon's plan is newer than AFTER (ms) and N probe steps would change.
planned() {
  api "http://127.0.0.1:$PORT/api/v1/plan" >"$WORK/plan.json"
  [ "$(json "$WORK/plan.json" "(sum(1 for h in d['plan']['hosts'].values() for s in h['steps'] if s['step'].startswith('slow-probe/')) if d['plan']['at'] > $1 else -1) if d['plan'] else -1")" = "$2" ]
}
edited_at=$(($(date +%s%3N) - 1))
write_inventory 7
wait_for 60 planned "$edited_at" 6  # the probe's config and its owed restart, on 3 hosts
check "an inventory edit shows its plan: the probe's config and restart on 3 hosts" planned "$edited_at" 6
check "the plan says why" grep -q 'slow-probe/config' "$WORK/plan.json"
check "the edit was not deployed" tb ssh node02 "grep -q 'generation 1' /etc/clusterctl-slow-probe.conf"
edited_at=$(json "$WORK/plan.json" "(d['plan'] or {}).get('at', 0)")
write_inventory 1
wait_for 60 planned "$edited_at" 0
check "the edit undone: the next plan has nothing for the probe" planned "$edited_at" 0

# 5. SIGTERM, then --remediate repairs the drift and deploys an inventory change.
kill -TERM "$daemon_pid"
wait_for 40 bash -c "! kill -0 $daemon_pid 2>/dev/null"
wait "$daemon_pid"
check "SIGTERM stops the daemon (exit $?)" bash -c "! kill -0 $daemon_pid 2>/dev/null && grep -q 'clusterctl serve: stopped' '$WORK/serve.log'"
start_daemon --remediate
chrony_back() { tb ssh node02 systemctl is-active chrony >/dev/null 2>&1; }
wait_for $((INTERVAL + 90)) chrony_back
check "--remediate started chrony again on node02" chrony_back
wait_for 60 health_is node02 converged
check "node02 is converged again" test "$(health node02)" = converged
check "the remediation is logged" grep -q 'from remediate' "$WORK/serve.log"

# 6. kill -9 of the daemon with a restart owed; the restarted daemon honours it once.
before2=$(starts node02) before3=$(starts node03)
write_inventory 2  # the daemon (with --remediate) deploys the change: each probe owes a restart
wait_for 60 grep -q 'deploy started (from inventory' "$WORK/serve.log"
job=$(grep -o 'job [0-9]*: deploy started (from inventory' "$WORK/serve.log" | tail -1 | awk '{print $2}' | tr -d :)
stream_job "$job" "$WORK/killed.events"
wait_for 120 grep -q '"event":"intent_opened"' "$WORK/killed.events"
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=""
kill "$stream_pid" 2>/dev/null; stream_pid=""
owed=$(open_intents)
check "the killed deploy left open intents ($owed)" test "$owed" -gt 0
start_daemon
check "the restarted daemon finds the open intents" wait_for 10 grep -q 'open intents on' "$WORK/serve.log"
resumed() { grep -q 'from resume' "$WORK/serve.log" && idle && [ "$(open_intents)" = 0 ]; }
wait_for 180 resumed
check "the resume closed every intent" test "$(open_intents)" = 0
check "each probe restarted exactly once for the change (node02 $before2 -> $(starts node02), node03 $before3 -> $(starts node03))" \
  test "$(starts node02) $(starts node03)" = "$((before2 + 1)) $((before3 + 1))"
check "the token never reached the daemon's log" bash -c "! grep -qF '$TOKEN' '$WORK/serve.log'"
kill -TERM "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=""

# 7. The Debian package on node01, and the daemon under its unit as the
# user clusterctl (node02 and node03 its cluster). The package installs with
# apt (dependencies from Debian); clusterctl, its man page and completion
# work; plan finds the built-in roles. The unit reaches READY with no
# capability, keeps its state in /var/lib/clusterctl/e2e and writes nothing
# beside the inventory, connects out over SSH (a validation passes), and a
# bad inventory stops it for good.
UNIT=clusterctl-serve@e2e
on1() { tb exec node01 "$@"; }
deb=$("$E2E_ROOT/scripts/package.sh")
check "scripts/package.sh builds the package and its debug symbols ($deb)" bash -c "ls '${deb%/*}'/clusterctl-dbgsym_*.ddeb"
on1 sh -c 'cat >/tmp/clusterctl.deb' <"$deb"
on1 sh -c 'apt-get update -q >/dev/null && apt-get install -y -q man-db curl /tmp/clusterctl.deb >/dev/null 2>&1' </dev/null
check "the package installs with apt, its dependencies from Debian" \
  test "$(on1 dpkg-query -W -f '${Status}' clusterctl 2>/dev/null)" = "install ok installed"
check "clusterctl --version runs installed" bash -c "$TESTBED exec node01 clusterctl --version | grep -q '[0-9]\.[0-9]'"
check "man clusterctl shows the page" bash -c "$TESTBED exec node01 env MANWIDTH=80 man clusterctl 2>/dev/null | grep -q 'clusterctl serve'"
check "bash completion is installed and parses" \
  bash -c "$TESTBED exec node01 bash -n /usr/share/bash-completion/completions/clusterctl && $TESTBED exec node01 grep -q '^complete -F _clusterctl clusterctl' /usr/share/bash-completion/completions/clusterctl"
check "the package created the user clusterctl" on1 id clusterctl
on1 clusterctl inventory check /usr/share/doc/clusterctl/examples/small.yaml >"$WORK/example-check.txt" 2>&1
example_rc=$?
check "the shipped example inventory checks clean against the installed roles (exit $example_rc)" \
  bash -c "test $example_rc -eq 0 && grep -q \"ok: cluster 'small'\" '$WORK/example-check.txt' && ! grep -q 'no built-in roles' '$WORK/example-check.txt'"
on1 mkdir -p /etc/clusterctl/e2e
on1 sh -c 'f=/etc/clusterctl/e2e/id_ed25519; cat >$f && chown clusterctl: $f && chmod 0600 $f' <"$TESTBED_STATE/ssh/id_ed25519"
unit_inventory() {
  printf 'cluster: e2e-unit\nconnection: {key_file: id_ed25519, connect_timeout: 5}\nvars: {chrony_no_clock_control: true}\nhosts:\n  node[02-03]:\n    address: %s.[12-13]\n' \
    "$TESTBED_SUBNET" | on1 sh -c 'cat >/etc/clusterctl/e2e/inventory.yaml'
}
unit_inventory
# chrony is converged there already: the plan changes nothing, and an
# unknown role would have been exit 2 ("unknown role 'chrony'").
on1 sh -c 'cd /tmp && clusterctl plan /etc/clusterctl/e2e/inventory.yaml --roles chrony --state /tmp/plan-state' >"$WORK/installed-plan.txt" 2>&1
plan_rc=$?
check "an installed clusterctl finds its built-in roles: plan --roles chrony exits 0 ($plan_rc) without a warning" \
  bash -c "test $plan_rc -eq 0 && grep -q 'Recap' '$WORK/installed-plan.txt' && ! grep -q 'no built-in roles' '$WORK/installed-plan.txt'"
on1 timeout 60 systemctl start "$UNIT"
check "the unit reaches READY (Type=notify)" on1 systemctl is-active -q "$UNIT"
check "its start line in the journal says where the tokens are" \
  bash -c "$TESTBED exec node01 journalctl -u $UNIT --no-pager | grep -q 'tokens.*are in /var/lib/clusterctl/e2e/secrets/: daemon_token (admin)'"
unit_pid=$(on1 systemctl show -p MainPID --value "$UNIT")
on1 cat "/proc/$unit_pid/status" >"$WORK/unit-status.txt"
uid=$(on1 id -u clusterctl)
check "it runs as the user clusterctl (uid $uid), not root" grep -qE "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" "$WORK/unit-status.txt"
check "with no capability, none to gain, none bounded" \
  bash -c "grep -q '^CapEff:\s*0000000000000000$' '$WORK/unit-status.txt' && grep -q '^CapBnd:\s*0000000000000000$' '$WORK/unit-status.txt' && grep -q '^NoNewPrivs:\s*1$' '$WORK/unit-status.txt'"
check "its state is /var/lib/clusterctl/e2e, 0700 clusterctl" test "$(on1 stat -c '%a %U' /var/lib/clusterctl/e2e)" = "700 clusterctl"
check "nothing is written beside the read-only inventory" bash -c "! $TESTBED exec node01 test -e /etc/clusterctl/e2e/.clusterctl"
exposure=$(on1 systemd-analyze security "$UNIT" 2>/dev/null | grep -o 'Overall exposure level for [^:]*: [0-9.]*' | awk '{print $NF}')
echo "# systemd-analyze security $UNIT: $exposure (8.0 before the hardening)"
check "systemd-analyze rates its exposure at most 2.0 ($exposure)" python3 -c "import sys; sys.exit(not float('${exposure:-99}') <= 2.0)"
unit_token=$(on1 cat /var/lib/clusterctl/e2e/secrets/daemon_token)
unit_api() { on1 curl -s -H "Authorization: Bearer $unit_token" "$@"; }
validate_started() {
  [ "$(unit_api -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{"checks":"reachable"}' \
        http://127.0.0.1:9420/api/v1/validate)" = 202 ]
}
unit_job_done() {
  unit_api http://127.0.0.1:9420/api/v1/jobs >"$WORK/unit-jobs.json" &&
    [ "$(json "$WORK/unit-jobs.json" "next((j['status'] for j in d['recent'] if j['kind'] == 'validate'), 'none')")" != none ] &&
    [ "$(json "$WORK/unit-jobs.json" "d['running'] is None")" = True ]
}
wait_for 60 validate_started
wait_for 90 unit_job_done
unit_validation=$(json "$WORK/unit-jobs.json" "next('%s pass=%s fail=%s' % (j['status'], j['summary']['pass'], j['summary']['fail']) for j in d['recent'] if j['kind'] == 'validate')")
check "it connects out over SSH: node02 and node03 reachable ($unit_validation)" test "$unit_validation" = "ok pass=2 fail=0"
echo 'cluster: [' | on1 sh -c 'cat >/etc/clusterctl/e2e/inventory.yaml'
on1 systemctl restart "$UNIT" 2>/dev/null
sleep 7  # past RestartSec=5: a restart loop would show by now
unit_state=$(for p in ActiveState ExecMainStatus NRestarts; do on1 systemctl show -p "$p" --value "$UNIT"; done | paste -sd' ')
check "a bad inventory stops it for good: failed, exit 2, no restart ($unit_state)" test "$unit_state" = "failed 2 0"
on1 journalctl -u "$UNIT" -p err --no-pager -o cat >"$WORK/unit-errors.txt"
check "the journal has the log's priorities: -p err shows the bad inventory, not the info lines" \
  bash -c "grep -q 'inventory.yaml' '$WORK/unit-errors.txt' && ! grep -q 'serving ' '$WORK/unit-errors.txt'"
unit_inventory
[ "$failures" -eq 0 ] || tail -40 "$WORK/serve.log"
finish
