#!/usr/bin/env python3
"""Load a `kalah serve` on this machine: requests a second and latency.

Loopback only (the address must be 127.0.0.1 or ::1), bounded in requests
(at most 100,000) and time (at most 120 s). Each worker keeps one HTTP/1.1
connection open and sends GETs of the paths given, in turn.

    target/release/kalah serve --addr 127.0.0.1:8080 &
    tools/load.py --port 8080 --workers 4 --requests 20000 \
        '/api/v1/analysis?position=3,3,3,0,3,3,3,0%20S'

Prints one line: requests, seconds, requests/s, p50, p99 and max latency in
ms, and the count of each status.
"""

import argparse
import http.client
import sys
import threading
import time
from collections import Counter

MAX_REQUESTS = 100_000
MAX_SECONDS = 120.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="paths to GET, in turn")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=30.0, help="stop after this long")
    a = ap.parse_args()
    if a.host not in ("127.0.0.1", "::1", "localhost"):
        sys.exit("load.py: loopback only (127.0.0.1, ::1 or localhost)")
    if not 0 < a.requests <= MAX_REQUESTS or not 0 < a.seconds <= MAX_SECONDS or not 0 < a.workers <= 64:
        sys.exit(f"load.py: at most {MAX_REQUESTS} requests, {MAX_SECONDS} s and 64 workers")

    lock = threading.Lock()
    left = [a.requests]
    latencies, statuses = [], Counter()
    deadline = time.monotonic() + a.seconds

    def worker(k):
        conn = http.client.HTTPConnection(a.host, a.port, timeout=30)
        i = k
        while time.monotonic() < deadline:
            with lock:
                if left[0] == 0:
                    break
                left[0] -= 1
            path = a.paths[i % len(a.paths)]
            i += 1
            t = time.perf_counter()
            try:
                conn.request("GET", path)
                r = conn.getresponse()
                r.read()
                status = r.status
            except (OSError, http.client.HTTPException) as e:
                status = type(e).__name__
                conn = http.client.HTTPConnection(a.host, a.port, timeout=30)
            dt = time.perf_counter() - t
            with lock:
                latencies.append(dt)
                statuses[status] += 1

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(a.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    latencies.sort()
    n = len(latencies)
    pct = lambda q: 1000 * latencies[min(n - 1, int(q * n))] if n else float("nan")
    print(f"{n} requests in {elapsed:.2f} s: {n / elapsed:,.0f}/s, p50 {pct(0.5):.2f} ms, p99 {pct(0.99):.2f} ms, "
          f"max {1000 * latencies[-1] if n else float('nan'):.2f} ms; statuses {dict(statuses)}")


if __name__ == "__main__":
    main()
