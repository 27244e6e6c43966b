#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""--request-timeout counts from a request's first byte (bin/gpupack-webhook over TLS, and
bin/gpupack-extender over plain HTTP, on loopback).

libmicrohttpd's idle timeout is reset by every byte, so a client could hold a connection by
sending its handshake or headers a byte at a time, and one whose body stopped arriving kept it
until the idle timeout. Each daemon runs with --request-timeout 2 and --idle-timeout 60: such a
connection must be closed well before the idle timeout (within 10 s), counted in
gpupack_http_request_timeouts_total{phase}, while others are served meanwhile. Connections that
send nothing more stay usable past the request timeout: a keep-alive one after its first
request, and (over TLS) a freshly handshaken one, as Go's transport keeps spares in its pool.

Usage: deadlines.py BIN CERTDIR TMPDIR ROOT     Prints PASS/FAIL lines."""
import json
import os
import re
import socket
import ssl
import sys
import threading
import time

import daemons

BIN, CERTS, TMP, ROOT = sys.argv[1:5]
VG = os.environ.get("VG", "").split()
SLOW = 10 if VG else 1
BODY = open(os.path.join(ROOT, "tests/examples/gpu-deployment-review.json"), "rb").read()
CUT_WITHIN = 10 * SLOW
result = daemons.Reporter("deadlines")
CTX = ssl.create_default_context(cafile=f"{CERTS}/ca.crt")


def connect(port, tls):
    s = socket.create_connection(("127.0.0.1", port), timeout=CUT_WITHIN + 5)
    return CTX.wrap_socket(s, server_hostname="localhost") if tls else s


def dribble_until_closed(s, data, every):
    """Sends data a byte at a time; returns the seconds until the server closed the connection
    (None if it is still open after CUT_WITHIN)."""
    t0 = time.time()
    for b in data:
        if time.time() - t0 > CUT_WITHIN:
            return None
        try:
            s.sendall(bytes([b]))
        except (OSError, ssl.SSLError):
            return time.time() - t0
        time.sleep(every)
    return None


def wait_closed(s):
    t0 = time.time()
    s.settimeout(CUT_WITHIN)
    try:
        while s.recv(4096):
            pass
        return time.time() - t0
    except socket.timeout:
        return None
    except (OSError, ssl.SSLError):
        return time.time() - t0


def post(s, path, body):
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return daemons.read_response(s)[0]


def metric(port, tls, phase, server):
    s = connect(port, tls)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    m = re.search(rf'gpupack_http_request_timeouts_total{{server="{server}",phase="{phase}"}} '
                  rf'(\d+)'.encode(), out)
    return int(m.group(1)) if m else -1


common = ["--listen", "127.0.0.1:0", "--request-timeout", "2", "--idle-timeout", "60",
          "--drain-seconds", "0"]
cases = {
    "webhook": ([f"{BIN}/gpupack-webhook", "--tls-cert", f"{CERTS}/tls.crt", "--tls-key",
                 f"{CERTS}/tls.key"] + common, True, "/mutate", BODY),
    "extender": ([f"{BIN}/gpupack-extender", "--snapshot-nodes",
                  f"{ROOT}/tests/extender/nodes.json", "--snapshot-pods",
                  f"{ROOT}/tests/extender/pods.json"] + common, False, "/filter",
                 json.dumps({"Pod": {"metadata": {"name": "p", "namespace": "ml", "uid": "u1"},
                                     "spec": {"containers": [{"name": "c", "resources": {
                                         "limits": {"nvidia.com/gpu": "1"}}}]}},
                             "NodeNames": [n["metadata"]["name"] for n in json.load(open(
                                 os.path.join(ROOT, "tests/extender/nodes.json")))["items"]]
                             }).encode()),
}
for name, (cmd, tls, path, body) in cases.items():
    p, port = daemons.start(cmd, f"{TMP}/deadlines-{name}.log", VG, SLOW)
    try:
        idle = connect(port, tls)  # keep-alive, then silent past the request timeout
        result(f"{name}-idle-first-request", post(idle, path, body) == 200)
        spare = connect(port, tls)  # connected (handshaken over TLS), then silent
        res = {}
        head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        threads = [
            threading.Thread(target=lambda: res.__setitem__(
                "headers", dribble_until_closed(connect(port, tls), head, 0.3))),
            threading.Thread(target=lambda: res.__setitem__("body", (lambda s: (
                s.sendall(head + body[:10]), wait_closed(s))[1])(connect(port, tls)))),
        ]
        if tls:
            threads.append(threading.Thread(target=lambda: res.__setitem__(
                "handshake", dribble_until_closed(socket.create_connection(
                    ("127.0.0.1", port), timeout=CUT_WITHIN + 5), daemons.client_hello(), 0.3))))
        for t in threads:
            t.start()
        time.sleep(1)
        other = connect(port, tls)
        result(f"{name}-serves-others-meanwhile", post(other, path, body) == 200)
        for t in threads:
            t.join()
        for k, v in sorted(res.items()):
            result(f"{name}-{k}-stall-cut", v is not None, f"still open after {CUT_WITHIN} s")
        time.sleep(1 * SLOW)
        result(f"{name}-idle-keep-alive-kept", post(idle, path, body) == 200,
               "an idle keep-alive connection was closed")
        result(f"{name}-idle-new-connection-kept", post(spare, path, body) == 200,
               "a connection that sent nothing after connecting was closed")
        server = name
        result(f"{name}-counted-request", metric(port, tls, "request", server) >= 1 + tls)
        result(f"{name}-counted-body", metric(port, tls, "body", server) >= 1)
    finally:
        p.kill()
        p.wait()
sys.exit(1 if result.fails else 0)
