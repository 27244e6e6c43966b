#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Routine operations under load, against the real daemons on loopback.

1. Certificate rotation the way kubelet updates a mounted Secret (files behind a ..data symlink
   that is swapped atomically) while h2load keeps 8 keep-alive connections busy and another
   client opens a new TLS connection every 20 ms: zero failed requests, and new handshakes get
   the new certificate.
2. SIGTERM under load, for both daemons: a client that follows readiness (as endpoints do) sends
   requests on keep-alive connections until /readyz says 503, and must see zero failures;
   readiness turns false at once; new connections are still accepted during the drain delay and
   refused after it; the process exits 0.

Usage: operations.py BIN TMPDIR ROOT     Prints PASS/FAIL lines."""
import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time

import daemons

BIN, TMP, ROOT = sys.argv[1:4]
REVIEW = open(os.path.join(ROOT, "tests/examples/gpu-deployment-review.json"), "rb").read()
ARGS = json.dumps({"Pod": {"metadata": {"name": "p", "namespace": "ml", "uid": "u"},
                           "spec": {"containers": [{"name": "m", "resources": {
                               "limits": {"nvidia.com/gpu": "1"}}}]}},
                   "Nodes": None, "NodeNames": ["gpu-busy", "gpu-empty"]}).encode()
result = daemons.Reporter("operations")


def certs(out):
    subprocess.run([f"{BIN}/gpupack-certs", "--service", "gpupack-webhook", "--namespace",
                    "gpupack-system", "--out", out, "--ip", "127.0.0.1", "--dns", "localhost",
                    "--force", "--log-level", "error"], check=True, stdout=subprocess.DEVNULL)


start = daemons.start


def serial_of_pem(path):
    out = subprocess.run(["openssl", "x509", "-in", path, "-noout", "-serial"], capture_output=True,
                         text=True, check=True).stdout
    return out.strip().split("=")[1].upper()


def served_serial(port, ctx):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with ctx.wrap_socket(s, server_hostname="localhost") as t:
            der = t.getpeercert(binary_form=True)
    out = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-serial"], input=der,
                         capture_output=True, check=True).stdout.decode()
    return out.strip().split("=")[1].upper()


# ---- 1. certificate rotation under load ------------------------------------------------------
def kubelet_dir(base, version, src):
    """Makes base/..VERSION with the pair and points base/..data at it (atomically)."""
    d = os.path.join(base, f"..{version}")
    os.makedirs(d)
    for f in ("tls.crt", "tls.key"):
        with open(os.path.join(src, f), "rb") as i, open(os.path.join(d, f), "wb") as o:
            o.write(i.read())
    tmp = os.path.join(base, "..data_tmp")
    os.symlink(f"..{version}", tmp)
    os.rename(tmp, os.path.join(base, "..data"))
    for f in ("tls.crt", "tls.key"):
        link = os.path.join(base, f)
        if not os.path.islink(link):
            os.symlink(os.path.join("..data", f), link)


old_dir, new_dir, mount = f"{TMP}/old", f"{TMP}/new", f"{TMP}/mount"
certs(old_dir)
certs(new_dir)
os.makedirs(mount)
kubelet_dir(mount, "v1", old_dir)
bundle = f"{TMP}/both-cas.crt"
with open(bundle, "w") as b:
    b.write(open(f"{old_dir}/ca.crt").read() + open(f"{new_dir}/ca.crt").read())
ctx = ssl.create_default_context(cafile=bundle)
wh, port = start([f"{BIN}/gpupack-webhook", "--listen", "127.0.0.1:0", "--tls-cert",
                  f"{mount}/tls.crt", "--tls-key", f"{mount}/tls.key", "--reload-interval", "200",
                  "--drain-seconds", "0", "--log-level", "info"], f"{TMP}/rotate.log")
with open(f"{TMP}/review.json", "wb") as f:
    f.write(REVIEW)
load = subprocess.Popen(["h2load", "--h1", "-D", "4", "-c", "8", "-t", "1", "-H",
                         "Content-Type: application/json", "-d", f"{TMP}/review.json",
                         f"https://127.0.0.1:{port}/mutate"], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
new_conn = {"ok": 0, "bad": 0, "serials": set()}


def handshakes(until):
    while time.monotonic() < until:
        try:
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=5)
            c.request("POST", "/mutate", body=REVIEW, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            new_conn["ok" if r.status == 200 else "bad"] += 1
            c.close()
        except (OSError, http.client.HTTPException):
            new_conn["bad"] += 1
        time.sleep(0.02)


t = threading.Thread(target=handshakes, args=(time.monotonic() + 4,))
t.start()
time.sleep(1.5)
kubelet_dir(mount, "v2", new_dir)
t.join()
out, _ = load.communicate(timeout=30)
m = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", out)
codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
# With --duration, requests still in flight when time is up count as started, not done.
ok = m and int(m.group(3)) > 100 and m.group(4) == "0" and m.group(5) == "0" and codes \
    and codes.group(2, 3, 4) == ("0", "0", "0") and int(codes.group(1)) >= int(m.group(3))
result("cert-rotation-keepalive-load-no-failures", ok,
       (m.group(0) + "; " + codes.group(0) if m and codes else out[-300:]))
result("cert-rotation-new-connections-no-failures", new_conn["bad"] == 0 and new_conn["ok"] > 20,
       f"{new_conn['ok']} ok, {new_conn['bad']} failed")
time.sleep(0.5)
want = serial_of_pem(f"{new_dir}/tls.crt")
got = served_serial(port, ctx)
result("cert-rotation-new-handshakes-get-new-cert", got == want, f"served {got}, want {want}")
wh.terminate()
wh.wait(10)


# ---- 2. SIGTERM under load ----------------------------------------------------------------------
def sigterm_case(label, cmd, conn_fn, path, body, drain):
    p, port = start(cmd, f"{TMP}/{label}-term.log")
    state = {"stop": False, "ok": 0, "bad": 0, "errors": []}

    def worker():
        c = conn_fn(port)
        while not state["stop"]:
            try:
                c.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                if r.status == 200:
                    state["ok"] += 1
                else:
                    state["bad"] += 1
                    state["errors"].append(r.status)
            except (OSError, http.client.HTTPException) as e:
                state["bad"] += 1
                state["errors"].append(repr(e))
                c = conn_fn(port)
        c.close()

    def readiness(c_fn):
        # Endpoints follow readiness: once /readyz fails, no new request is sent.
        while not state["stop"]:
            try:
                c = c_fn(port)
                c.request("GET", "/readyz")
                r = c.getresponse()
                r.read()
                c.close()
                if r.status != 200:
                    state["stop"] = True
                    state["not_ready_at"] = time.monotonic()
            except (OSError, http.client.HTTPException):
                state["stop"] = True
                state["not_ready_at"] = time.monotonic()
            time.sleep(0.05)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    threads.append(threading.Thread(target=readiness, args=(conn_fn,)))
    for th in threads:
        th.start()
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    # New connections: accepted during the drain delay, refused after it.
    accepted_until, refused_at = None, None
    while time.monotonic() - t0 < drain + 3 and refused_at is None:
        try:
            c = conn_fn(port)
            c.request("GET", "/healthz")
            c.getresponse().read()
            c.close()
            accepted_until = time.monotonic() - t0
        except (OSError, http.client.HTTPException):
            refused_at = time.monotonic() - t0
        time.sleep(0.1)
    for th in threads:
        th.join(10)
    try:
        rc = p.wait(drain + 10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
    nr = state.get("not_ready_at", t0 + 99) - t0
    result(f"{label}.sigterm-not-ready-at-once", nr < 0.5, f"readiness turned false after {nr:.2f} s")
    result(f"{label}.sigterm-readiness-following-client-no-failures",
           state["bad"] == 0 and state["ok"] > 50, f"{state['ok']} ok, {state['bad']} failed: {state['errors'][:3]}")
    result(f"{label}.sigterm-accepts-during-drain", accepted_until is not None and accepted_until >= drain - 0.3,
           f"last new connection accepted at {accepted_until} s, drain {drain} s")
    result(f"{label}.sigterm-refuses-after-drain", refused_at is not None and refused_at >= drain - 0.1,
           f"first refusal at {refused_at} s, drain {drain} s")
    result(f"{label}.sigterm-exit-0", rc == 0, f"exit {rc}")


certs(f"{TMP}/term")
tctx = ssl.create_default_context(cafile=f"{TMP}/term/ca.crt")
sigterm_case("webhook", [f"{BIN}/gpupack-webhook", "--listen", "127.0.0.1:0", "--tls-cert",
                         f"{TMP}/term/tls.crt", "--tls-key", f"{TMP}/term/tls.key",
                         "--drain-seconds", "2", "--log-level", "info"],
             lambda port: http.client.HTTPSConnection("127.0.0.1", port, context=tctx, timeout=5),
             "/mutate", REVIEW, 2)
sigterm_case("extender", [f"{BIN}/gpupack-extender", "--listen", "127.0.0.1:0", "--snapshot-nodes",
                          f"{ROOT}/tests/extender/nodes.json", "--snapshot-pods",
                          f"{ROOT}/tests/extender/pods.json", "--drain-seconds", "2",
                          "--log-level", "info"],
             lambda port: http.client.HTTPConnection("127.0.0.1", port, timeout=5),
             "/prioritize", ARGS, 2)
sys.exit(1 if result.fails else 0)
