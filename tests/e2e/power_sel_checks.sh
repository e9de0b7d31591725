# Sourced by power_test.sh (issue 54, the SEL and sensors), after its SEL
# section left one uncorrectable ECC entry in node02's SIMULATED BMC
# ($WORK/ecc.sel: ipmitool sel add). node01 becomes the monitoring host:
# Prometheus (role monitoring) and Debian's IPMI exporter (role
# ipmi-exporter) reading the three BMCs over IPMI LAN, each BMC's password
# in the exporter's own config only. Then, with node02's SEL cleared and
# the entry injected again: validate's bmc.sel fails node02 alone (naming
# the entry) and Prometheus fires BmcSelNewEntries for node02 alone;
# clearing the SEL passes bmc.sel on every node. A wrong password in
# node03's file fails bmc.reachable on node03 alone, saying so.
#
# The SIMULATED BMCs (ipmi_sim) have no sensors, so the exporter reads them
# without its ipmi collector (sensors: the alert rules' promtool test), and
# FreeIPMI needs its opensesspriv workaround for ipmi_sim's RMCP+ session
# (tests/fixtures/captured/SOURCES.md, "prometheus-ipmi-exporter").
# Measured (2026-11-30, the machine loaded by five other builds): the
# monitoring deploy 9 s (Prometheus and the exporter installed in 8.6 s),
# the checks after it about 15 s (BmcSelNewEntries fired 2 s after the
# entry): about 25 s in all; see the "# power_sel_checks took" line.
sel_checks_start=$(date +%s)
prometheus="http://$TESTBED_SUBNET.11:9090"
# prom_nodes QUERY: "node=value" for each series of an instant query, sorted.
prom_nodes() {
  curl -sf --max-time 5 "$prometheus/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(" ".join(sorted(x["metric"].get("node", "?") + "=" + x["value"][1] for x in r)))'
}
# firing ALERTNAME: the nodes it fires for, sorted.
firing() {
  curl -sf --max-time 5 "$prometheus/api/v1/alerts" | python3 -c '
import json, sys
a = json.load(sys.stdin)["data"]["alerts"]
print(" ".join(sorted(x["labels"].get("node", "?") for x in a if x["labels"]["alertname"] == sys.argv[1] and x["state"] == "firing")))' "$1"
}
# await SECONDS EXPECTED COMMAND...: until COMMAND succeeds printing EXPECTED (what it printed last, on failure).
await() {
  local got=""
  for _ in $(seq "$1"); do
    got=$("${@:3}" 2>/dev/null) && [ "$got" = "$2" ] && return 0
    sleep 1
  done
  echo "# waited $1 s for '$2', got '$got'"
  return 1
}
# bmc_verdicts FILE: validate --json's bmc.* results, "check:host:result" sorted.
bmc_verdicts() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join(sorted(x["check"] + ":" + x["subject"] + ":" + x["result"] for x in r if x["check"].startswith("bmc."))))' "$1"
}
validate_bmc() { "$CLUSTERCTL" validate "$inventory" --checks "${2:-bmc.reachable,bmc.sel}" --json >"$WORK/$1.json" 2>"$WORK/$1.err"; }

# (monitoring_jobs: [] would fail the monitoring role: its node targets are written whatever the jobs.)
sed -i "s/^vars:\$/vars:\n  prometheus_scrape_interval: 2s\n  prometheus_alert_for: 4s\n  ipmi_exporter_collectors: [bmc, chassis, sel]\n  ipmi_exporter_workaround_flags: [opensesspriv]/" "$inventory"
printf '  monitoring:\n    hosts: node01\n' >>"$inventory"
deploy_start=$(date +%s)
"$CLUSTERCTL" deploy "$inventory" --roles monitoring,ipmi-exporter >"$WORK/deploy-monitoring.out" 2>&1
rc=$?
echo "# monitoring deploy took $(seconds_since "$deploy_start")s"
check "Prometheus and the IPMI exporter deploy on node01 (exit $rc)" test "$rc" -eq 0 || tail -30 "$WORK/deploy-monitoring.out"
config_mode=$(tb ssh node01 stat -c %a:%U /etc/prometheus/ipmi-exporter/ipmi.yml)
check "the exporter's config with the BMC passwords is root's alone (got $config_mode)" test "$config_mode" = 600:root
exporter_user=$(tb ssh node01 'ps -o user= -p "$(systemctl show -p MainPID --value prometheus-ipmi-exporter)"')
check "the exporter runs as a user of its own, not prometheus (got '$exporter_user')" \
  test -n "$exporter_user" -a "$exporter_user" != prometheus -a "$exporter_user" != root
check "Prometheus reads every BMC's SEL through the exporter" \
  await 60 "node01=1 node02=1 node03=1" prom_nodes 'ipmi_up{collector="sel"}'

# --- a critical SEL entry on node02: bmc.sel fails there alone, the alert fires -------
tb bmc node02 sel clear >/dev/null
check "Prometheus sees node02's SEL empty" await 30 "node02=0" prom_nodes 'ipmi_sel_logs_count{node="node02"}'
tb bmc node02 sel add "$WORK/ecc.sel" >/dev/null
alert_start=$(date +%s)
validate_bmc critical
rc=$?
check "bmc.sel fails node02 alone; every BMC answers (got '$(bmc_verdicts "$WORK/critical.json")')" test \
  "$(bmc_verdicts "$WORK/critical.json")" = \
  "bmc.reachable:node01:pass bmc.reachable:node02:pass bmc.reachable:node03:pass bmc.sel:node01:pass bmc.sel:node02:fail bmc.sel:node03:pass"
check "bmc.sel names the entry on node02" grep -q 'Memory #0x01 | Uncorrectable ECC | Asserted' "$WORK/critical.json"
check "validate exits 1 (got $rc)" test "$rc" -eq 1
check "Prometheus fires BmcSelNewEntries for node02 alone" await 60 node02 firing BmcSelNewEntries
echo "# BmcSelNewEntries fired $(seconds_since "$alert_start")s after the entry"

# --- cleared: bmc.sel passes ---------------------------------------------------------
tb bmc node02 sel clear >/dev/null
validate_bmc cleared bmc.sel
rc=$?
check "with node02's SEL cleared bmc.sel passes on every node, exit $rc (got '$(bmc_verdicts "$WORK/cleared.json")')" test \
  "$(bmc_verdicts "$WORK/cleared.json")" = "bmc.sel:node01:pass bmc.sel:node02:pass bmc.sel:node03:pass" -a "$rc" -eq 0
check "and BmcSelNewEntries resolves" await 30 "" firing BmcSelNewEntries

# --- a wrong password fails bmc.reachable on that host alone ------------------------
node03_pw="$TESTBED_STATE/bmc/node03.pw"
cp -p "$node03_pw" "$node03_pw.saved"
printf 'not-the-password\n' >"$node03_pw"
validate_bmc wrong bmc.reachable
mv "$node03_pw.saved" "$node03_pw"
check "a wrong password fails bmc.reachable on node03 alone (got '$(bmc_verdicts "$WORK/wrong.json")')" test \
  "$(bmc_verdicts "$WORK/wrong.json")" = "bmc.reachable:node01:pass bmc.reachable:node02:pass bmc.reachable:node03:fail"
check "saying the BMC refused the password" grep -q "refused the password of user 'admin' (from $node03_pw)" "$WORK/wrong.json"
echo "# power_sel_checks took $(seconds_since "$sel_checks_start")s"
