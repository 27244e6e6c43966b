#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Bad input against the running daemons: bin/gpupack-webhook over TLS and bin/gpupack-extender
over plain HTTP, both on loopback with kernel-chosen ports.

Every case must get a clear answer: a 4xx with an error body (or, for the extender's filter, a 200
whose Error field says what is wrong; for prioritize a 400), never a 5xx, a hang, a crash, or a
mutation of a pod that was not asked for. Well-formed reviews of odd pods are answered 200
allowed. Slow and idle clients are cut off without stopping service to others. After all cases,
both daemons still answer /healthz and have not logged a sanitizer report.

Usage: badinput.py BIN CERTDIR TMPDIR ROOT     Prints PASS/FAIL lines."""
import base64
import copy
import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import time

import daemons

BIN, CERTS, TMP, ROOT = sys.argv[1:5]
VG = os.environ.get("VG", "").split()  # `make valgrind` runs the daemons under valgrind
SLOW = 10 if VG else 1                 # and everything takes longer there
REVIEW = json.load(open(os.path.join(ROOT, "tests/examples/gpu-deployment-review.json")))
result = daemons.Reporter("badinput")


def start(cmd, log):
    return daemons.start(cmd, log, VG, SLOW)


wh, WPORT = start([f"{BIN}/gpupack-webhook", "--listen", "127.0.0.1:0", "--tls-cert",
                   f"{CERTS}/tls.crt", "--tls-key", f"{CERTS}/tls.key", "--request-timeout", "2",
                   "--idle-timeout", "3", "--drain-seconds", "0", "--log-level", "debug"],
                  f"{TMP}/webhook.log")
ex, XPORT = start([f"{BIN}/gpupack-extender", "--listen", "127.0.0.1:0", "--snapshot-nodes",
                   f"{ROOT}/tests/extender/nodes.json", "--snapshot-pods",
                   f"{ROOT}/tests/extender/pods.json", "--request-timeout", "2", "--idle-timeout",
                   "3", "--drain-seconds", "0", "--log-level", "debug"], f"{TMP}/extender.log")
CTX = ssl.create_default_context(cafile=f"{CERTS}/ca.crt")


def webhook_conn():
    return http.client.HTTPSConnection("127.0.0.1", WPORT, context=CTX, timeout=10)


def extender_conn():
    return http.client.HTTPConnection("127.0.0.1", XPORT, timeout=10)


def post(conn_fn, path, body, ctype="application/json"):
    """Returns (status, parsed JSON body or None, raw body); status 0 when the exchange failed."""
    c = conn_fn()
    headers = {"Content-Type": ctype} if ctype else {}
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    try:
        c.request("POST", path, body=body, headers=headers)
        r = c.getresponse()
        raw = r.read()
    except (OSError, http.client.HTTPException) as e:
        return 0, None, repr(e).encode()
    finally:
        c.close()
    try:
        return r.status, json.loads(raw), raw
    except ValueError:
        return r.status, None, raw


def review_with(mutator):
    r = copy.deepcopy(REVIEW)
    mutator(r)
    return json.dumps(r)


def pod(r):
    return r["request"]["object"]


def patch_ops(resp):
    p = resp.get("response", {}).get("patch")
    return json.loads(base64.b64decode(p)) if p else []


def is_error_400(status, js):
    return status == 400 and isinstance(js, dict) and isinstance(js.get("error"), str) and js["error"]


def expect_400(name, body, **kw):
    st, js, raw = post(webhook_conn, "/mutate", body, **kw)
    result(f"webhook.{name}", is_error_400(st, js), f"status {st}: {raw[:200]!r}")


def expect_allowed(name, body, resources_untouched=False):
    """200 allowed with the request's uid; with resources_untouched, no patch op on resources."""
    st, js, raw = post(webhook_conn, "/mutate", body)
    ok = st == 200 and js and js["response"].get("allowed") is True and js["response"].get("uid")
    why = f"status {st}: {raw[:200]!r}"
    if ok and resources_untouched:
        touched = [o["path"] for o in patch_ops(js) if "/resources" in o["path"]]
        ok = not touched
        why = f"resources rewritten: {touched}"
    result(f"webhook.{name}", ok, why)
    return js


# ---- malformed documents --------------------------------------------------------------------
good = json.dumps(REVIEW)
expect_400("truncated", good[: len(good) // 2])
expect_400("deeply-nested-array", "[" * 100000 + "]" * 100000)
expect_400("deeply-nested-object", '{"a":' * 5000 + "1" + "}" * 5000)
expect_400("nested-beyond-64-inside-pod", review_with(lambda r: pod(r)["metadata"].__setitem__(
    "annotations", {"x": "y"}) or pod(r)["spec"].__setitem__("x", json.loads("[" * 70 + "]" * 70))))
# More values than the review's JSON memory holds (1.15 million, under the body cap): still a 400
# that says so, not a 500 without a body (the error answer is built after the pool is released).
many = json.dumps(json.loads(review_with(lambda r: pod(r)["spec"].__setitem__("x", "MANY"))),
                  separators=(",", ":")).replace('"MANY"', "[" + ",".join(["[]"] * 1150000) + "]")
if '"json_pool":"off"' in open(f"{TMP}/webhook.log").read():
    # Without the pool (AddressSanitizer builds, GPUPACK_JSON_POOL=off) cJSON allocates with
    # malloc and no 64 MiB cap applies (docs/webhook.md): the body cap bounds the review instead,
    # and it is reviewed like any other.
    expect_allowed("more-values-than-memory-without-the-pool", many)
else:
    expect_400("more-values-than-memory", many)
expect_400("duplicate-key-uid", good.replace('"uid": "', '"uid": "other", "uid": "', 1))
expect_400("duplicate-key-in-pod-labels", good.replace('"labels": {', '"labels": {"app": "a", "app": "b", ', 1))
expect_400("nul-escape", review_with(lambda r: pod(r)["metadata"].setdefault("annotations", {}).__setitem__("x", "a\u0000b")))
expect_400("invalid-utf8", good.encode().replace(b'"llm"', b'"ll\xff"', 1))
expect_400("lone-surrogate-escape", good.replace('"llm"', '"ll\\ud800"', 1))
expect_400("wrong-api-version", review_with(lambda r: r.__setitem__("apiVersion", "admission.k8s.io/v2")))
expect_400("wrong-kind", review_with(lambda r: r.__setitem__("kind", "AdmissionResponse")))
expect_400("missing-uid", review_with(lambda r: r["request"].pop("uid")))
expect_400("request-not-object", review_with(lambda r: r.__setitem__("request", "x")))
expect_400("top-level-array", "[" + good + "]")
expect_400("empty-body", "")
expect_400("json-null", "null")

# ---- wrong types everywhere: a well-formed AdmissionReview of an odd pod is admitted ---------
PATHS = {
    "object": lambda r: r["request"],
    "metadata": lambda r: pod(r),
    "labels": lambda r: pod(r)["metadata"],
    "annotations": lambda r: pod(r)["metadata"],
    "ownerReferences": lambda r: pod(r)["metadata"],
    "spec": lambda r: pod(r),
    "containers": lambda r: pod(r)["spec"],
    "initContainers": lambda r: pod(r)["spec"],
    "tolerations": lambda r: pod(r)["spec"],
    "affinity": lambda r: pod(r)["spec"],
    "priority": lambda r: pod(r)["spec"],
    "priorityClassName": lambda r: pod(r)["spec"],
    "resources": lambda r: pod(r)["spec"]["containers"][0],
    "name": lambda r: pod(r)["spec"]["containers"][0],
}
VALUES = [None, 1, -1.5, "s", [], {}, True, [1, "x", None], {"k": [1]}]
bad_types = []
for key, parent in PATHS.items():
    for v in VALUES:
        body = review_with(lambda r, p=parent, k=key, v=v: p(r).__setitem__(k, v))
        st, js, raw = post(webhook_conn, "/mutate", body)
        if key == "object" and not isinstance(v, dict):
            # a Pod CREATE without a pod: admitted unchanged, and said so (fail-open decode)
            ok = (st == 200 and js["response"]["allowed"] is True and "patch" not in js["response"]
                  and any("request.object: missing, null or not an object" in w
                          for w in js["response"].get("warnings", [])))
        else:
            ok = st == 200 and js["response"]["allowed"] is True
        if not ok:
            bad_types.append(f"{key}={v!r}: {st} {raw[:120]!r}")
result("webhook.wrong-types-everywhere-admitted", not bad_types, "; ".join(bad_types[:5]))

# ---- big and extreme values -------------------------------------------------------------------
expect_allowed("huge-label-value", review_with(lambda r: pod(r)["metadata"]["labels"].__setitem__("big", "x" * 3_000_000)))
expect_allowed("huge-tolerations-array", review_with(lambda r: pod(r)["spec"].__setitem__(
    "tolerations", [{"key": f"k{i}", "operator": "Exists"} for i in range(60_000)])))
expect_allowed("many-containers", review_with(lambda r: pod(r)["spec"].__setitem__(
    "containers", [{"name": f"c{i}", "image": "x"} for i in range(20_000)])))
# User text that gpupack quotes in a warning or carries over into gpupack.io/mutated is cut by
# bytes; a cut never splits a character (the answer and the patch stay UTF-8, which
# expect_allowed() and patch_ops() decode strictly), and what is carried over is kept whole up to
# its first 1,000 bytes.
js = expect_allowed("cut-text-stays-utf8-in-warnings", review_with(lambda r: pod(r)["metadata"]
                    ["annotations"].__setitem__("gpupack.io/gpu-memory", "a" + "\u00e9" * 40)))
warns = (js or {}).get("response", {}).get("warnings", [])
result("webhook.cut-text-warning-quoted", any("gpu-memory \"a\u00e9" in w for w in warns), f"{warns}")
js = expect_allowed("cut-text-stays-utf8-when-failing-open", review_with(
    lambda r: pod(r)["spec"]["containers"][0]["resources"]["limits"].__setitem__("x" + "\u00e9" * 100, "bogus")))
warns = (js or {}).get("response", {}).get("warnings", [])
result("webhook.cut-text-fail-open-warning", any("could not process this pod" in w for w in warns), f"{warns}")
js = expect_allowed("cut-text-stays-utf8-in-patch", review_with(lambda r: pod(r)["metadata"]
                    ["annotations"].__setitem__("gpupack.io/mutated", "a" + "\u00e9" * 600)))
try:
    mutated = [o["value"] for o in patch_ops(js or {}) if o["path"].endswith("gpupack.io~1mutated")]
except ValueError as e:
    mutated = [f"patch not UTF-8 JSON: {e}"]
result("webhook.cut-text-carried-over", len(mutated) == 1 and
       mutated[0].startswith("a" + "\u00e9" * 499 + "; "), f"{[m[:40] + '...' + m[990:1010] for m in mutated]}")
for name, val in (("2^53+1", "9007199254740993"), ("1e308", "1e308"), ("-1e308", "-1e308"),
                  ("1e999", "1e999"), ("huge-int", "1" + "0" * 400)):
    # The numbers go in as text: Python would round them on the way.
    body = review_with(lambda r: pod(r)["spec"].update(activeDeadlineSeconds="@N@", priority="@N@")
                       or pod(r)["spec"]["tolerations"].append(
                           {"key": "k", "operator": "Exists", "effect": "NoExecute",
                            "tolerationSeconds": "@N@"}))
    expect_allowed(f"number-{name}", body.replace('"@N@"', val))
for q in ("1e18", "-1", "99999999999999999999Ei", "NaN", "Infinity", "0x10", "1.5", "", " 1", "1 ", "1e-999"):
    def set_q(r, q=q):
        c = pod(r)["spec"]["containers"][0]["resources"]
        c["limits"]["nvidia.com/gpu"] = q
        c["requests"]["nvidia.com/gpu"] = q
    expect_allowed(f"absurd-gpu-quantity-{q or 'empty'}", review_with(set_q), resources_untouched=True)
expect_allowed("absurd-memory-hint", review_with(lambda r: pod(r)["metadata"]["annotations"].__setitem__(
    "gpupack.io/gpu-memory", "1e30Ei")), resources_untouched=True)

# ---- transport: size cap, content types --------------------------------------------------------
def announced_too_big(tls, path, length):
    """Announces a body over the cap and sends a little of it: the answer comes at once."""
    s = socket.create_connection(("127.0.0.1", WPORT if tls else XPORT), timeout=10)
    if tls:
        s = CTX.wrap_socket(s, server_hostname="localhost")
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              f"Content-Length: {length}\r\n\r\n{{".encode())
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return data.split(b" ")[1].decode() if data.startswith(b"HTTP/1.1 ") else data[:80]


result("webhook.over-the-cap-413", announced_too_big(True, "/mutate", 4 << 20) == "413", "not 413")
for ct in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx", None):
    st, js, raw = post(webhook_conn, "/mutate", good, ctype=ct)
    result(f"webhook.content-type-{ct}-415", st == 415, f"status {st}")

# ---- the extender --------------------------------------------------------------------------------
ARGS = {"Pod": {"metadata": {"name": "p", "namespace": "ml", "uid": "u1"},
                "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}},
        "Nodes": None, "NodeNames": ["gpu-busy", "gpu-empty", "cpu-1"]}
ga = json.dumps(ARGS)
ext_cases = {
    "truncated": ga[: len(ga) // 2],
    "deeply-nested": "[" * 100000 + "]" * 100000,
    "duplicate-key": ga.replace('"Pod": {', '"Pod": {"spec": {}, ', 1),
    "nul-escape": ga.replace('"p"', '"p\\u0000"', 1),
    "invalid-utf8": ga.encode().replace(b'"p"', b'"\xc3\x28"', 1),
    "no-pod": json.dumps({"NodeNames": ["a"]}),
    "pod-not-object": json.dumps({"Pod": [], "NodeNames": ["a"]}),
    "names-not-strings": json.dumps({**ARGS, "NodeNames": [1, None, {}]}),
    "nodes-wrong-type": json.dumps({**ARGS, "NodeNames": None, "Nodes": {"items": "x"}}),
    "huge-name-list": json.dumps({**ARGS, "NodeNames": [f"n{i}" for i in range(200_000)]}),
    "empty": "",
}
for name, body in ext_cases.items():
    st, js, raw = post(extender_conn, "/filter", body)
    ok = st == 200 and isinstance(js, dict) and isinstance(js.get("Error"), str)
    if name != "huge-name-list":
        ok = ok and js["Error"] != ""
    result(f"extender.filter-{name}", ok, f"status {st}: {raw[:160]!r}")
    st, js, raw = post(extender_conn, "/prioritize", body)
    if name in ("huge-name-list", "names-not-strings"):
        ok = st in (200, 400) and js is not None
    else:
        ok = st == 400 and isinstance(js, dict) and js.get("error")
    result(f"extender.prioritize-{name}", ok, f"status {st}: {raw[:160]!r}")
for q in ("1e18", "-1", "NaN", "99999999999999999999Ei"):
    a = copy.deepcopy(ARGS)
    a["Pod"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = q
    st, js, raw = post(extender_conn, "/prioritize", json.dumps(a))
    ok = st in (200, 400) and js is not None and (st != 200 or all(0 <= h["Score"] <= 10 for h in js))
    result(f"extender.absurd-quantity-{q}", ok, f"status {st}: {raw[:160]!r}")
result("extender.over-the-cap-413", announced_too_big(False, "/filter", 200 << 20) == "413", "not 413")
st, js, raw = post(extender_conn, "/filter", ga, ctype="text/plain")
result("extender.content-type-415", st == 415, f"status {st}")


# ---- slow and idle clients ---------------------------------------------------------------------
def raw_conn(tls):
    s = socket.create_connection(("127.0.0.1", WPORT if tls else XPORT), timeout=10)
    return CTX.wrap_socket(s, server_hostname="localhost") if tls else s


def closed_within(s, seconds):
    """True when the server closes s (EOF or reset, after an answer or none) within seconds."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            s.settimeout(max(0.01, end - time.monotonic()))
            if s.recv(4096) == b"":
                return True
    except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def quick_healthz(conn_fn, limit=1.0 * SLOW):
    t = time.monotonic()
    c = conn_fn()
    c.request("GET", "/healthz")
    ok = c.getresponse().status == 200
    c.close()
    return ok and time.monotonic() - t < limit


for tls, label in ((True, "webhook"), (False, "extender")):
    # Slowloris: 40 clients trickling headers, 40 trickling a body; the server cuts each off
    # within its timeouts and answers others at once meanwhile.
    slow = []
    route = b"/mutate" if tls else b"/filter"
    for i in range(80):
        s = raw_conn(tls)
        if i % 2:
            s.sendall(b"POST " + route + b" HTTP/1.1\r\nHost: x\r\n")
        else:
            s.sendall(b"POST " + route + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n{")
        slow.append(s)
    conn_fn = webhook_conn if tls else extender_conn
    result(f"{label}.serves-during-slowloris", quick_healthz(conn_fn), "a normal request was slow or failed")
    for s in slow:
        try:
            s.sendall(b"x")
        except OSError:
            pass
    cut = sum(closed_within(s, 6) for s in slow)
    result(f"{label}.slowloris-cut-off", cut == len(slow), f"{cut} of {len(slow)} closed within the timeouts")
    for s in slow:
        s.close()
    # Many idle connections: 300 open and silent; service goes on.
    idle = [raw_conn(tls) for _ in range(300)]
    result(f"{label}.serves-with-300-idle-connections", quick_healthz(conn_fn), "a normal request was slow or failed")
    cut = sum(closed_within(s, 6) for s in idle)
    result(f"{label}.idle-connections-closed", cut == len(idle), f"{cut} of {len(idle)} closed")
    for s in idle:
        s.close()

# ---- what the logs may hold: no pod secrets or environment values; bounded lines -----------------
SECRET = "S3CR3T-9f8e7d6c5b4a"


def with_secrets(r):
    p = pod(r)
    c = p["spec"]["containers"][0]
    c["env"] = [{"name": "API_KEY", "value": SECRET}, {"name": "FROM", "valueFrom": {
        "secretKeyRef": {"name": "creds", "key": SECRET}}}]
    c["args"] = ["--token", SECRET]
    c["command"] = ["run", SECRET]
    p["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = SECRET * 50
    p["metadata"]["annotations"]["gpupack.io/gpu-memory"] = SECRET  # a bad hint quoted back?
    p["spec"]["volumes"] = [{"name": "s", "secret": {"secretName": SECRET}}]


expect_allowed("secrets-in-pod", review_with(with_secrets))
a = copy.deepcopy(ARGS)
a["Pod"]["spec"]["containers"][0]["env"] = [{"name": "API_KEY", "value": SECRET}]
post(extender_conn, "/prioritize", json.dumps(a))
post(extender_conn, "/filter", json.dumps(a))
time.sleep(0.3)
for label in ("webhook", "extender"):
    lines = open(f"{TMP}/{label}.log", "rb").read().splitlines()
    leaked = [l[:120] for l in lines if SECRET.encode() in l]
    long_lines = [len(l) for l in lines if len(l) > 4096]
    not_json = []
    for l in lines:
        try:
            json.loads(l)
        except ValueError:
            not_json.append(l[:80])
    result(f"{label}.logs-hold-no-secrets", not leaked, f"{len(leaked)} lines: {leaked[:2]}")
    result(f"{label}.log-lines-bounded-json", lines and not long_lines and not not_json,
           f"{len(lines)} lines; over 4096 bytes: {long_lines[:3]}; not JSON: {not_json[:2]}")

# ---- afterwards: both alive, no sanitizer report ---------------------------------------------------
result("daemons-alive", wh.poll() is None and ex.poll() is None and quick_healthz(webhook_conn)
       and quick_healthz(extender_conn), f"webhook {wh.poll()}, extender {ex.poll()}")
logs = open(f"{TMP}/webhook.log").read() + open(f"{TMP}/extender.log").read()
result("no-sanitizer-reports", "Sanitizer" not in logs and "runtime error" not in logs,
       [l for l in logs.splitlines() if "Sanitizer" in l or "runtime error" in l][:2])
for name, p in (("webhook", wh), ("extender", ex)):
    p.terminate()
    try:
        rc = p.wait(10 * SLOW)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
    # Exit 0 also says: no leak at exit (LeakSanitizer, valgrind's --error-exitcode).
    result(f"{name}.clean-exit", rc == 0, f"exit {rc}")
sys.exit(1 if result.fails else 0)
