#!/usr/bin/env python3
"""The memory a `kalah serve` on this machine takes when clients ask it
large questions and go away: its peak resident set (VmHWM) and its
resident set after.

Starts `kalah serve` itself on a loopback port (127.0.0.1:0) over a
database folder, waits until it says it is ready (`/health`), then opens
--clients connections at once, each asking one question (by default the
start of Kalah(6,6), the capture rules taking turns) and closing its
connection after --stay seconds (a client that goes away: its search
stops), and samples the server's memory every 50 ms until --settle
seconds after the last one left.

Bounded: at most 64 clients, each staying at most 60 s; loopback only.
With --while-preparing S the clients ask S seconds after the server
starts, while it builds its `--prepare` databases (a folder without
them), and the watch goes on until it is ready.

    tools/serve_memory.py --kalah target/release/kalah --db-dir DIR --clients 8

Prints one line: the peak and the last resident set, in MiB, and the
peaks sampled of its two parts: anonymous memory (what the server holds:
tables, databases built or copied into memory) and pages of files it maps
(databases searched over mapped: the system's page cache, which it
reclaims under pressure).
"""

import argparse
import socket
import sys
import threading
import time
import urllib.parse

import kalah_server


def status(pid):
    """VmRSS, VmHWM, RssAnon and RssFile of process `pid`, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kalah", required=True, help="the kalah binary (a release build)")
    ap.add_argument("--db-dir", required=True, help="the server's database folder")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--stay", type=float, default=3.0, help="seconds a client waits before it goes away")
    ap.add_argument("--settle", type=float, default=10.0, help="seconds watched after the last client left")
    ap.add_argument("--houses", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--captures", default="standard,empty", help="the capture rules the clients take in turn")
    ap.add_argument("--serve-arg", action="append", default=[], help="another argument for kalah serve (repeat)")
    ap.add_argument("--while-preparing", type=float, metavar="SECONDS",
                    help="ask SECONDS after the server starts, while it still builds its --prepare databases, "
                         "and watch until it is ready (at most 10 minutes)")
    a = ap.parse_args()
    if not 0 < a.clients <= 64 or not 0 < a.stay <= 60 or not 0 <= a.settle <= 120:
        sys.exit("serve_memory.py: at most 64 clients, each staying at most 60 s, watched at most 120 s after")

    with kalah_server.serving(a.kalah, a.db_dir, a.serve_arg, "serve_memory.py") as (server, port):
        started = time.monotonic()
        if a.while_preparing is None:
            wait_ready(port)
        else:
            time.sleep(a.while_preparing)
        before = status(server.pid)
        captures = a.captures.split(",")

        def client(k):
            s = socket.create_connection(("127.0.0.1", port))
            q = urllib.parse.urlencode({"houses": a.houses, "seeds": a.seeds, "capture": captures[k % len(captures)]})
            s.sendall(f"GET /api/v1/start?{q} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
            s.settimeout(a.stay)
            try:
                s.recv(1)
            except OSError:
                pass
            s.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(a.clients)]
        for t in threads:
            t.start()
        peak = {"VmRSS": 0, "RssAnon": 0, "RssFile": 0}

        def sample():
            now = status(server.pid)
            for key in peak:
                peak[key] = max(peak[key], now[key])

        while any(t.is_alive() for t in threads):
            sample()
            time.sleep(0.05)
        settle = time.monotonic() + a.settle
        while time.monotonic() < settle:
            sample()
            time.sleep(0.05)
        if a.while_preparing is not None:
            watching = threading.Thread(target=wait_ready, args=(port,))
            watching.start()
            while watching.is_alive():
                sample()
                time.sleep(0.05)
            print(f"ready {time.monotonic() - started:.0f} s after the server started")
        after = status(server.pid)
        print(f"{a.clients} clients asking Kalah({a.houses},{a.seeds}) ({a.captures}), each gone after {a.stay} s: "
              f"resident before {before['VmRSS'] / 1024:.0f} MiB, peak {max(peak['VmRSS'], after['VmHWM']) / 1024:.0f} MiB "
              f"(VmHWM {after['VmHWM'] / 1024:.0f} MiB; sampled every 50 ms: anonymous at most {peak['RssAnon'] / 1024:.0f} MiB, "
              f"mapped files at most {peak['RssFile'] / 1024:.0f} MiB), {a.settle} s after the last left {after['VmRSS'] / 1024:.0f} MiB")


def wait_ready(port, seconds=600):
    """Until `/health` says ready (or has no word on it)."""
    import http.client
    import json
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/health")
            if json.loads(c.getresponse().read()).get("ready", True):
                return
        except OSError:
            pass
        time.sleep(1)
    sys.exit("serve_memory.py: the server was not ready in time")


if __name__ == "__main__":
    main()
