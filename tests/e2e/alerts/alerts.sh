# Alert helpers for the end-to-end tests that watch Alertmanager (issue 38):
# tests/e2e/services_test.sh and tests/e2e/gpu_test.sh source this after
# lib.sh, with $WORK set. The monitoring host is node01 (10.213.78.11); the
# test's webhook receiver listens on this machine's bridge address
# (10.213.78.1), which node01 reaches, once the testbed is up.
#
#   add_alert_vars INVENTORY   short alert intervals and the receiver, under vars:
#   start_alert_receiver       the receiver, once; stop_alert_receiver ends it (put it in the EXIT trap)
#   received ALERTNAME NODE STATUS [SINCE]   when the receiver first got it (empty: never)
#   await_received SECONDS ALERTNAME NODE STATUS SINCE   polls; prints when, or nothing
#   firing_received SINCE      every firing alert received since SINCE: "ALERTNAME NODE" lines
#   start_alert_watch NODE...  samples Alertmanager and the nodes' exporters (watch_alertmanager.py)
#   stop_alert_watch NEEDED NODE...   ends it; one maintenance_samples.py line per node in $WORK/watch.txt
#   stop_alert_watch_quietly   ends it, if running (for the EXIT trap)

# Short intervals so alerts fire in seconds.
ALERT_FOR=6 ALERT_INTERVAL=2 ALERT_GROUP_WAIT=1
ALERTMANAGER_URL=http://10.213.78.11:9093
RECEIVER="$WORK/webhook.jsonl"
alert_receiver_pid="" alert_watch_pid=""
ALERTS_DIR="$E2E_ROOT/tests/e2e/alerts"

add_alert_vars() {
  cat >"$WORK/alert-vars" <<VARS
  prometheus_scrape_interval: ${ALERT_INTERVAL}s
  prometheus_alert_for: ${ALERT_FOR}s
  alertmanager_group_wait: ${ALERT_GROUP_WAIT}s
  alertmanager_group_interval: 2s
  alertmanager_webhooks: [{name: testbed, url: 'http://10.213.78.1:9099/alerts'}]
  slurm_exporter_cache_seconds: 1
VARS
  sed -i "/^vars:/r $WORK/alert-vars" "$1"
}
start_alert_receiver() {
  [ -n "$alert_receiver_pid" ] && return 0
  python3 "$ALERTS_DIR/webhook_receiver.py" 10.213.78.1 9099 "$RECEIVER" &
  alert_receiver_pid=$!
}
stop_alert_receiver() { [ -z "$alert_receiver_pid" ] || kill "$alert_receiver_pid" 2>/dev/null; }
received() {
  python3 -c 'import json,sys
name, node, status, since = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["received"] < since: continue
    for a in e.get("body", {}).get("alerts", []):
        l = a.get("labels", {})
        if l.get("alertname") == name and l.get("node") == node and a.get("status") == status and l.get("cluster") == "testbed":
            print(e["received"]); sys.exit(0)' "$RECEIVER" "$1" "$2" "$3" "${4:-0}" 2>/dev/null
}
await_received() {
  local i at
  for i in $(seq $((2 * $1))); do
    at=$(received "$2" "$3" "$4" "$5")
    [ -n "$at" ] && { echo "$at"; return 0; }
    sleep 0.5
  done
  return 1
}
firing_received() {
  python3 -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["received"] < float(sys.argv[2]): continue
    for a in e.get("body", {}).get("alerts", []):
        if a.get("status") == "firing": print(a["labels"].get("alertname"), a["labels"].get("node", "-"))' \
    "$RECEIVER" "$1" 2>/dev/null | sort -u
}
start_alert_watch() {
  local node urls=()
  for node in "$@"; do urls+=("$node=http://10.213.78.$((10 + 10#${node#node})):9100/metrics"); done
  python3 "$ALERTS_DIR/watch_alertmanager.py" "$ALERTMANAGER_URL" "$WORK/watch.jsonl" "${urls[@]}" &
  alert_watch_pid=$!
}
stop_alert_watch() {
  local needed=$1
  shift
  kill "$alert_watch_pid" 2>/dev/null
  alert_watch_pid=""
  python3 "$ALERTS_DIR/maintenance_samples.py" "$WORK/watch.jsonl" "$needed" "$@" >"$WORK/watch.txt"
  sed 's/^/# /' "$WORK/watch.txt"
}
stop_alert_watch_quietly() { [ -z "$alert_watch_pid" ] || kill "$alert_watch_pid" 2>/dev/null; }
