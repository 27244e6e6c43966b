-- SPDX-License-Identifier: Apache-2.0
-- wrk script for the gpupack benchmarks: POSTs the file named by $BENCH_BODY as JSON (with
-- "Connection: close" when $BENCH_CLOSE is set: a new connection, so a new TLS handshake, per
-- request) and prints one JSON line of results at the end.
wrk.method = "POST"
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
if os.getenv("BENCH_CLOSE") then
  wrk.headers["Connection"] = "close"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_us":%d,"p99_us":%d,"p999_us":%d,' ..
    '"max_us":%d,"errors":%d,"non2xx":%d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    e.connect + e.read + e.write + e.timeout, e.status))
end
