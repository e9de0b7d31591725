#!/usr/bin/env python3
"""Samples Alertmanager and the nodes' exporters while a deploy reboots nodes
(tests/e2e/services_test.sh, gpu_test.sh).

    watch_alertmanager.py ALERTMANAGER_URL OUT_FILE NODE=EXPORTER_URL...

Every half second appends one JSON line to OUT_FILE: {"t": unix time,
"silenced": nodes with an active silence matching node=<node>,
"alerts": {node: {alertname: state}} (Alertmanager's firing alerts: state
"active" or "suppressed"), "up": {node: whether its exporter answers}}.
Runs until it is killed (the test ends it by its pid).
"""
import json
import sys
import time
import urllib.request

AM, OUT = sys.argv[1], sys.argv[2]
EXPORTERS = dict(arg.split("=", 1) for arg in sys.argv[3:])


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=1) as reply:
            return json.load(reply) if url.startswith(AM) else True
    except Exception:
        return None


while True:
    sample = {"t": time.time(), "silenced": [], "alerts": {}, "up": {}}
    for silence in get(AM + "/api/v2/silences") or []:
        if silence.get("status", {}).get("state") != "active":
            continue
        for matcher in silence.get("matchers", []):
            if matcher.get("name") == "node":
                sample["silenced"].append(matcher.get("value"))
    for alert in get(AM + "/api/v2/alerts") or []:
        node = alert.get("labels", {}).get("node")
        if node:
            sample["alerts"].setdefault(node, {})[alert["labels"].get("alertname")] = alert["status"]["state"]
    for node, url in EXPORTERS.items():
        sample["up"][node] = get(url) is not None
    with open(OUT, "a") as out:
        out.write(json.dumps(sample) + "\n")
    time.sleep(0.5)
