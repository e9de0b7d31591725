#!/usr/bin/env python3
"""The seconds a deploy spent outside the work it records (issue 55: a
hidden wait at the end of a first deploy), then each host's recorded work.

  time_outside_steps.py HISTORY_JSON DEPLOY_JSON

HISTORY_JSON: `clusterctl history INVENTORY --run N --json` of the deploy;
DEPLOY_JSON: its `deploy --json` events. Its wall time (the recap's
elapsed_ms) minus the busiest host's recorded work: the durations of its
steps (a reboot's step includes the wait for the node) plus its up-front
installs (the "installed up front in one transaction (N ms)" notes).
Prints "SECONDS host=SECONDSs ...", seconds with one decimal.
"""
import json
import re
import sys

UP_FRONT = re.compile(r"installed up front in one transaction \((\d+) ms\)")


def events(deploy_path):
    """The JSON events of a `deploy --json` output; other lines are skipped."""
    with open(deploy_path) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def main(history_path, deploy_path):
    with open(history_path) as f:
        history = json.load(f)
    work = {}
    for step in history["steps"]:
        work[step["host"]] = work.get(step["host"], 0) + step["finished_at"] - step["started_at"]
    elapsed = None
    for event in events(deploy_path):
        if event.get("event") == "recap":
            elapsed = event["elapsed_ms"]
        elif event.get("event") == "note":
            m = UP_FRONT.search(event.get("message", ""))
            if m:
                work[event["host"]] = work.get(event["host"], 0) + int(m.group(1))
    if elapsed is None:
        sys.exit("time_outside_steps: no recap in " + deploy_path)
    busiest = max(work.values()) if work else 0
    hosts = " ".join("%s=%.1fs" % (host, ms / 1000.0) for host, ms in sorted(work.items()))
    print("%.1f %s" % ((elapsed - busiest) / 1000.0, hosts))


def run_of(deploy_path):
    for event in events(deploy_path):
        if event.get("event") == "run_started":
            return event["run"]
    sys.exit("time_outside_steps: no run_started in " + deploy_path)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--run-of":
        print(run_of(sys.argv[2]))
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
