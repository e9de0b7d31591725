#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/) from the
repository's examples, roles, templates and captured tool outputs, and
encoded protocol frames of every message kind. Run it after adding a
fixture; libFuzzer grows its own corpus from these seeds."""
import hashlib, json, os, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def write(target, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def files(*parts, suffixes=None):
    d = os.path.join(ROOT, *parts)
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if os.path.isfile(path) and (suffixes is None or name.endswith(suffixes)):
            yield name, open(path, "rb").read()


def frame(header, body=b""):
    h = json.dumps(header).encode()
    return struct.pack(">II", len(h), len(body)) + h + body


for _, data in files("inventory", "examples", suffixes=(".yaml",)):
    write("inventory", data)
for _, data in files("inventory", "examples", suffixes=(".ini",)):
    write("ini_import", data)
for _, data in files("roles", suffixes=(".yaml",)):
    write("role_file", data)
for sub in ("deploy", "resources"):
    for _, data in files("tests", "e2e", sub, suffixes=(".yaml",)):
        write("role_file", data)
for name, data in files("templates"):
    fmt = 1 if ".sql" in name else 2 if ".sh" in name else 0
    write("template", bytes([fmt]) + data)
write("template", b"\x00{{#list}}{{.}}{{/list}}{{^none}}x{{/none}}{{&text}}{{map.k}}{{count}} {{ratio}}")
write("template", b"\x00defined(host.facts.cpu) and host.facts.cpu.cpus >= 8 or not on")

requests = [
    {"type": "facts", "id": 1}, {"type": "facts", "id": 2, "packages": ["slurm*"]},
    {"type": "exec", "id": 3, "argv": ["uname", "-r"], "timeout_ms": 1000, "env": {"A": "b"}},
    {"type": "resource", "id": 4, "kind": "file", "params": {"path": "/etc/x", "mode": "0644"}, "apply": False},
    {"type": "upload_chunk", "id": 5, "path": "/opt/x", "offset": 0},
    {"type": "reboot", "id": 6, "delay_ms": 1000}, {"type": "ping", "id": 7}, {"type": "shutdown", "id": 8},
]
write("agent_frames", b"".join(frame(r, b"body" if r["type"] in ("exec", "upload_chunk", "resource") else b"") for r in requests))
for r in requests:
    write("agent_frames", frame(r))

hello = {"type": "hello", "protocol": 1, "agent_version": "0.1.0", "pid": 42, "euid": 0, "arch": "x86_64", "hostname": "node01"}
replies = [
    frame({"type": "result", "id": 1, "facts": {"cpu": {"cpus": 4}}}),
    frame({"type": "result", "id": 2, "exit_code": 0, "signal": 0, "timed_out": False, "truncated": False,
           "started": True, "duration_ms": 5, "stdout_bytes": 3}, b"outerr"),
    frame({"type": "result", "id": 3, "outcome": {"changed": True, "differences": ["content"], "failed": False,
           "commands": [{"argv": ["systemctl", "restart", "x"], "mutating": True, "exit_code": 0}],
           "extra": {"invocation_before": "abc", "active_state": "active"}, "has_backup": True}}, b"old"),
    frame({"type": "error", "id": None, "code": "bad_frame", "message": "bad"}),
    frame({"type": "result", "id": 5}),
]
write("controller_frames", b"Welcome!\n\nCLUSTERCTL-AGENT/1\n" + frame(hello) + b"".join(replies))
write("controller_frames", b"\nCLUSTERCTL-AGENT/1\n" + frame(hello))

FACTS = {"os-release": 0, "cpuinfo": 1, "meminfo": 2, "modules": 3, "nvidia-version": 4, "dpkg-status": 5}
for name, data in files("tests", "fixtures", "facts"):
    for prefix, selector in FACTS.items():
        if name.startswith(prefix):
            write("facts_parsers", bytes([selector]) + data)
for name, data in files("tests", "fixtures", "captured"):
    if name.startswith("lspci"):
        write("facts_parsers", bytes([9]) + data)

VALIDATE = [("nvidia-smi-q-x", 1), ("nvidia-smi-query-gpu", 2), ("nvidia-smi-q-", 0), ("nvidia-smi--", 3),
            ("ibstat", 5), ("ibv_devinfo", 6), ("ib_write_bw", 7), ("all_reduce_perf", 8), ("all_gather_perf", 8),
            ("scontrol-show-node-json", 11), ("scontrol-show-node", 9), ("sinfo-N-o", 10), ("sinfo-N-O", 10),
            ("sinfo-json", 11), ("nvidia-smi-nvlink", 16), ("dcgmi-diag", 17)]
for name, data in files("tests", "fixtures", "captured"):
    for prefix, selector in VALIDATE:
        if name.startswith(prefix):
            write("validate_parsers", bytes([selector]) + data)
            break
write("validate_parsers", bytes([12]) + b"Slurmctld(primary) at node01 is UP\n")
write("validate_parsers", bytes([13]) + b"Reference ID    : C0A80001 (node01)\nStratum         : 3\nSystem time     : 0.000012 seconds fast of NTP time\nLeap status     : Normal\n")
write("validate_parsers", bytes([14]) + b"[ 12.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n")
write("validate_parsers", bytes([15]) + b"gpu:a100:8(S:0-1)")
for name, data in files("tests", "fixtures", "captured"):
    if name.startswith("all_reduce_perf") and b"failure" in data:
        write("validate_parsers", bytes([18]) + data)  # the evidence picker on real failures
for body in [b'{}', b'{"limit":"node[01-04],!node03","roles":["chrony","slurm-node"],"verify":true}',
             b'{"batch":"25%","max_fail_percent":10}', b'{"checks":"gpu,slurm.node","deadline_s":600}',
             b'{"grace_s":30}', b'[[[[[[[[[[1]]]]]]]]]]', b'{"limit":5}', b'{"x":"\\u0000"}']:
    write("http_body", body)
print("corpora in", OUT)
