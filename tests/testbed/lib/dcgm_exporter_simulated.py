#!/usr/bin/python3
# SIMULATED dcgm-exporter (clusterctl testbed): no GPU, no DCGM, no reading.
# Shipped as /usr/bin/dcgm-exporter by the testbed's SIMULATED
# datacenter-gpu-manager-exporter package (tests/testbed/lib/nvidia_repo.sh)
# so that the dcgm-exporter role deploys and Prometheus scrapes a target on
# the simulated GPU nodes. Like NVIDIA's exporter it listens where
# DCGM_EXPORTER_LISTEN says ("ADDRESS:PORT", ":PORT", "[V6]:PORT"; default
# :9400) and serves /metrics; every series it serves is labelled
# simulated="true" and none is a DCGM field: nothing here is a measurement.
import glob
import os
import re
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def listen_address(text):
    match = re.fullmatch(r"\[?([^\[\]]*?)\]?:(\d+)", text)
    if not match:
        sys.exit(f"SIMULATED dcgm-exporter: DCGM_EXPORTER_LISTEN {text!r} is not ADDRESS:PORT")
    return match.group(1), int(match.group(2))


def metrics():
    lines = [
        "# HELP clusterctl_testbed_simulated_gpu A SIMULATED GPU of the clusterctl testbed: DCGM has nothing to read.",
        "# TYPE clusterctl_testbed_simulated_gpu gauge",
    ]
    for path in sorted(glob.glob("/dev/nvidia[0-9]*")):
        minor = path[len("/dev/nvidia"):]
        lines.append(f'clusterctl_testbed_simulated_gpu{{gpu="{minor}",device="nvidia{minor}",simulated="true"}} 1')
    return ("\n".join(lines) + "\n").encode()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/metrics":
            self.send_error(404)
            return
        body = metrics()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True


def main():
    host, port = listen_address(os.environ.get("DCGM_EXPORTER_LISTEN", ":9400"))
    Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
    print(f"SIMULATED dcgm-exporter (clusterctl testbed): serving labelled placeholder metrics on {host or '*'}:{port}",
          flush=True)
    Server((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
