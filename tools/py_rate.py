#!/usr/bin/env python3
"""Positions a second from Python (crates/kalah-py) for positions a database
file covers: one by one (Engine.analyze), batched (Engine.analyze_many),
and one `kalah query` process a position, as before the package.

    pip install ./crates/kalah-py
    KALAH_DB_DIR=DIR tools/py_rate.py [--houses 6] [--max-seeds 20] [--count 2000] [--kalah PATH]

DIR must hold the default database file for the houses and seeds given
(`kalah db build --houses 6 --max-seeds 20`). The positions are random
ones with at most that many seeds in their houses, the same for each way.
Prints one line a way: positions, seconds, positions a second.
"""

import argparse
import json
import os
import random
import subprocess
import time

import kalah


def positions(houses, max_seeds, count, seed=20):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        cells = [0] * (2 * houses)
        for _ in range(rng.randint(1, max_seeds)):
            cells[rng.randrange(2 * houses)] += 1
        store = rng.randint(0, 20)
        found.append(kalah.Position.from_counts(cells[:houses], cells[houses:], (store, 20 - store), rng.choice("SN")))
    return found


def release_kalah():
    """The release `kalah` in whatever target directory cargo uses (CARGO_TARGET_DIR, a configured one, or target/)."""
    meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], capture_output=True, text=True, check=True)
    return os.path.join(json.loads(meta.stdout)["target_directory"], "release", "kalah")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--houses", type=int, default=6)
    ap.add_argument("--max-seeds", type=int, default=20)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--processes", type=int, default=100, help="positions asked of `kalah query` processes")
    ap.add_argument("--kalah", default=None, help="the kalah binary (default: the release build in cargo's target directory)")
    a = ap.parse_args()
    a.kalah = a.kalah or release_kalah()
    todo = positions(a.houses, a.max_seeds, a.count)
    engine = kalah.Engine(threads=2)
    engine.analyze(todo[0])  # the file opened (mapped) once, as a long-lived engine would
    t = time.perf_counter()
    one = [engine.analyze(p) for p in todo]
    seconds = time.perf_counter() - t
    # A finished game is answered by the rules (source "game_over"), the rest by the file.
    assert all(x.source in ("database", "game_over") for x in one), "a position the file does not cover"
    print("one by one:  %6d positions  %7.3f s  %8.0f /s" % (len(todo), seconds, len(todo) / seconds))
    t = time.perf_counter()
    many = engine.analyze_many(todo)
    seconds = time.perf_counter() - t
    assert [x.value for x in many] == [x.value for x in one]
    print("batched:     %6d positions  %7.3f s  %8.0f /s" % (len(todo), seconds, len(todo) / seconds))
    t = time.perf_counter()
    for p in todo[: a.processes]:
        subprocess.run([a.kalah, "query", "--position", p.to_ring(), "--json"], check=True, capture_output=True, env=os.environ)
    seconds = time.perf_counter() - t
    print("processes:   %6d positions  %7.3f s  %8.0f /s" % (a.processes, seconds, a.processes / seconds))


if __name__ == "__main__":
    main()
