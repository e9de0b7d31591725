#!/usr/bin/env python3
"""A test webhook receiver for Alertmanager (tests/e2e/services_test.sh, gpu_test.sh).

    webhook_receiver.py ADDRESS PORT FILE

Appends each POSTed JSON body to FILE as one line {"received": <unix time>,
"body": <the body>}, answers 200, and runs until it is killed (the test
ends it by its pid). A body that is not JSON is kept as {"unreadable": text}.
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

ADDRESS, PORT, FILE = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        length = min(int(self.headers.get("Content-Length") or 0), 1 << 20)
        text = self.rfile.read(length).decode("utf-8", "replace")
        try:
            entry = {"received": time.time(), "body": json.loads(text)}
        except ValueError:
            entry = {"received": time.time(), "unreadable": text}
        with open(FILE, "a") as out:
            out.write(json.dumps(entry) + "\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


HTTPServer((ADDRESS, PORT), Receiver).serve_forever()
