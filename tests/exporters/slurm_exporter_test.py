"""Tests of clusterctl's Slurm exporter (templates/clusterctl-slurm-exporter.py.mustache).

The parsers and render() are tested on captured sinfo output
(tests/fixtures/captured) and on output in the exporter's own formats as
Slurm 22.05 prints it; the server is tested end to end with fake sinfo and
squeue scripts. Every wait is bounded and every process started is stopped
by its handle.

    python3 -m unittest tests/exporters/slurm_exporter_test.py -v
"""

import http.client
import importlib.machinery
import importlib.util
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "templates" / "clusterctl-slurm-exporter.py.mustache"
FIXTURES = REPO / "tests" / "fixtures" / "captured"

sys.dont_write_bytecode = True  # no __pycache__ beside the template
_loader = importlib.machinery.SourceFileLoader("clusterctl_slurm_exporter", str(SCRIPT))
exporter = importlib.util.module_from_spec(importlib.util.spec_from_loader(_loader.name, _loader))
_loader.exec_module(exporter)

# `sinfo -a -h -N -o '%N|%T|%C|%m|%e|%G'` on a Slurm 22.05 cluster: gpu01 and
# gpu02 are in two partitions (gpu, debug) and so printed twice; free memory
# is N/A for nodes whose slurmd does not answer or is powered down; nodes
# without GRES print "(null)".
SINFO = """\
cpu01|idle|0/128/0/128|257000|250110|(null)
cpu02|down*|0/0/128/128|257000|N/A|(null)
cpu03|draining@|16/0/112/128|257000|180000|(null)
gpu01|mixed|32/32/0/64|515000|401233|gpu:a100:4(S:0-1)
gpu01|mixed|32/32/0/64|515000|401233|gpu:a100:4(S:0-1)
gpu02|allocated+|64/0/0/64|515000|12044|gpu:a100:4(S:0-1),nsight:no_consume:1
gpu02|allocated+|64/0/0/64|515000|12044|gpu:a100:4(S:0-1),nsight:no_consume:1
gpu03|drained*|0/0/64/64|515000|N/A|gpu:a100:4(S:0-1)
gpu04|idle~|0/64/0/64|515000|N/A|gpu:2
"""

# `squeue -a -h -r -o '%i|%T|%P'`: array 4103 expanded by -r, a job pending
# in two partitions, a heterogeneous job (4120+0, 4120+1).
SQUEUE = """\
4101|RUNNING|gpu
4102|RUNNING|gpu
4103_1|RUNNING|gpu
4103_2|PENDING|gpu
4103_3|PENDING|gpu
4110|PENDING|gpu,debug
4111|COMPLETING|debug
4120+0|RUNNING|debug
4120+1|RUNNING|gpu
4130|SUSPENDED|debug
"""

SINFO_ARGV = ["-a", "-h", "-N", "-o", "%N|%T|%C|%m|%e|%G"]
SQUEUE_ARGV = ["-a", "-h", "-r", "-o", "%i|%T|%P"]

# The text exposition format 0.0.4, line by line.
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
_LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
_VALUE = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|NaN|Inf)"
_PAIR = _LABEL + "=" + _LABEL_VALUE
_SAMPLE_RE = re.compile("(" + _NAME + r")(?:\{((?:" + _PAIR + "(?:," + _PAIR + ")*,?)?)\})? (" + _VALUE + ")")
_PAIR_RE = re.compile("(" + _LABEL + ")=(" + _LABEL_VALUE + ")")
_HELP_RE = re.compile(r"# HELP (" + _NAME + r") (?:[^\\\n]|\\[\\n])*")
_TYPE_RE = re.compile(r"# TYPE (" + _NAME + r") (counter|gauge|histogram|summary|untyped)")


def _unescape(quoted):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), quoted[1:-1])


def parse_exposition(test, text):
    """Checks text against the exposition format (each family's HELP and
    TYPE once, before its samples, families not interleaved, no series twice)
    -> {(name, frozenset of (label, value)): value}."""
    test.assertTrue(text.endswith("\n"), "the exposition must end with a newline")
    samples, typed, helped, finished, current = {}, set(), set(), set(), None
    for n, line in enumerate(text[:-1].split("\n"), 1):
        where = "line %d: %r" % (n, line)
        if line.startswith("#"):
            m = _HELP_RE.fullmatch(line) or _TYPE_RE.fullmatch(line)
            test.assertIsNotNone(m, where)
            name = m.group(1)
            seen = helped if line.startswith("# HELP") else typed
            test.assertNotIn(name, seen, "second HELP or TYPE, " + where)
            test.assertNotIn(name, finished, "family interleaved, " + where)
            seen.add(name)
        else:
            m = _SAMPLE_RE.fullmatch(line)
            test.assertIsNotNone(m, "not a sample, " + where)
            name = m.group(1)
            test.assertIn(name, typed, "sample before its TYPE, " + where)
            test.assertNotIn(name, finished, "family interleaved, " + where)
            pairs = [(k, _unescape(v)) for k, v in _PAIR_RE.findall(m.group(2) or "")]
            test.assertEqual(len(pairs), len(dict(pairs)), "a label twice, " + where)
            key = (name, frozenset(pairs))
            test.assertNotIn(key, samples, "series twice, " + where)
            samples[key] = float(m.group(3))
        if current is not None and name != current:
            finished.add(current)
        current = name
    return samples


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def names(samples):
    return {name for name, _ in samples}


class NodeStateTest(unittest.TestCase):
    def test_states_with_flags_are_split_into_base_state_and_flag(self):
        cases = {
            "idle": ("idle", None), "mixed": ("mixed", None), "allocated": ("allocated", None),
            "down*": ("down", "not_responding"), "drained": ("drained", None),
            "drained*": ("drained", "not_responding"), "draining": ("draining", None),
            "draining@": ("draining", "reboot_requested"), "allocated+": ("allocated", "completing"),
            "mixed-": ("mixed", "planned"), "idle~": ("idle", "powered_down"),
            "idle#": ("idle", "powering_up"), "idle%": ("idle", "powering_down"),
            "idle!": ("idle", "power_down_pending"), "down$": ("down", "maintenance"),
            "reboot^": ("reboot", "reboot_issued"), "fail*": ("fail", "not_responding"),
            "reboot_issued": ("reboot_issued", None), "IDLE": ("idle", None),
        }
        for text, expected in cases.items():
            self.assertEqual(exporter.parse_node_state(text), expected, text)

    def test_what_is_not_a_state_is_refused(self):
        for text in ("?", "n/a", "", "idle**", "idle*~", "id le", "idle?"):
            self.assertIsNone(exporter.parse_node_state(text), text)

    def test_every_state_of_a_captured_cpu_cluster_normalises(self):
        # sinfo -h -N -o '%N,%T' on a 709-node cluster.
        lines = (FIXTURES / "sinfo-N-o--1.txt").read_text().split()
        states = [exporter.parse_node_state(line.split(",")[1]) for line in lines]
        self.assertNotIn(None, states)
        self.assertEqual(Counter(base for base, _ in states), {
            "idle": 319, "allocated": 250, "down": 67, "mixed": 44,
            "drained": 18, "draining": 10, "fail": 1})
        self.assertEqual(Counter(flag for _, flag in states)["not_responding"], 78)

    def test_every_state_and_gres_of_a_captured_gpu_cluster_parse(self):
        # sinfo -ahNO nodehost,gres,gresused,statelong: GRES with socket
        # annotations, states mixed-, draining@, drained*, reserved, completing.
        rows = [line.split() for line in
                (FIXTURES / "sinfo-N-O-gres--A100-cluster--1.txt").read_text().splitlines()]
        states = {exporter.parse_node_state(row[3]) for row in rows}
        self.assertEqual(states, {
            ("allocated", None), ("completing", None), ("drained", "not_responding"),
            ("draining", "reboot_requested"), ("idle", None), ("mixed", None),
            ("mixed", "planned"), ("reserved", None)})
        gpus = Counter(exporter.parse_gres_gpus(row[1]) for row in rows)
        # a0349 and a0350 (two lines each) have GRES but no GPU.
        self.assertEqual(gpus, {2: 1984, 3: 192, 4: 168, 0: 4})

    def test_gres_without_gpus_counts_none(self):
        self.assertEqual(exporter.parse_gres_gpus("(null)"), 0)
        self.assertEqual(exporter.parse_gres_gpus("nsight:no_consume:1,vis:1"), 0)
        self.assertEqual(exporter.parse_gres_gpus("gpu:a100:3(S:2,4,7),gpu:t4:1"), 4)


class ParseTest(unittest.TestCase):
    def test_sinfo_lists_each_node_once_with_its_cpus_memory_and_gpus(self):
        nodes, unparsed = exporter.parse_sinfo(SINFO)
        self.assertEqual(unparsed, 0)
        self.assertEqual([n.name for n in nodes], ["cpu01", "cpu02", "cpu03", "gpu01", "gpu02", "gpu03", "gpu04"])
        self.assertEqual(nodes[4], exporter.Node("gpu02", "allocated", "completing", 64, 0, 0, 64, 515000, 12044, 4))
        self.assertEqual(nodes[1], exporter.Node("cpu02", "down", "not_responding", 0, 0, 128, 128, 257000, None, 0))
        self.assertEqual(nodes[6].gpus, 2)

    def test_sinfo_lines_that_do_not_parse_are_skipped_and_counted(self):
        text = SINFO + "\n".join([
            "slurm_load_partitions: Unable to contact slurm controller (connect failure)",
            "gpu05|idle|0/64/0/64|515000|N/A",            # a field short
            "gpu06|idle|64|515000|1000|(null)",           # %c instead of %C
            "gpu07|?|0/64/0/64|515000|1000|(null)",       # what sinfo prints for an unknown state
            "|idle|0/64/0/64|515000|1000|(null)",         # no name
            "gpu08|idle|0/64/0/64|lots|1000|(null)",
            "gpu10|idle|0/64/0/64|\u00b2|1000|(null)",   # a digit to isdigit(), not to int()
            "gpu09|idle|0/64/0/64|515000|1000|(null)|extra",
            "", "   ",                                     # blank: neither nodes nor errors
        ]) + "\n"
        nodes, unparsed = exporter.parse_sinfo(text)
        self.assertEqual(len(nodes), 7)
        self.assertEqual(unparsed, 8)

    def test_squeue_lists_every_job_with_its_partitions(self):
        jobs, unparsed = exporter.parse_squeue(SQUEUE)
        self.assertEqual(unparsed, 0)
        self.assertEqual(len(jobs), 10)
        self.assertEqual(jobs[5], exporter.Job("4110", "PENDING", ("gpu", "debug")))
        self.assertEqual(jobs[7], exporter.Job("4120+0", "RUNNING", ("debug",)))

    def test_squeue_lines_that_do_not_parse_are_skipped_and_counted(self):
        text = SQUEUE + "\n".join([
            "slurm_load_jobs error: Unable to contact slurm controller (connect failure)",
            "abc|RUNNING|gpu", "4200|running|gpu", "4201|RUNNING|", "4202|RUNNING", ""]) + "\n"
        jobs, unparsed = exporter.parse_squeue(text)
        self.assertEqual((len(jobs), unparsed), (10, 5))


class RenderTest(unittest.TestCase):
    def render(self, sinfo=SINFO, squeue=SQUEUE):
        nodes, jobs = exporter.parse_sinfo(sinfo)[0], exporter.parse_squeue(squeue)[0]
        return exporter.render(nodes, jobs, 0.25, {"sinfo": 0, "squeue": 0})

    def test_output_follows_the_exposition_format_and_holds_every_metric(self):
        samples = parse_exposition(self, self.render())
        self.assertEqual(names(samples), {
            "slurm_up", "slurm_exporter_scrape_duration_seconds", "slurm_exporter_unparsed_lines",
            "slurm_node_state", "slurm_node_state_flag", "slurm_node_not_responding", "slurm_nodes",
            "slurm_cpus", "slurm_node_cpus", "slurm_node_memory_bytes", "slurm_node_memory_free_bytes",
            "slurm_node_gpus", "slurm_jobs", "slurm_partition_jobs"})
        self.assertEqual(value(samples, "slurm_up"), 1)
        self.assertEqual(value(samples, "slurm_exporter_scrape_duration_seconds"), 0.25)

    def test_node_metrics(self):
        s = parse_exposition(self, self.render())
        self.assertEqual(value(s, "slurm_node_state", node="cpu02", state="down"), 1)
        self.assertEqual(value(s, "slurm_node_state", node="gpu02", state="allocated"), 1)
        self.assertEqual(sum(1 for name, _ in s if name == "slurm_node_state"), 7)
        self.assertEqual(value(s, "slurm_node_not_responding", node="cpu02"), 1)
        self.assertEqual(value(s, "slurm_node_not_responding", node="gpu03"), 1)
        self.assertEqual(value(s, "slurm_node_not_responding", node="cpu01"), 0)
        self.assertEqual(value(s, "slurm_node_state_flag", node="gpu04", flag="powered_down"), 1)
        self.assertEqual(value(s, "slurm_node_state_flag", node="cpu03", flag="reboot_requested"), 1)
        self.assertIsNone(value(s, "slurm_node_state_flag", node="cpu01", flag="not_responding"))
        for state, count in {"idle": 2, "down": 1, "draining": 1, "mixed": 1, "allocated": 1,
                             "drained": 1}.items():
            self.assertEqual(value(s, "slurm_nodes", state=state), count, state)
        self.assertEqual(value(s, "slurm_cpus", state="allocated"), 112)
        self.assertEqual(value(s, "slurm_cpus", state="idle"), 224)
        self.assertEqual(value(s, "slurm_cpus", state="other"), 304)
        self.assertEqual(value(s, "slurm_cpus", state="total"), 640)
        self.assertEqual(value(s, "slurm_node_cpus", node="cpu03", state="other"), 112)
        self.assertEqual(value(s, "slurm_node_memory_bytes", node="gpu01"), 515000 * 1048576)
        self.assertEqual(value(s, "slurm_node_memory_free_bytes", node="gpu01"), 401233 * 1048576)
        self.assertIsNone(value(s, "slurm_node_memory_free_bytes", node="cpu02"))
        self.assertEqual(value(s, "slurm_node_gpus", node="gpu02"), 4)
        self.assertEqual(value(s, "slurm_node_gpus", node="cpu01"), 0)

    def test_job_metrics(self):
        s = parse_exposition(self, self.render())
        self.assertEqual(value(s, "slurm_jobs", state="RUNNING"), 5)
        self.assertEqual(value(s, "slurm_jobs", state="PENDING"), 3)
        self.assertEqual(value(s, "slurm_jobs", state="COMPLETING"), 1)
        self.assertEqual(value(s, "slurm_jobs", state="SUSPENDED"), 1)
        self.assertEqual(value(s, "slurm_partition_jobs", partition="gpu", state="PENDING"), 3)
        self.assertEqual(value(s, "slurm_partition_jobs", partition="debug", state="PENDING"), 1)
        self.assertEqual(value(s, "slurm_partition_jobs", partition="gpu", state="RUNNING"), 4)

    def test_no_jobs_still_shows_pending_and_running_as_zero(self):
        s = parse_exposition(self, self.render(squeue=""))
        self.assertEqual(value(s, "slurm_jobs", state="PENDING"), 0)
        self.assertEqual(value(s, "slurm_jobs", state="RUNNING"), 0)
        self.assertEqual(sum(1 for name, _ in s if name == "slurm_partition_jobs"), 0)

    def test_a_failed_command_sets_up_to_0_and_leaves_its_metrics_out(self):
        nodes, jobs = exporter.parse_sinfo(SINFO)[0], exporter.parse_squeue(SQUEUE)[0]
        s = parse_exposition(self, exporter.render(None, jobs, 10.0, {"sinfo": 0, "squeue": 0}))
        self.assertEqual(value(s, "slurm_up"), 0)
        self.assertEqual(names(s) & {"slurm_node_state", "slurm_nodes", "slurm_cpus", "slurm_node_cpus"}, set())
        self.assertEqual(value(s, "slurm_jobs", state="RUNNING"), 5)
        s = parse_exposition(self, exporter.render(nodes, None, 10.0, {"sinfo": 0, "squeue": 0}))
        self.assertEqual(value(s, "slurm_up"), 0)
        self.assertEqual(names(s) & {"slurm_jobs", "slurm_partition_jobs"}, set())
        self.assertEqual(value(s, "slurm_nodes", state="idle"), 2)

    def test_hostile_label_values_are_escaped(self):
        hostile = ['quote"node', "back\\slash", "new\nline", 'all\\"\n}{,=" x', "\\n"]
        nodes = [exporter.Node(name, "idle", None, 0, 4, 0, 4, 1000, None, 0) for name in hostile]
        jobs = [exporter.Job("1", "RUNNING", ('part"\\\n',))]
        text = exporter.render(nodes, jobs, 0.0, {"sinfo": 0, "squeue": 0})
        s = parse_exposition(self, text)
        self.assertEqual({dict(labels)["node"] for name, labels in s if name == "slurm_node_state"}, set(hostile))
        self.assertEqual(value(s, "slurm_partition_jobs", partition='part"\\\n', state="RUNNING"), 1)
        self.assertIn(r'slurm_node_state{node="all\\\"\n}{,=\" x",state="idle"} 1', text.split("\n"))

    def test_a_quote_or_backslash_from_sinfo_reaches_the_label_escaped(self):
        nodes, unparsed = exporter.parse_sinfo('we"ird\\name|idle|0/4/0/4|1000|900|(null)\n')
        s = parse_exposition(self, exporter.render(nodes, [], 0.0, {"sinfo": unparsed}))
        self.assertEqual(value(s, "slurm_node_state", node='we"ird\\name', state="idle"), 1)

    def test_unparsed_lines_are_reported_per_command(self):
        s = parse_exposition(self, exporter.render([], [], 0.0, {"sinfo": 3, "squeue": 0}))
        self.assertEqual(value(s, "slurm_exporter_unparsed_lines", command="sinfo"), 3)
        self.assertEqual(value(s, "slurm_exporter_unparsed_lines", command="squeue"), 0)

    @unittest.skipUnless(shutil.which("promtool"), "promtool (Debian: prometheus) is not installed")
    def test_promtool_finds_nothing_to_say(self):
        result = subprocess.run(["promtool", "check", "metrics"], input=self.render(),
                                capture_output=True, text=True, timeout=30)
        self.assertEqual((result.returncode, result.stdout + result.stderr), (0, ""))


class FakeRunner:
    """Stands in for run_command: answers from a table, records each argv."""

    def __init__(self, answers):
        self.answers = answers  # argv[0] -> (stdout, problem)
        self.calls = []

    def __call__(self, argv, timeout):
        self.calls.append(list(argv))
        return self.answers[argv[0]]


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class CollectorTest(unittest.TestCase):
    def make(self, sinfo=(SINFO, None), squeue=(SQUEUE, None), cache=10):
        self.runner = FakeRunner({"sinfo": sinfo, "squeue": squeue})
        self.clock = FakeClock()
        self.logged = []
        return exporter.Collector("sinfo", "squeue", 5, cache, run=self.runner,
                                  clock=self.clock, log=self.logged.append)

    def test_runs_both_commands_with_their_formats_as_argument_vectors(self):
        s = parse_exposition(self, self.make().metrics())
        self.assertEqual(sorted(self.runner.calls), [["sinfo"] + SINFO_ARGV, ["squeue"] + SQUEUE_ARGV])
        self.assertEqual(value(s, "slurm_up"), 1)
        self.assertEqual(self.logged, [])

    def test_answers_from_its_cache_until_it_expires(self):
        collector = self.make(cache=10)
        first = collector.metrics()
        self.clock.now += 9.9
        self.assertEqual(collector.metrics(), first)
        self.assertEqual(len(self.runner.calls), 2)
        self.clock.now += 0.2
        collector.metrics()
        self.assertEqual(len(self.runner.calls), 4)

    def test_cache_0_runs_the_commands_on_every_scrape(self):
        collector = self.make(cache=0)
        collector.metrics()
        collector.metrics()
        self.assertEqual(len(self.runner.calls), 4)

    def test_a_failing_command_is_logged_once_and_its_recovery_too(self):
        collector = self.make(sinfo=(None, "sinfo exited 1: Unable to contact slurm controller"), cache=0)
        s = parse_exposition(self, collector.metrics())
        self.assertEqual(value(s, "slurm_up"), 0)
        self.assertNotIn("slurm_node_state", names(s))
        self.assertEqual(value(s, "slurm_jobs", state="RUNNING"), 5)
        collector.metrics()
        self.assertEqual(self.logged, ["sinfo exited 1: Unable to contact slurm controller"])
        self.runner.answers["sinfo"] = (SINFO, None)
        self.assertEqual(value(parse_exposition(self, collector.metrics()), "slurm_up"), 1)
        self.assertEqual(self.logged[1:], ["sinfo: works again"])

    def test_output_of_which_no_line_parses_is_a_failure(self):
        collector = self.make(squeue=("JOBID|STATE\nsomething else entirely\n", None))
        s = parse_exposition(self, collector.metrics())
        self.assertEqual(value(s, "slurm_up"), 0)
        self.assertNotIn("slurm_jobs", names(s))
        self.assertEqual(value(s, "slurm_exporter_unparsed_lines", command="squeue"), 2)
        self.assertEqual(len(self.logged), 1)
        self.assertIn("squeue: 2 line(s) did not parse, the first: 'JOBID|STATE'", self.logged[0])

    def test_some_lines_that_do_not_parse_are_counted_and_the_rest_kept(self):
        collector = self.make(sinfo=(SINFO + "gpu07|?|0/64/0/64|515000|1000|(null)\n", None))
        s = parse_exposition(self, collector.metrics())
        self.assertEqual(value(s, "slurm_up"), 1)
        self.assertEqual(value(s, "slurm_exporter_unparsed_lines", command="sinfo"), 1)
        self.assertEqual(value(s, "slurm_nodes", state="idle"), 2)
        self.assertEqual(len(self.logged), 1)


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="slurm-exporter-test-"))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def script(self, name, body):
        path = self.dir / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
        return str(path)


class RunCommandTest(TempDirTest):
    def test_returns_the_output(self):
        out, problem = exporter.run_command([self.script("ok", "printf '%s|' \"$@\"\n"), "a b", "%N|%T"], 5)
        self.assertEqual((out, problem), ("a b|%N|%T|", None))

    def test_a_failure_says_how_and_the_last_line_of_stderr(self):
        out, problem = exporter.run_command(
            [self.script("fail", "echo noise >&2; echo 'Unable to contact slurm controller' >&2; exit 1\n")], 5)
        self.assertIsNone(out)
        self.assertRegex(problem, r"fail exited 1: Unable to contact slurm controller$")

    def test_a_missing_command(self):
        out, problem = exporter.run_command([str(self.dir / "no-such-sinfo")], 5)
        self.assertIsNone(out)
        self.assertIn("cannot run", problem)

    def test_a_hanging_command_is_killed_with_what_it_started(self):
        pidfile = self.dir / "pid"
        hang = self.script("hang", "sleep 30 &\necho $! > %s\nwait\n" % pidfile)
        started = time.monotonic()
        out, problem = exporter.run_command([hang], 0.5)
        self.assertLess(time.monotonic() - started, 3)
        self.assertIsNone(out)
        self.assertIn("no answer within 0.5s", problem)
        child = int(pidfile.read_text())
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(_alive(child), "the command's own child survived")


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class ServerTest(TempDirTest):
    """The real exporter as a process, with fake sinfo and squeue."""

    def setUp(self):
        super().setUp()
        self.calls = self.dir / "calls"
        record = 'echo "$0 $*" >> %s\n' % self.calls
        self.sinfo = self.script("sinfo", record + "cat <<'EOF'\n" + SINFO + "EOF\n")
        self.squeue = self.script("squeue", record + "cat <<'EOF'\n" + SQUEUE + "EOF\n")

    def start(self, *extra, timeout=5, cache=0):
        argv = [sys.executable, str(SCRIPT), "--listen", "127.0.0.1:0", "--sinfo", self.sinfo,
                "--squeue", self.squeue, "--timeout", str(timeout), "--cache", str(cache)] + list(extra)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.stop)
        self.stderr = queue.Queue()
        threading.Thread(target=lambda: [self.stderr.put(line.rstrip("\n")) for line in self.proc.stderr],
                         daemon=True).start()
        m = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)/metrics", self.next_log_line(10))
        self.assertIsNotNone(m)
        self.base = "http://127.0.0.1:%s" % m.group(1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc.stderr.close()

    def next_log_line(self, timeout):
        try:
            return self.stderr.get(timeout=timeout)
        except queue.Empty:
            self.fail("no line on the exporter's stderr within %ss" % timeout)

    def get(self, path, timeout=10):
        """-> (status, content type, body)."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
                return r.status, r.headers["Content-Type"], r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            with e:
                return e.code, e.headers["Content-Type"], e.read().decode("utf-8")

    def test_serves_metrics_an_index_and_404_then_stops_on_sigterm(self):
        self.start()
        status, content_type, body = self.get("/metrics")
        self.assertEqual((status, content_type), (200, "text/plain; version=0.0.4; charset=utf-8"))
        s = parse_exposition(self, body)
        self.assertEqual(value(s, "slurm_up"), 1)
        self.assertEqual(value(s, "slurm_nodes", state="idle"), 2)
        self.assertEqual(value(s, "slurm_jobs", state="PENDING"), 3)
        self.assertEqual(sorted(self.calls.read_text().splitlines()),
                         sorted([self.sinfo + " " + " ".join(SINFO_ARGV), self.squeue + " " + " ".join(SQUEUE_ARGV)]))
        status, content_type, body = self.get("/")
        self.assertEqual(status, 200)
        self.assertIn('href="/metrics"', body)
        self.assertEqual(self.get("/metrics/other")[0], 404)
        self.assertEqual(self.get("/metrics?x=1")[0], 200)

        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(timeout=5), 0)
        self.assertEqual(list(self.stderr.queue), [], "no line per request")

    def test_sinfo_failing_answers_200_with_slurm_up_0_and_logs_why(self):
        self.sinfo = self.script("sinfo", "echo 'slurm_load_partitions: Unable to contact slurm controller "
                                          "(connect failure)' >&2\nexit 1\n")
        self.start()
        status, _, body = self.get("/metrics")
        self.assertEqual(status, 200)
        s = parse_exposition(self, body)
        self.assertEqual(value(s, "slurm_up"), 0)
        self.assertNotIn("slurm_node_state", names(s))
        self.assertEqual(value(s, "slurm_jobs", state="RUNNING"), 5)
        self.assertRegex(self.next_log_line(5), r"sinfo exited 1: slurm_load_partitions: Unable to contact")

    def test_sinfo_hanging_is_killed_and_the_scrape_answers_within_the_timeout(self):
        self.sinfo = self.script("sinfo", "sleep 30\n")
        self.start(timeout=1)
        started = time.monotonic()
        status, _, body = self.get("/metrics", timeout=10)
        self.assertLess(time.monotonic() - started, 1 + 3)
        s = parse_exposition(self, body)
        self.assertEqual((status, value(s, "slurm_up")), (200, 0))
        self.assertNotIn("slurm_nodes", names(s))
        self.assertEqual(value(s, "slurm_jobs", state="PENDING"), 3)
        self.assertIn("no answer within 1s, killed", self.next_log_line(5))

    def test_scrapes_within_the_cache_time_run_sinfo_once(self):
        self.start(cache=60)
        bodies = {self.get("/metrics")[2] for _ in range(3)}
        self.assertEqual(len(bodies), 1)
        self.assertEqual(len(self.calls.read_text().splitlines()), 2)

    def test_an_address_in_use_is_a_clear_error(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            result = subprocess.run([sys.executable, str(SCRIPT), "--listen", "127.0.0.1:%d" % port],
                                    capture_output=True, text=True, timeout=10)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cannot listen on 127.0.0.1:%d: Address already in use" % port, result.stderr)

    def test_a_listen_address_that_is_not_one_is_refused(self):
        for listen in ("localhost:9341", "::1:9341", "10.0.0.1"):
            result = subprocess.run([sys.executable, str(SCRIPT), "--listen", listen],
                                    capture_output=True, text=True, timeout=10)
            self.assertEqual(result.returncode, 2, listen)
            self.assertIn("is not IPV4ADDRESS:PORT or [IPV6ADDRESS]:PORT", result.stderr)


class TemplateTest(unittest.TestCase):
    def test_the_script_holds_nothing_mustache_would_expand(self):
        text = SCRIPT.read_text()
        self.assertNotIn("{" * 2, text)
        self.assertNotIn("}" * 2, text)


if __name__ == "__main__":
    unittest.main()
