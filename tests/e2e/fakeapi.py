#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fake Kubernetes API server for gpupack's tests (Python 3 standard library only).

It serves Nodes and Pods the way kube-apiserver does for list+watch clients, plus a control API
that changes the objects and injects faults, so a test can prove a client's cache stays right.

CLI
    python3 tests/e2e/fakeapi.py --port-file F [--nodes FILE] [--pods FILE]
        [--tls-cert C --tls-key K] [--client-ca CA] [--token T] [--die-with-parent] [--verbose]

    Binds 127.0.0.1 on a free port and writes the port number to F (atomically: the file appears
    complete, so poll until it exists). --nodes/--pods: initial objects, a List JSON (the output
    of `kubectl get nodes -o json`) or a JSON array; each gets a resourceVersion, in file order.
    --tls-cert/--tls-key: serve HTTPS (PEM). --client-ca: require client certificates signed by
    CA. --token T: API routes need `Authorization: Bearer T` (401 otherwise); the control routes
    never need it. --die-with-parent: exit when the parent process dies (for shell tests).
    Stop it with SIGTERM.

API (what a client sees)
    GET /api/v1/nodes, /api/v1/pods, /api/v1/namespaces/NS/pods
        A List: {"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"N",
        "continue":"..."},"items":[...]} sorted by namespace/name. limit=N pages the result;
        continue=T serves the next page from the same snapshot (410 Expired once the snapshot is
        older than the history, e.g. after "compact"). fieldSelector: comma-separated
        `path=value`, `path==value`, `path!=value` over any dotted field (spec.nodeName,
        status.phase, metadata.name, metadata.namespace, spec.unschedulable ...); a missing
        field is "". Every object carries metadata.resourceVersion; one global counter orders
        all changes to all kinds, as in etcd.
    GET ...?watch=1&resourceVersion=RV[&allowWatchBookmarks=true][&timeoutSeconds=N]
        HTTP/1.1 chunked stream, one JSON event per line: {"type":"ADDED|MODIFIED|DELETED",
        "object":{...}}, every change after RV (from the history, then live). RV older than the
        history: an in-stream {"type":"ERROR","object":{"kind":"Status","code":410,...}} and the
        stream ends. RV "" or "0": live changes only. With a fieldSelector, an object that stops
        matching is sent as DELETED and one that starts matching as ADDED, as the API server
        does. The stream ends cleanly after timeoutSeconds (default 1800).
    GET /api/v1/namespaces/NS/configmaps/NAME, POST /api/v1/namespaces/NS/configmaps,
    PUT /api/v1/namespaces/NS/configmaps/NAME
        ConfigMaps as the API server keeps them (no list or watch): a POST of an existing one is
        409 AlreadyExists; a PUT must carry the stored metadata.resourceVersion (409 Conflict
        otherwise), gets a new one and keeps uid and creationTimestamp; a missing one is 404.
        Every ConfigMap request counts in stats "configmaps" (method and path, in order).
        PATCH and DELETE (anywhere) are refused with 405 and recorded in stats "other_writes".
    Other paths: 404 with a Status body.

Control API (no authentication; JSON in, JSON out)
    POST /_control/apply {"kind":"nodes|pods","type":"ADDED|MODIFIED|DELETED","object":{...}}
        Changes one object (pods are keyed by namespace/name, namespace "default" if absent),
        assigns it the next resourceVersion and streams it to open watches. type omitted:
        ADDED if new, else MODIFIED. ADDED of an existing object: 409; MODIFIED or DELETED of a
        missing one: 404 (DELETED needs only metadata.name/namespace). A JSON array of such
        objects applies them in order. Answers {"resourceVersion":"N"} (the last one).
    POST /_control/fault {"fault":NAME, ...}; an optional "kind" limits watch faults to one
        resource:
        drop-watches             end open watch streams (cleanly; "abrupt":true resets the TCP
                                 connection instead)
        gone-in-stream           send an ERROR 410 event on open watches, end them, and forget
                                 the history (so the old resourceVersion stays too old)
        gone-http  count=N       the next N watch requests get HTTP 410
        fail-lists count=N status=S   the next N list requests get HTTP S (default 500)
        bad-json-lists count=N   the next N list requests get HTTP 200 with a body that is
                                 not JSON
        slow       ms=M          delay every API response by M ms (0 turns it off)
        bookmark                 send a BOOKMARK with the current resourceVersion on open
                                 watches that allowed bookmarks
        compact                  forget the history and the list snapshots: older
                                 resourceVersions and continue tokens get 410
        configmap-conflicts count=N   the next N ConfigMap PUTs find the object changed just
                                 before them (another writer: data key "edited-by" set and a new
                                 resourceVersion), so they get 409 as the API server would
        configmap-fail count=N status=S   the next N ConfigMap requests get HTTP S (default 500)
    GET /_control/configmap/NS/NAME  the stored ConfigMap (404 when none), unaffected by faults
        garbage                  send a line that is not JSON on open watches
        error-in-stream code=C   send an ERROR Status event with code C (default 500) on
                                 open watches and end them
        reset                    clear pending gone-http, fail-lists, bad-json-lists, slow
    GET  /_control/stats    {"rv":N,"floor":N,"lists":{"nodes":N,"pods":N} (first pages only),
                            "list_pages":{...},"watches":{...} (watch requests),
                            "open_watches":{...},"unauthorized":N,"gone_http_sent":N,
                            "failed_lists_sent":N (fail-lists and bad-json-lists),"objects":{...},"last_request":{kind:{"query":
                            "...","user_agent":"...","accept":"..."}}}
    GET  /_control/list/nodes|pods[?fieldSelector=S][&namespace=NS]
                            the current objects as a List, like the API's but not counted in
                            the stats and not affected by faults (the truth a cache should hold)
    GET  /_control/token    {"token":T or null}
    POST /_control/token {"token":"new"}   change the accepted token (null: no authentication)
"""

import argparse
import copy
import json
import os
import select
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

KINDS = {"nodes": ("Node", "NodeList"), "pods": ("Pod", "PodList")}
MAX_BODY = 16 * 1024 * 1024
MAX_SNAPSHOTS = 64
DEFAULT_WATCH_TIMEOUT = 1800


def status_body(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


def obj_key(kind, obj):
    meta = obj.get("metadata") or {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("object.metadata.name is required")
    if kind == "pods":
        ns = meta.get("namespace") or "default"
        meta["namespace"] = ns
        return ns + "/" + name
    return name


def field_value(obj, path):
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return ""
        cur = cur[part]
    if isinstance(cur, bool):
        return "true" if cur else "false"
    if cur is None:
        return ""
    return str(cur)


def parse_selector(text):
    """[(path, op, value)], op '=' or '!='. Raises ValueError."""
    terms = []
    if not text:
        return terms
    for term in text.split(","):
        term = term.strip()
        if not term:
            continue
        if "!=" in term:
            path, value = term.split("!=", 1)
            op = "!="
        elif "==" in term:
            path, value = term.split("==", 1)
            op = "="
        elif "=" in term:
            path, value = term.split("=", 1)
            op = "="
        else:
            raise ValueError("invalid field selector term %r" % term)
        if not path:
            raise ValueError("invalid field selector term %r" % term)
        terms.append((path.strip(), op, value.strip()))
    return terms


def matches(terms, obj, namespace=None):
    if obj is None:
        return False
    if namespace is not None and field_value(obj, "metadata.namespace") != namespace:
        return False
    for path, op, value in terms:
        got = field_value(obj, path)
        if (got == value) != (op == "="):
            return False
    return True


def event_line(etype, obj):
    return (json.dumps({"type": etype, "object": obj}, separators=(",", ":")) + "\n").encode()


class Watch:
    def __init__(self, kind, terms, namespace, bookmarks):
        self.kind = kind
        self.terms = terms
        self.namespace = namespace
        self.bookmarks = bookmarks
        self.queue = []
        self.closed = None  # None, "clean" or "abrupt"

    def translate(self, etype, old, new):
        """The event this watch sees for a change, or None (field selectors)."""
        was = matches(self.terms, old, self.namespace)
        now = matches(self.terms, new, self.namespace)
        if etype == "DELETED":
            return event_line("DELETED", new) if was else None
        if was and now:
            return event_line("MODIFIED", new)
        if now:
            return event_line("ADDED", new)
        if was:
            return event_line("DELETED", new)
        return None


class State:
    def __init__(self):
        self.cond = threading.Condition()
        self.rv = 0
        self.floor = 0
        self.objects = {k: {} for k in KINDS}
        self.history = []  # (rv, kind, type, old, new)
        self.watches = []
        self.snapshots = {}  # id -> (rv, items)
        self.next_snapshot = 1
        self.gone_http = 0
        self.fail_lists = 0
        self.fail_status = 500
        self.bad_json_lists = 0
        self.slow_ms = 0
        self.token = None
        self.configmaps = {}  # "ns/name" -> object
        self.cm_conflicts = 0
        self.cm_fail = 0
        self.cm_fail_status = 500
        self.stats = {"configmaps": [], "other_writes": [], "lists": {k: 0 for k in KINDS}, "list_pages": {k: 0 for k in KINDS},
                      "watches": {k: 0 for k in KINDS}, "unauthorized": 0,
                      "gone_http_sent": 0, "failed_lists_sent": 0, "last_request": {}}

    # All methods below run with self.cond held.

    def configmap(self, method, ns, name, body):
        key = "%s/%s" % (ns, name)
        if method == "GET":
            obj = self.configmaps.get(key)
            if obj is None:
                return 404, status_body(404, "NotFound",
                                        'configmaps "%s" not found' % name)
            return 200, obj
        if not isinstance(body, dict) or body.get("kind") != "ConfigMap":
            return 400, status_body(400, "BadRequest", "want a ConfigMap")
        md = body.get("metadata") or {}
        if method == "POST":
            name = md.get("name")
            key = "%s/%s" % (ns, name)
            if key in self.configmaps:
                return 409, status_body(409, "AlreadyExists",
                                        'configmaps "%s" already exists' % name)
            self.rv += 1
            md = dict(md, namespace=ns, resourceVersion=str(self.rv), uid="uid-%d" % self.rv,
                      creationTimestamp="2026-12-04T00:00:00Z")
            self.configmaps[key] = dict(body, metadata=md)
            return 201, self.configmaps[key]
        cur = self.configmaps.get(key)
        if cur is None:
            return 404, status_body(404, "NotFound", 'configmaps "%s" not found' % name)
        if self.cm_conflicts > 0:  # another writer got there first
            self.cm_conflicts -= 1
            self.rv += 1
            cur["data"] = dict(cur.get("data") or {}, **{"edited-by": "someone-else"})
            cur["metadata"]["resourceVersion"] = str(self.rv)
        if md.get("resourceVersion") != cur["metadata"]["resourceVersion"]:
            return 409, status_body(409, "Conflict",
                                    'Operation cannot be fulfilled on configmaps "%s": the '
                                    'object has been modified; please apply your changes to '
                                    'the latest version and try again' % name)
        self.rv += 1
        md = dict(md, resourceVersion=str(self.rv), uid=cur["metadata"].get("uid"),
                  creationTimestamp=cur["metadata"].get("creationTimestamp"))
        self.configmaps[key] = dict(body, metadata=md)
        return 200, self.configmaps[key]

    def apply(self, kind, etype, obj):
        if kind not in KINDS:
            return 400, {"error": "kind must be nodes or pods"}
        if not isinstance(obj, dict):
            return 400, {"error": "object must be a JSON object"}
        obj = copy.deepcopy(obj)
        try:
            key = obj_key(kind, obj)
        except ValueError as e:
            return 400, {"error": str(e)}
        old = self.objects[kind].get(key)
        if etype is None:
            etype = "MODIFIED" if old is not None else "ADDED"
        if etype not in ("ADDED", "MODIFIED", "DELETED"):
            return 400, {"error": "type must be ADDED, MODIFIED or DELETED"}
        if etype == "ADDED" and old is not None:
            return 409, {"error": "%s %s exists" % (kind, key)}
        if etype != "ADDED" and old is None:
            return 404, {"error": "%s %s not found" % (kind, key)}
        self.rv += 1
        new = copy.deepcopy(old) if etype == "DELETED" else obj
        meta = new.setdefault("metadata", {})
        meta["resourceVersion"] = str(self.rv)
        meta.setdefault("uid", "uid-%s-%s" % (kind, key.replace("/", "-")))
        if "kind" not in new:
            new["kind"] = KINDS[kind][0]
            new["apiVersion"] = "v1"
        if etype == "DELETED":
            del self.objects[kind][key]
        else:
            self.objects[kind][key] = new
        self.history.append((self.rv, kind, etype, old, new))
        for w in self.watches:
            if w.kind == kind and w.closed is None:
                line = w.translate(etype, old, new)
                if line:
                    w.queue.append(line)
        self.cond.notify_all()
        return 200, {"resourceVersion": str(self.rv)}

    def compact(self):
        self.floor = self.rv
        self.history = []
        self.snapshots = {}

    def open_watches(self, kind):
        return [w for w in self.watches if w.closed is None and (kind is None or w.kind == kind)]

    def fault(self, req):
        name = req.get("fault")
        if name == "configmap-conflicts":
            self.cm_conflicts = int(req.get("count", 1))
            return 200, {"fault": name}
        if name == "configmap-fail":
            self.cm_fail = int(req.get("count", 1))
            self.cm_fail_status = int(req.get("status", 500))
            return 200, {"fault": name}
        kind = req.get("kind")
        if name == "drop-watches":
            for w in self.open_watches(kind):
                w.closed = "abrupt" if req.get("abrupt") else "clean"
        elif name == "gone-in-stream":
            for w in self.open_watches(kind):
                msg = "too old resource version: %d (%d)" % (self.floor, self.rv)
                w.queue.append(event_line("ERROR", status_body(410, "Expired", msg)))
                w.closed = "clean"
            self.compact()
        elif name == "gone-http":
            self.gone_http = int(req.get("count", 1))
        elif name == "fail-lists":
            self.fail_lists = int(req.get("count", 1))
            self.fail_status = int(req.get("status", 500))
        elif name == "bad-json-lists":
            self.bad_json_lists = int(req.get("count", 1))
        elif name == "slow":
            self.slow_ms = int(req.get("ms", 0))
        elif name == "bookmark":
            for w in self.open_watches(kind):
                if w.bookmarks:
                    obj = {"kind": KINDS[w.kind][0], "apiVersion": "v1",
                           "metadata": {"resourceVersion": str(self.rv)}}
                    w.queue.append(event_line("BOOKMARK", obj))
        elif name == "compact":
            self.compact()
        elif name == "garbage":
            for w in self.open_watches(kind):
                w.queue.append(b"this is not JSON\n")
        elif name == "error-in-stream":
            code = int(req.get("code", 500))
            for w in self.open_watches(kind):
                w.queue.append(event_line("ERROR", status_body(code, "InternalError",
                                                               "injected watch error")))
                w.closed = "clean"
        elif name == "reset":
            self.gone_http = self.fail_lists = self.bad_json_lists = self.slow_ms = 0
        else:
            return 400, {"error": "unknown fault %r" % name}
        self.cond.notify_all()
        return 200, {"ok": True, "rv": str(self.rv)}

    def stats_json(self):
        s = copy.deepcopy(self.stats)
        s["rv"] = self.rv
        s["floor"] = self.floor
        s["open_watches"] = {k: len(self.open_watches(k)) for k in KINDS}
        s["objects"] = {k: len(v) for k, v in self.objects.items()}
        return s

    def snapshot(self, kind, terms, namespace):
        items = [copy.deepcopy(o) for _, o in sorted(self.objects[kind].items())
                 if matches(terms, o, namespace)]
        sid = self.next_snapshot
        self.next_snapshot += 1
        self.snapshots[sid] = (self.rv, items)
        while len(self.snapshots) > MAX_SNAPSHOTS:
            del self.snapshots[min(self.snapshots)]
        return sid


STATE = State()
VERBOSE = False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakeapi/1"

    def log_message(self, fmt, *args):
        if VERBOSE:
            sys.stderr.write("fakeapi: " + (fmt % args) + "\n")

    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        super().setup()

    # ---- plumbing ----

    def send_json(self, code, body, extra_headers=None):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def read_json(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n < 0 or n > MAX_BODY:
            raise ValueError("body too large")
        raw = self.rfile.read(n) if n else b""
        return json.loads(raw or b"null")

    def authorized(self):
        with STATE.cond:
            token = STATE.token
        if token is None:
            return True
        if self.headers.get("Authorization", "") == "Bearer " + token:
            return True
        with STATE.cond:
            STATE.stats["unauthorized"] += 1
        self.send_json(401, status_body(401, "Unauthorized", "Unauthorized"))
        return False

    # ---- routes ----

    def configmap(self, method, path):
        """ConfigMap GET/POST/PUT under /api/v1/namespaces/NS/configmaps; False if not one."""
        parts = path.strip("/").split("/")
        if not (len(parts) in (5, 6) and parts[:3] == ["api", "v1", "namespaces"]
                and parts[4] == "configmaps"):
            return False
        if not self.authorized():
            return True
        ns, name = parts[3], parts[5] if len(parts) == 6 else None
        body = None
        if method in ("POST", "PUT"):
            try:
                body = self.read_json()
            except (ValueError, json.JSONDecodeError) as e:
                self.send_json(400, status_body(400, "BadRequest", "bad JSON: %s" % e))
                return True
        with STATE.cond:
            STATE.stats["configmaps"].append({"method": method, "path": path})
            if STATE.cm_fail > 0:
                STATE.cm_fail -= 1
                code = STATE.cm_fail_status
                self.send_json(code, status_body(code, "InternalError", "injected failure"))
                return True
            code, out = STATE.configmap(method, ns, name, body)
        self.send_json(code, out)
        return True

    def refuse(self, method):
        """PATCH and DELETE: recorded in the stats' "other_writes" and refused (405)."""
        with STATE.cond:
            STATE.stats["other_writes"].append({"method": method,
                                                "path": urlsplit(self.path).path})
        self.send_json(405, status_body(405, "MethodNotAllowed",
                                        "the fake API does not serve %s" % method))

    def do_PATCH(self):
        self.refuse("PATCH")

    def do_DELETE(self):
        self.refuse("DELETE")

    def do_PUT(self):
        path = urlsplit(self.path).path
        if not self.configmap("PUT", path):
            self.send_json(404, status_body(404, "NotFound", "no such route"))

    def do_POST(self):
        path = urlsplit(self.path).path
        if self.configmap("POST", path):
            return
        try:
            req = self.read_json()
        except (ValueError, json.JSONDecodeError) as e:
            self.send_json(400, {"error": "bad JSON: %s" % e})
            return
        with STATE.cond:
            if path == "/_control/apply":
                code, body = 200, {}
                for one in req if isinstance(req, list) else [req]:
                    if not isinstance(one, dict):
                        code, body = 400, {"error": "expected an object"}
                        break
                    code, body = STATE.apply(one.get("kind"), one.get("type"), one.get("object"))
                    if code != 200:
                        break
            elif path == "/_control/fault" and isinstance(req, dict):
                try:
                    code, body = STATE.fault(req)
                except (TypeError, ValueError) as e:
                    code, body = 400, {"error": str(e)}
            elif path == "/_control/token" and isinstance(req, dict):
                STATE.token = req.get("token")
                code, body = 200, {"token": STATE.token}
            else:
                code, body = 404, {"error": "no such control route"}
        self.send_json(code, body)

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path.startswith("/_control/configmap/"):
            with STATE.cond:
                obj = STATE.configmaps.get(url.path[len("/_control/configmap/"):])
            self.send_json(200 if obj else 404, obj or {"error": "no such configmap"})
            return
        if self.configmap("GET", url.path):
            return
        if url.path == "/_control/stats":
            with STATE.cond:
                body = STATE.stats_json()
            self.send_json(200, body)
            return
        if url.path == "/_control/token":
            with STATE.cond:
                body = {"token": STATE.token}
            self.send_json(200, body)
            return
        if url.path.startswith("/_control/list/"):
            self.truth(url.path[len("/_control/list/"):], url.query)
            return
        kind, namespace = self.route(url.path)
        if kind is None:
            self.send_json(404, status_body(404, "NotFound", "the server could not find the "
                                            "requested resource"))
            return
        with STATE.cond:
            slow = STATE.slow_ms
        if slow:
            time.sleep(slow / 1000.0)
        if not self.authorized():
            return
        q = parse_qs(url.query, keep_blank_values=True)
        with STATE.cond:
            STATE.stats["last_request"][kind] = {
                "query": url.query, "user_agent": self.headers.get("User-Agent", ""),
                "accept": self.headers.get("Accept", "")}
        try:
            terms = parse_selector(q.get("fieldSelector", [""])[0])
        except ValueError as e:
            self.send_json(400, status_body(400, "BadRequest", str(e)))
            return
        if q.get("watch", [""])[0] in ("1", "true"):
            self.watch(kind, namespace, terms, q)
        else:
            self.list(kind, namespace, terms, q)

    @staticmethod
    def route(path):
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[:2] == ["api", "v1"] and parts[2] in KINDS:
            return parts[2], None
        if len(parts) == 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
            return "pods", parts[3]
        return None, None

    def truth(self, kind, query):
        """The current objects, uncounted and unaffected by faults: what a cache should hold."""
        if kind not in KINDS:
            self.send_json(404, {"error": "kind must be nodes or pods"})
            return
        q = parse_qs(query, keep_blank_values=True)
        try:
            terms = parse_selector(q.get("fieldSelector", [""])[0])
        except ValueError as e:
            self.send_json(400, status_body(400, "BadRequest", str(e)))
            return
        with STATE.cond:
            items = [copy.deepcopy(o) for _, o in sorted(STATE.objects[kind].items())
                     if matches(terms, o, q.get("namespace", [None])[0])]
            body = {"kind": KINDS[kind][1], "apiVersion": "v1",
                    "metadata": {"resourceVersion": str(STATE.rv)}, "items": items}
        self.send_json(200, body)

    def list(self, kind, namespace, terms, q):
        try:
            limit = int(q.get("limit", ["0"])[0] or 0)
        except ValueError:
            self.send_json(400, status_body(400, "BadRequest", "limit is not a number"))
            return
        with STATE.cond:
            bad = STATE.bad_json_lists > 0
            if bad:
                STATE.bad_json_lists -= 1
                STATE.stats["failed_lists_sent"] += 1
            else:
                code, body = self.list_locked(kind, namespace, terms, limit,
                                              q.get("continue", [""])[0])
        if bad:
            data = b'{"kind": "NodeList", "items": [ truncated'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_json(code, body)

    @staticmethod
    def list_locked(kind, namespace, terms, limit, cont):
        if STATE.fail_lists > 0:
            STATE.fail_lists -= 1
            STATE.stats["failed_lists_sent"] += 1
            code = STATE.fail_status
            return code, status_body(code, "InternalError", "injected list failure")
        if cont:
            try:
                sid, offset = (int(x) for x in cont.split("-", 1))
            except ValueError:
                return 400, status_body(400, "BadRequest", "bad continue token")
            snap = STATE.snapshots.get(sid)
            if snap is None or snap[0] < STATE.floor:
                return 410, status_body(
                    410, "Expired", "The provided continue parameter is too old to display a "
                    "consistent list result. You can start a new list without the continue "
                    "parameter.")
        else:
            sid, offset = STATE.snapshot(kind, terms, namespace), 0
            STATE.stats["lists"][kind] += 1
            snap = STATE.snapshots[sid]
        STATE.stats["list_pages"][kind] += 1
        rv, items = snap
        end = offset + limit if limit > 0 else len(items)
        meta = {"resourceVersion": str(rv)}
        if end < len(items):
            meta["continue"] = "%d-%d" % (sid, end)
            meta["remainingItemCount"] = len(items) - end
        else:
            STATE.snapshots.pop(sid, None)
        return 200, {"kind": KINDS[kind][1], "apiVersion": "v1", "metadata": meta,
                     "items": items[offset:end]}

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def client_gone(self):
        """A plain-socket client that closed its end (TLS clients are noticed on write)."""
        sock = self.connection
        if isinstance(sock, ssl.SSLSocket):
            return False
        try:
            r, _, _ = select.select([sock], [], [], 0)
            return bool(r) and sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def watch(self, kind, namespace, terms, q):
        rv_param = q.get("resourceVersion", [""])[0]
        try:
            timeout = int(q.get("timeoutSeconds", [str(DEFAULT_WATCH_TIMEOUT)])[0])
            since = int(rv_param) if rv_param not in ("", "0") else None
        except ValueError:
            self.send_json(400, status_body(400, "BadRequest", "bad resourceVersion or timeout"))
            return
        bookmarks = q.get("allowWatchBookmarks", [""])[0] == "true"
        w = Watch(kind, terms, namespace, bookmarks)
        with STATE.cond:
            STATE.stats["watches"][kind] += 1
            gone = STATE.gone_http > 0
            if gone:
                STATE.gone_http -= 1
                STATE.stats["gone_http_sent"] += 1
            elif since is not None and since < STATE.floor:
                msg = "too old resource version: %d (%d)" % (since, STATE.floor)
                w.queue.append(event_line("ERROR", status_body(410, "Expired", msg)))
                w.closed = "clean"
            elif since is not None:
                for erv, ekind, etype, old, new in STATE.history:
                    if erv > since and ekind == kind:
                        line = w.translate(etype, old, new)
                        if line:
                            w.queue.append(line)
            if not gone:
                STATE.watches.append(w)
        if gone:
            self.send_json(410, status_body(410, "Expired", "too old resource version"))
            return
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.stream(w, time.monotonic() + timeout)
        except OSError:
            self.close_connection = True
        finally:
            with STATE.cond:
                w.closed = w.closed or "clean"
                STATE.watches.remove(w)

    def stream(self, w, deadline):
        while True:
            with STATE.cond:
                while not w.queue and w.closed is None and time.monotonic() < deadline:
                    STATE.cond.wait(min(0.25, max(0.0, deadline - time.monotonic())))
                    if not w.queue and self.client_gone():
                        w.closed = "gone"
                lines, w.queue = w.queue, []
                closed = w.closed
            if lines:
                self.write_chunk(b"".join(lines))
            if closed == "abrupt":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if closed == "gone":
                self.close_connection = True
                return
            if closed is not None or time.monotonic() >= deadline:
                self.wfile.write(b"0\r\n\r\n")
                return


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    tls = None

    def get_request(self):
        sock, addr = super().get_request()
        if self.tls is not None:
            sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def handle_error(self, request, client_address):
        if VERBOSE:
            super().handle_error(request, client_address)


def load_objects(path, kind):
    with open(path) as f:
        data = json.load(f)
    items = data.get("items", []) if isinstance(data, dict) else data
    for obj in items:
        code, body = STATE.apply(kind, None, obj)
        if code != 200:
            sys.exit("fakeapi: %s: %s" % (path, body["error"]))


def watch_parent():
    parent = os.getppid()
    while True:
        time.sleep(0.2)
        if os.getppid() != parent:
            os._exit(0)


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description="A fake Kubernetes API server for tests.")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--nodes")
    ap.add_argument("--pods")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--client-ca")
    ap.add_argument("--token")
    ap.add_argument("--die-with-parent", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    VERBOSE = args.verbose
    STATE.token = args.token
    with STATE.cond:
        if args.nodes:
            load_objects(args.nodes, "nodes")
        if args.pods:
            load_objects(args.pods, "pods")
        STATE.compact()
    srv = Server(("127.0.0.1", 0), Handler)
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        if args.client_ca:
            ctx.load_verify_locations(args.client_ca)
            ctx.verify_mode = ssl.CERT_REQUIRED
        srv.tls = ctx
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    if args.die_with_parent:
        threading.Thread(target=watch_parent, daemon=True).start()
    srv.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
