#!/usr/bin/env python3
"""How often the opening book answers the first plies of games (issue 53).

Plays GAMES random games (every legal move equally likely) of each start
through `kalah engine`, and counts, ply by ply, the positions answered
from the book (`source` "book") among those asked. Positions beyond the
book are searched for at most 0.05 s each, enough for the moves and the
positions they lead to. The seed is printed; the same seed plays the
same games.

    tools/book_hits.py [GAMES [PLIES [SEED]]]     (defaults 200, 8, the clock)
"""
import json
import os
import random
import subprocess
import sys
import time

games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
plies = int(sys.argv[2]) if len(sys.argv) > 2 else 8
seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
kalah = os.environ.get("KALAH_BIN") or subprocess.run(
    ["bash", "-c", ". tools/release_kalah.sh && echo $kalah"], cwd=root, check=True, capture_output=True, text=True
).stdout.strip()
rng = random.Random(seed)
print(f"seed {seed}, {games} random games a start, first {plies} plies")
engine = subprocess.Popen([kalah, "engine", "--time-limit", "0.05"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=root)


def ask(request):
    engine.stdin.write(json.dumps(request) + "\n")
    engine.stdin.flush()
    return json.loads(engine.stdout.readline())


for houses, seeds, capture in [(6, 4, "standard"), (6, 4, "empty"), (6, 3, "standard"), (4, 4, "standard"), (4, 3, "empty")]:
    hits = [0] * (plies + 1)
    asked = [0] * (plies + 1)
    for _ in range(games):
        answer = ask({"houses": houses, "seeds": seeds, "capture": capture})
        for ply in range(plies + 1):
            if "error" in answer or not answer.get("moves"):
                break
            asked[ply] += 1
            hits[ply] += answer["source"] == "book"
            if ply == plies:
                break
            move = rng.choice(answer["moves"])
            answer = ask({"position": move["position"], "capture": capture})
    rates = " ".join(f"{100 * h / a:.0f}%" if a else "-" for h, a in zip(hits, asked))
    print(f"Kalah({houses},{seeds}) {capture}: from the book, ply 0..{plies}: {rates}")
engine.stdin.close()
engine.wait()
