#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A canned Prometheus API endpoint for tests/e2e/prometheus.sh (Python 3 standard library).

    python3 tests/e2e/promfake.py --port-file F --log L --plan 503,503,200

Binds 127.0.0.1 on a free port, writes the port to F (atomically), and answers every request
with the next step of the plan (the last step repeats): "200" a one-series vector, "503" or
"429" a Prometheus error body, "429:S" with Retry-After: S, "hang" no answer for 60 s. Each
request is logged to L as one JSON line: time, method, path, headers, body.
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OK = {"status": "success", "data": {"resultType": "vector", "result": [
    {"metric": {"Hostname": "fake"}, "value": [1700000000, "1"]}]}}


def error_body(code):
    return {"status": "error", "errorType": "unavailable", "error": "fake %d" % code}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        srv = self.server
        with srv.lock:
            step = srv.plan[min(srv.count, len(srv.plan) - 1)]
            srv.count += 1
            with open(srv.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"t": time.time(), "method": self.command, "path": self.path,
                                    "headers": dict(self.headers.items()), "body": body}) + "\n")
        if step == "hang":
            time.sleep(60)
            return
        code, _, retry_after = step.partition(":")
        code = int(code)
        out = json.dumps(OK if code == 200 else error_body(code)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        if retry_after:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--plan", default="200")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.plan, srv.count, srv.log, srv.lock = a.plan.split(","), 0, a.log, threading.Lock()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, a.port_file)
    ppid = os.getppid()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    while os.getppid() == ppid:  # die with the shell test
        time.sleep(0.5)
    sys.exit(0)


if __name__ == "__main__":
    main()
