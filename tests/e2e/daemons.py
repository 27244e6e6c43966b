# SPDX-License-Identifier: Apache-2.0
"""Shared by the Python black-box tests: PASS/FAIL lines, and starting a gpupack daemon."""
import json
import ssl
import subprocess
import time


def start(cmd, log, prefix=(), slow=1):
    """Starts cmd (a daemon run with --listen 127.0.0.1:0 and an info log level) under the
    optional prefix (valgrind), logging to the file log; returns (process, port) once its
    "serving" line is there. Raises RuntimeError with the log's start when it does not come up
    within 10 s x slow."""
    out = open(log, "w")
    p = subprocess.Popen(list(prefix) + list(cmd), stdout=out, stderr=out)
    for _ in range(200 * slow):
        try:
            for line in open(log):
                if '"msg":"serving"' in line:
                    return p, json.loads(line)["port"]
        except (OSError, ValueError):
            pass
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"{cmd[0]} did not start: {open(log).read()[:400]}")


class Reporter:
    """Prints "PASS prefix.name" or "FAIL prefix.name: why" (cut to 600 characters); counts the
    failures in .fails. Call it: report(name, ok, why)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.fails = 0

    def __call__(self, name, ok, why=""):
        if ok:
            print(f"PASS {self.prefix}.{name}")
        else:
            self.fails += 1
            print(f"FAIL {self.prefix}.{name}: {why}"[:600])


def client_hello():
    """The bytes of a TLS ClientHello, as a client sends them first (for stalled handshakes)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


def read_response(s):
    """One HTTP/1.1 response read from socket s: (status, headers as a lower-case dict, body);
    status 0 when the connection ends first."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return 0, {}, buf
        buf += chunk
    top, rest = buf.split(b"\r\n\r\n", 1)
    lines = top.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return int(lines[0].split()[1]), headers, rest[:n]
