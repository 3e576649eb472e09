"""A `kalah serve` on a free loopback port for the tools that load one
(explorer_games.py, serve_memory.py): started, its address read from its
log, its log read on so that it never blocks writing it, and stopped
(SIGTERM, then SIGKILL after 15 s) when the block ends.

    with kalah_server.serving(kalah, db_dir, extra_args, "tool.py") as (server, port):
        ...
"""
import contextlib
import re
import subprocess
import sys
import threading


@contextlib.contextmanager
def serving(kalah, db_dir, extra_args, tool):
    server = subprocess.Popen([kalah, "serve", "--addr", "127.0.0.1:0", "--db-dir", db_dir, *extra_args],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in server.stderr:
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            sys.exit(f"{tool}: the server said no address")
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        yield server, port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
