#include "controller/daemon/page.h"

namespace clusterctl {

const char* const kStatusPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const char* const kStatusPageHtml = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clusterctl</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/app.css"></head><body>
<header><h1>clusterctl <span id="cluster"></span></h1><span id="summary"></span><span id="updated" class="muted"></span></header>
<div id="banner"></div>
<div id="login">This page needs the daemon's read token
(<span class="mono">clusterctl serve INVENTORY --print-token --scope read</span>):
<input id="token" type="password" size="50"> <button id="use">Show</button></div>
<main id="main">
<section><h2>Groups</h2><table id="groups"></table></section>
<section><h2>Hosts</h2><table id="hosts"></table></section>
<section><h2>Current job</h2><div id="job" class="muted">none</div><div id="progress" class="mono"></div><div id="log" class="mono"></div></section>
<section><h2>Failed checks</h2><table id="checks"></table></section>
<section><h2>Slurm</h2><div id="slurm" class="muted">not read yet</div><div id="slurmerror" class="error"></div><table id="slurmnodes"></table></section>
<section><h2>Drift</h2><div id="drift"></div></section>
<section><h2>Plan</h2><div id="plan" class="muted">no plan yet (the daemon plans when the inventory changes)</div><table id="plansteps"></table></section>
<section><h2>Recent runs</h2><table id="runs"></table></section>
</main>
<script src="/app.js"></script></body></html>
)HTML";

const char* const kStatusPageStyle = R"CSS(body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:24px;align-items:baseline}
header h1{font-size:18px;margin:0}
main{padding:12px 20px;display:grid;gap:14px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:10px 14px}
h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:3px 8px;border-bottom:1px solid #eef0f3;vertical-align:top}
th{font-weight:600;color:#555}
.pill{display:inline-block;border-radius:10px;padding:0 8px;margin:1px 2px;font-size:12px;white-space:nowrap}
.converged,.ok,.pass{background:#d7f5dd;color:#11602a}
.drifted,.stopped,.running{background:#fff1c2;color:#7a5a00}
.failed,.fail,.unreachable{background:#ffd9d9;color:#8a1010}
.never,.gone,.removed,.skip{background:#e9ecf1;color:#444}
.muted{color:#777}.mono{font-family:ui-monospace,monospace;font-size:12px}
.error{color:#8a1010}
.health{background:#fff1c2;color:#7a5a00}
#banner{display:none;background:#ffd9d9;color:#8a1010;padding:8px 20px}
#log{max-height:220px;overflow:auto;white-space:pre-wrap}
#login,#main{display:none}
#login{padding:20px}
)CSS";

const char* const kStatusPageScript = R"JS("use strict";
// A token in the fragment (#token=...) moves to the tab's session storage and
// leaves the address bar and the history at once.
const given = new URLSearchParams(location.hash.slice(1)).get("token");
if (given) {
  sessionStorage.setItem("clusterctl-token", given);
  history.replaceState(null, "", location.pathname + location.search);
}
let token = given || sessionStorage.getItem("clusterctl-token") || "";
let streaming = 0;
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; }
function pill(word) { return el("span", word, "pill " + String(word).split(" ")[0]); }
function when(ms) { return ms ? new Date(ms).toLocaleString() : "-"; }
function row(table, cells, head) { const tr = el("tr"); for (const c of cells) { const td = el(head ? "th" : "td"); if (c instanceof Node) td.appendChild(c); else td.textContent = c === undefined || c === null ? "" : String(c); tr.appendChild(td); } table.appendChild(tr); }
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
function banner(text) { $("banner").textContent = text || ""; $("banner").style.display = text ? "block" : "none"; }
async function api(path) {
  const r = await fetch(path, { headers: { Authorization: "Bearer " + token } });
  if (r.status === 401) { showLogin(); throw new Error("unauthorized"); }
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}
function showLogin() { $("login").style.display = "block"; $("main").style.display = "none"; }
function render(s) {
  $("login").style.display = "none"; $("main").style.display = "grid";
  $("cluster").textContent = s.cluster;
  $("updated").textContent = "updated " + new Date().toLocaleTimeString();
  const sum = clear($("summary"));
  for (const [health, n] of Object.entries(s.summary)) { sum.appendChild(pill(n + " " + health)); }
  banner(s.inventory.error ? "The inventory file has problems (the last good one is in service): " + s.inventory.error
         : s.state.error ? "The state cannot be read: " + s.state.error : "");
  const groups = clear($("groups"));
  row(groups, ["group", "hosts", "health"], true);
  for (const g of s.groups) {
    const span = el("span");
    for (const [health, v] of Object.entries(g.health)) { span.appendChild(pill(health + ": " + v.hosts)); }
    row(groups, [g.name, g.hosts + " (" + g.count + ")", span]);
  }
  const hosts = clear($("hosts"));
  row(hosts, ["host", "address", "health", "since", "drift", "last validation", "facts", "detail"], true);
  for (const h of s.hosts) {
    const drift = h.drift ? (h.drift.steps.length ? h.drift.steps.map((d) => d.step + ": " + d.why.join("; ")).join("\n")
                  : (h.drift.reached ? "none (checked " + when(h.drift.checked_at) + ")" : "not checked: " + h.drift.error)) : "-";
    const v = h.validation ? h.validation.result + " (run " + h.validation.run + ", " + h.validation.pass + " pass, " + h.validation.fail + " fail)" : "-";
    const f = h.facts || {};
    const facts = [f.os, f.kernel, f.cpus ? f.cpus + " CPUs" : "", f.gpus ? f.gpus + " GPUs" : "", f.nvidia_driver ? "driver " + f.nvidia_driver + (f.nvidia_driver_simulated ? " (simulated)" : "") : ""].filter(Boolean).join(", ");
    row(hosts, [h.name, h.address, pill(h.health), when(h.since), el("span", drift, "mono"), v, facts, h.detail]);
  }
  const checks = clear($("checks"));
  row(checks, ["host", "check", "subject", "measured", "threshold", "detail", "evidence"], true);
  for (const c of s.failed_checks) row(checks, [c.host === null ? "(cluster)" : c.host, c.check, c.subject, c.measured, c.threshold, c.detail, el("span", (c.evidence || []).join("\n"), "mono")]);
  if (!s.failed_checks.length) row(checks, ["none"]);
  renderSlurm(s.slurm);
  const d = s.drift;
  $("drift").textContent = d.checks + " checks since the daemon started; last " + when(d.last_check) + ", next " + when(d.next_check) +
    " (every " + d.interval_s + " s); drifted: " + (d.drifted.length ? d.drifted.join(", ") : "none") + (s.daemon.remediate ? "; remediation on" : "");
  const plansteps = clear($("plansteps"));
  if (s.plan) {
    $("plan").textContent = "planned " + when(s.plan.at) + ": " + s.plan.changes + " steps would change" +
      (s.plan.changes ? " (deploy to apply: POST /api/v1/deploy)" : "");
    row(plansteps, ["host", "step", "why"], true);
    for (const [host, p] of Object.entries(s.plan.hosts)) {
      for (const st of p.steps) row(plansteps, [host, st.step, (st.why || []).join("; ")]);
      if (p.error) row(plansteps, [host, p.outcome, p.error]);
    }
  }
  const runs = clear($("runs"));
  row(runs, ["run", "kind", "started", "took", "status", "summary"], true);
  for (const r of s.runs) {
    const took = r.finished_at ? ((r.finished_at - r.started_at) / 1000).toFixed(1) + " s" : "-";
    row(runs, [r.id, r.kind, when(r.started_at), took, pill(r.status), el("span", r.summary ? JSON.stringify(r.summary) : "", "mono")]);
  }
  const job = s.job;
  $("job").textContent = job ? job.kind + " (job " + job.job + ", run " + job.run + ", from " + job.origin + ") since " + when(job.started_at) : "none running";
  if (job && streaming !== job.job) follow(job.job);
}
// slurmctld's drained and down nodes, as the daemon last read them; every
// value from the node is text (a reason is whatever an admin or a node wrote).
function renderSlurm(sl) {
  const nodes = clear($("slurmnodes"));
  $("slurmerror").textContent = "";
  if (!sl || !sl.configured) { $("slurm").textContent = "no Slurm controller in the inventory (no group controller)"; return; }
  const every = "; read every " + sl.interval_s + " s";
  if (!sl.read_at) {
    $("slurm").textContent = (sl.tried_at ? "never read (tried on " + sl.controller + ")" : "not read yet") + every;
  } else {
    const down = sl.unavailable_by_health + sl.unavailable_other;
    $("slurm").textContent = "read on " + sl.controller + " " + when(sl.read_at) + ": " + sl.nodes + " nodes, " + down +
      " cannot run jobs (" + sl.unavailable_by_health + " drained by the health check, " + sl.unavailable_other + " otherwise)" + every;
  }
  if (sl.error) $("slurmerror").textContent = "the last reading (" + when(sl.tried_at) + ") failed" + (sl.read_at ? "; the nodes below are from " + when(sl.read_at) : "") + ": " + sl.error;
  if (!sl.read_at) return;
  row(nodes, ["node", "state", "why", "reason", "drained by"], true);
  for (const n of sl.unavailable) row(nodes, [n.name, n.state, n.why, el("span", n.reason, "mono"), n.drained_by_health ? pill("health check") : "other"]);
  if (sl.unlisted) row(nodes, ["(" + sl.unlisted + " more not listed)"]);
  if (!sl.unavailable.length) row(nodes, ["none: every node can run jobs"]);
}
async function follow(job) {
  streaming = job;
  const log = clear($("log"));
  $("progress").textContent = "";
  const hosts = {};  // host -> { doing: its phase or step, steps: steps done }
  try {
    const r = await fetch("/api/v1/events?job=" + job, { headers: { Authorization: "Bearer " + token } });
    if (!r.ok || !r.body) return;
    const reader = r.body.getReader(); const decoder = new TextDecoder(); let buffered = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const chunk = buffered.slice(0, end); buffered = buffered.slice(end + 2);
        const data = chunk.split("\n").find((line) => line.startsWith("data: "));
        if (!data) continue;
        const e = JSON.parse(data.slice(6));
        const h = ["host_started", "host_phase", "step_started", "step"].includes(e.event) ? (hosts[e.host] = hosts[e.host] || { doing: "connecting", steps: 0 }) : null;
        if (e.event === "host_phase") h.doing = e.phase;
        if (e.event === "step_started") h.doing = e.step;
        if (e.event === "step") h.steps += 1;
        if (e.event === "host_finished") delete hosts[e.host];
        if (e.event === "host_finished") log.appendChild(el("div", e.host + ": " + e.outcome + (e.outcome === "unreachable" ? ": " + e.error : " (" + e.changed + " changed, " + e.failed + " failed)")));
        if (e.event === "recap") log.appendChild(el("div", "recap: " + e.ok + " ok, " + e.changed + " changed, " + e.failed + " failed" + (e.unreachable ? ", " + e.unreachable + " unreachable" : "") + (e.stopped ? ", stopped" : "")));
        if (e.event === "job_finished") log.appendChild(el("div", "job " + e.job + " finished: " + JSON.stringify(e.summary)));
        $("progress").textContent = Object.entries(hosts).map(([name, p]) => name + ": " + p.doing + (p.steps ? " (" + p.steps + " steps)" : "")).join(", ");
      }
    }
  } catch (err) { banner("event stream: " + err.message); }
}
async function refresh() {
  if (!token) { showLogin(); return; }
  try { render(await api("/api/v1/status")); } catch (err) { if (err.message !== "unauthorized") banner(err.message); }
}
$("use").onclick = () => { token = $("token").value.trim(); sessionStorage.setItem("clusterctl-token", token); refresh(); };
refresh(); setInterval(refresh, 3000);
)JS";

}  // namespace clusterctl
