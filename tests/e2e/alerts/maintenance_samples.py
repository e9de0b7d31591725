#!/usr/bin/env python3
"""Reads what watch_alertmanager.py sampled during a rolling reboot
(tests/e2e/services_test.sh, gpu_test.sh).

    maintenance_samples.py SAMPLES NEEDED_SECONDS NODE...
        one line per node: NODE down=S long_enough=B silenced_while_down=B
        suppressed=NAMES active=NAMES silenced_at_end=B
        (down: the longest time its exporter did not answer; long_enough:
        longer than NEEDED_SECONDS, what its NodeDown needs to fire;
        suppressed/active: its alerts Alertmanager ever had in that state,
        comma-separated, or "none")
    maintenance_samples.py --ended ALERTMANAGER_URL NODE...
        exit 0 when Alertmanager has a silence by clusterctl for each NODE
        and every silence by clusterctl has ended (expired)
"""
import json
import sys
import urllib.request


def ended(url, nodes):
    with urllib.request.urlopen(url + "/api/v2/silences", timeout=5) as reply:
        silences = [s for s in json.load(reply) if s.get("createdBy") == "clusterctl"]
    silenced = {m["value"] for s in silences for m in s["matchers"] if m["name"] == "node"}
    print("clusterctl's silences:", [(s["id"], s["status"]["state"]) for s in silences])
    return set(nodes) <= silenced and all(s["status"]["state"] == "expired" for s in silences)


def ever(samples, node, state):
    """The node's alerts Alertmanager ever gave `state`: "A,B", or "none"."""
    names = {name for s in samples for name, st in s["alerts"].get(node, {}).items() if st == state}
    return ",".join(sorted(names)) or "none"


def report(samples, needed, node):
    longest, since = 0.0, None
    for s in samples:
        if s["up"].get(node):
            since = None
            continue
        since = s["t"] if since is None else since
        longest = max(longest, s["t"] - since)
    down = [s for s in samples if not s["up"].get(node)]
    fields = {
        "down": "%.1f" % longest,
        "long_enough": longest > needed,
        "silenced_while_down": bool(down) and all(node in s["silenced"] for s in down),
        "suppressed": ever(samples, node, "suppressed"),
        "active": ever(samples, node, "active"),
        "silenced_at_end": bool(samples) and node in samples[-1]["silenced"],
    }
    return node + " " + " ".join("%s=%s" % item for item in fields.items())


if sys.argv[1] == "--ended":
    sys.exit(0 if ended(sys.argv[2], sys.argv[3:]) else 1)
samples = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
for node in sys.argv[3:]:
    print(report(samples, float(sys.argv[2]), node))
