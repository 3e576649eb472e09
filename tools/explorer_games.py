#!/usr/bin/env python3
"""Games as players play them, against a `kalah serve` on this machine:
how long each position takes to be answered with every move exact.

Starts `kalah serve` itself on a loopback port (127.0.0.1:0) over a
database folder, waits until it says it is ready (`/health`), then plays
games of Kalah(H,S) under each capture rule asked, one client, one request
at a time: at each position it asks `/api/v1/analysis`, and where the
answer is not exact (every move's value), follows the server's background
search of it (`POST /api/v1/background/follow`, as the explorer does) until
it is, or until --exact-wait seconds. Then it plays a move as a player
would: the best with probability 0.6, the second best with 0.25, any other
with 0.15 (random moves alone throw the game away at once).

Bounded: at most 200 games of at most 60 moves a rule, and --max-minutes
in all; loopback only.

    tools/explorer_games.py --kalah target/release/kalah --db-dir DIR \\
        --houses 6 --seeds 4 --games 50 --moves 20 --captures standard,empty

Prints, for each rule and for all, the positions past the opening book:
how many, the median, 95th percentile and largest time to every move
exact, how many were exact in the first answer, kept from an earlier game,
or never exact in time; `--json FILE` writes every position's figures.
"""

import argparse
import http.client
import json
import random
import sys
import time
import urllib.parse

import kalah_server

MAX_GAMES = 200
MAX_MOVES = 60
VIEWER = "explorer-games"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kalah", required=True, help="the kalah binary (a release build)")
    ap.add_argument("--db-dir", required=True, help="the server's database folder")
    ap.add_argument("--houses", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--moves", type=int, default=20, help="moves (sowings) a game")
    ap.add_argument("--captures", default="standard,empty")
    ap.add_argument("--seed", type=int, default=64, help="of the random choices")
    ap.add_argument("--exact-wait", type=float, default=120.0, help="the longest a position is followed in the background")
    ap.add_argument("--max-minutes", type=float, default=240.0)
    ap.add_argument("--serve-arg", action="append", default=[], help="another argument for kalah serve (repeat)")
    ap.add_argument("--json", help="write every position's figures here")
    a = ap.parse_args()
    if not 0 < a.games <= MAX_GAMES or not 0 < a.moves <= MAX_MOVES:
        sys.exit(f"explorer_games.py: at most {MAX_GAMES} games of {MAX_MOVES} moves")
    deadline = time.monotonic() + 60 * a.max_minutes

    with kalah_server.serving(a.kalah, a.db_dir, a.serve_arg, "explorer_games.py") as (server, port):
        conn = Client(port)
        started = time.monotonic()
        while not conn.get("/health").get("ready", True):
            if time.monotonic() > deadline:
                sys.exit("explorer_games.py: the server was not ready in time")
            time.sleep(1)
        print(f"ready after {time.monotonic() - started:.1f} s", flush=True)
        rows = []
        rng = random.Random(a.seed)
        for capture in a.captures.split(","):
            for game in range(a.games):
                if time.monotonic() > deadline:
                    print("explorer_games.py: out of time (--max-minutes)", file=sys.stderr)
                    break
                rows += play(conn, a, capture, game, rng, deadline)
        report(rows, a)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)


class Client:
    """One HTTP/1.1 connection to the server on loopback."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def ask(self, method, path):
        for attempt in range(30):
            try:
                self.conn.request(method, path, headers={"X-Kalah-Viewer": VIEWER, "Content-Length": "0"})
                r = self.conn.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException):
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                time.sleep(0.5)
                continue
            if r.status == 503:
                time.sleep(float(r.getheader("Retry-After") or 1))
                continue
            return r.status, json.loads(body)
        raise SystemExit(f"explorer_games.py: {path}: no answer")

    def get(self, path):
        return self.ask("GET", path)[1]


def all_exact(answer):
    return answer.get("exact") and all(m.get("value") is not None for m in answer["moves"])


def play(conn, a, capture, game, rng, deadline):
    """One game: each position's figures."""
    position = ",".join([str(a.seeds)] * a.houses + ["0"] + [str(a.seeds)] * a.houses + ["0"]) + " S"
    rows = []
    for ply in range(a.moves):
        q = urllib.parse.urlencode({"position": position, "capture": capture})
        t = time.perf_counter()
        status, answer = conn.ask("GET", "/api/v1/analysis?" + q)
        first = time.perf_counter() - t
        if status != 200:
            raise SystemExit(f"explorer_games.py: {position}: status {status}: {answer}")
        if not answer["moves"]:
            break
        first_source = answer["source"]
        exact_at = first if all_exact(answer) else None
        followed = False
        # Bounds: followed in the background, as the page does, until exact.
        while exact_at is None and time.perf_counter() - t < a.exact_wait and time.monotonic() < deadline:
            followed = True
            _, told = conn.ask("POST", "/api/v1/background/follow?" + q)
            if told.get("state") == "exact":
                status, answer = conn.ask("GET", "/api/v1/analysis?" + q)
                if all_exact(answer):
                    exact_at = time.perf_counter() - t
                break
            if told.get("state") in ("failed", "out_of_time", "stopped"):
                break
            time.sleep(0.2)
        if followed:
            conn.ask("POST", "/api/v1/background/leave")
        rows.append({
            "capture": capture, "game": game, "ply": ply, "position": position,
            "seeds": sum(int(x) for x in position.split()[0].split(",")[:a.houses] + position.split()[0].split(",")[a.houses + 1:2 * a.houses + 1]),
            "source": answer["source"], "first_source": first_source, "first_seconds": round(first, 4),
            "exact_seconds": None if exact_at is None else round(exact_at, 4),
            "exact_first": exact_at is not None and not followed,
        })
        moves = answer["moves"]  # best first
        r = rng.random()
        if r < 0.6 or len(moves) == 1:
            m = moves[0]
        elif r < 0.85 or len(moves) == 2:
            m = moves[1]
        else:
            m = rng.choice(moves[2:])
        position = m["position"]
    return rows


def first_source(r):
    """Where the first answer came from (a position followed to exact is
    asked again at the end, and then answered as kept)."""
    return r.get("first_source", r["source"] if r["exact_first"] else "search")


def figures(rows):
    past = [r for r in rows if first_source(r) != "book"]
    times = sorted(r["exact_seconds"] for r in past if r["exact_seconds"] is not None)
    never = sum(1 for r in past if r["exact_seconds"] is None)
    # A position never exact in time counts as slower than every other.
    worst = sorted(times + [float("inf")] * never)
    pct = lambda q: worst[min(len(worst) - 1, int(q * len(worst)))] if worst else float("nan")
    kept = sum(1 for r in past if first_source(r) == "kept")
    first = sum(1 for r in past if r["exact_first"])
    return (f"{len(past)} positions past the book ({len(rows) - len(past)} in it): to every move exact median {pct(0.5):.2f} s, "
            f"95th percentile {pct(0.95):.2f} s, largest {worst[-1] if worst else float('nan'):.2f} s; "
            f"exact in the first answer {first}, kept from an earlier game {kept}, not exact within the wait {never}")


def report(rows, a):
    for capture in a.captures.split(","):
        print(f"Kalah({a.houses},{a.seeds}) {capture} capture: " + figures([r for r in rows if r["capture"] == capture]))
    print(f"Kalah({a.houses},{a.seeds}) both: " + figures(rows))
    computed = [r for r in rows if first_source(r) not in ("book", "kept")]
    print("  not counting answers kept from an earlier game: " + figures(computed))


if __name__ == "__main__":
    main()
