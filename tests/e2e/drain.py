#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Shutdown without lost requests (bin/gpupack-webhook over TLS, loopback).

kube-apiserver keeps connections to a webhook pod open and sends reviews over them. On SIGTERM
the webhook must answer every request it has begun, and tell keep-alive clients to go elsewhere:
- during --drain-seconds, answers carry "Connection: close", and the connection then closes;
- a request whose body is still arriving when the drain ends is answered before the exit.

Usage: drain.py BIN CERTDIR TMPDIR ROOT     Prints PASS/FAIL lines."""
import json
import os
import signal
import socket
import ssl
import sys
import time

import daemons

BIN, CERTS, TMP, ROOT = sys.argv[1:5]
VG = os.environ.get("VG", "").split()
SLOW = 10 if VG else 1
BODY = open(os.path.join(ROOT, "tests/examples/gpu-deployment-review.json"), "rb").read()
DRAIN = 2 * SLOW
result = daemons.Reporter("drain")
CTX = ssl.create_default_context(cafile=f"{CERTS}/ca.crt")


def connect(port):
    raw = socket.create_connection(("127.0.0.1", port), timeout=15 * SLOW)
    return CTX.wrap_socket(raw, server_hostname="localhost")


def head(body_len):
    return (f"POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {body_len}\r\n\r\n").encode()


def closed(s):
    """True when the server closed the connection (EOF or a reset) within half the drain: at
    once, not when the process exits."""
    s.settimeout(DRAIN / 2)
    try:
        return s.recv(1) == b""
    except (ConnectionError, ssl.SSLError):
        return True
    except socket.timeout:
        return False


def allowed(body):
    try:
        return json.loads(body)["response"]["allowed"] is True
    except (ValueError, KeyError, TypeError):
        return False


log = f"{TMP}/drain-webhook.log"
wh, port = daemons.start([f"{BIN}/gpupack-webhook", "--listen", "127.0.0.1:0", "--tls-cert",
                          f"{CERTS}/tls.crt", "--tls-key", f"{CERTS}/tls.key",
                          "--drain-seconds", str(DRAIN), "--request-timeout", str(10 * SLOW)],
                         log, VG, SLOW)
try:
    keep = connect(port)
    keep.sendall(head(len(BODY)) + BODY)
    st, hd, body = daemons.read_response(keep)
    result("keep-alive-before-sigterm", st == 200 and hd.get("connection", "").lower() != "close",
           f"status {st}, headers {hd}")

    slow = connect(port)  # a review whose body is still arriving when the drain ends
    half = len(BODY) // 2
    slow.sendall(head(len(BODY)) + BODY[:half])
    time.sleep(0.3 * SLOW)

    wh.send_signal(signal.SIGTERM)
    time.sleep(0.3 * SLOW)
    keep.sendall(head(len(BODY)) + BODY)
    st, hd, body = daemons.read_response(keep)
    result("drain-answers-with-connection-close",
           st == 200 and allowed(body) and hd.get("connection", "").lower() == "close",
           f"status {st}, headers {hd}")
    result("drain-closes-the-keep-alive-connection", closed(keep))

    deadline = time.time() + DRAIN + 5 * SLOW
    while time.time() < deadline and "no longer accepting connections" not in open(log).read():
        time.sleep(0.05)
    result("drain-ends", "no longer accepting connections" in open(log).read(), open(log).read())
    time.sleep(0.2 * SLOW)
    slow.sendall(BODY[half:])
    st, hd, body = daemons.read_response(slow)
    result("request-in-flight-answered-at-shutdown", st == 200 and allowed(body),
           f"status {st}, body {body[:200]!r}")
    rc = wh.wait(timeout=20 * SLOW)
    result("exit-0", rc == 0, f"exit {rc}")
    result("waited-logged", "waiting for requests in flight" in open(log).read(), open(log).read())
finally:
    if wh.poll() is None:
        wh.kill()
        wh.wait()
sys.exit(1 if result.fails else 0)
