#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stalled TLS handshakes cost the daemons no CPU (bin/gpupack-webhook, bin/gpupack-extender over
TLS on loopback).

libmicrohttpd 0.9.75 in epoll mode spins on a connection whose TLS handshake waits for bytes
that never come: one such client held a core at 100% until the idle timeout. The servers poll()
instead. Each daemon gets four stalled handshakes (one byte of a record header, and a whole
ClientHello never followed by the client's next flight); over the next 2 s it may use at most
0.3 s of CPU, and it still answers a real request meanwhile.

Usage: tls-stall.py BIN CERTDIR TMPDIR ROOT     Prints PASS/FAIL lines."""
import os
import socket
import ssl
import sys
import time
import urllib.request

import daemons

BIN, CERTS, TMP, ROOT = sys.argv[1:5]
VG = os.environ.get("VG", "").split()
SLOW = 10 if VG else 1
TICK = os.sysconf("SC_CLK_TCK")
result = daemons.Reporter("tls-stall")


def cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK  # utime, stime (fields 14 and 15)


def stall(port, n):
    conns = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"\x16" if i % 2 == 0 else daemons.client_hello())
        conns.append(s)
    return conns


def healthz(port):
    ctx = ssl.create_default_context(cafile=f"{CERTS}/ca.crt")
    with urllib.request.urlopen(f"https://localhost:{port}/healthz", context=ctx, timeout=5) as r:
        return r.status == 200


common = ["--listen", "127.0.0.1:0", "--tls-cert", f"{CERTS}/tls.crt", "--tls-key",
          f"{CERTS}/tls.key", "--drain-seconds", "0"]
progs = {
    "webhook": [f"{BIN}/gpupack-webhook"] + common,
    "extender": [f"{BIN}/gpupack-extender"] + common + [
        "--snapshot-nodes", f"{ROOT}/tests/extender/nodes.json",
        "--snapshot-pods", f"{ROOT}/tests/extender/pods.json"],
}
for name, cmd in progs.items():
    p, port = daemons.start(cmd, f"{TMP}/stall-{name}.log", VG, SLOW)
    try:
        conns = stall(port, 4)
        t0 = cpu_seconds(p.pid)
        time.sleep(2)
        used = cpu_seconds(p.pid) - t0
        if not VG:  # valgrind's own work would be measured too
            result(f"{name}-no-spin", used <= 0.3, f"{used:.2f} s of CPU in 2 s")
        result(f"{name}-still-serves", healthz(port))
        for s in conns:
            s.close()
    finally:
        p.kill()
        p.wait()
sys.exit(1 if result.fails else 0)
