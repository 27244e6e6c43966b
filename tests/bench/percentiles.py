#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Latency percentiles from h2load --log-file lines (start_us, status, duration_us).
Prints one JSON line: requests, non2xx, p50_us, p99_us, p999_us, max_us."""
import json
import sys

d, bad = [], 0
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 3:
        continue
    d.append(int(f[-1]))
    bad += not f[1].startswith("2")
d.sort()
pick = lambda q: d[min(len(d) - 1, int(q * len(d)))] if d else 0
print(json.dumps({"requests": len(d), "non2xx": bad, "p50_us": pick(0.50), "p99_us": pick(0.99),
                  "p999_us": pick(0.999), "max_us": d[-1] if d else 0}))
