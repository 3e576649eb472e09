#!/usr/bin/env python3
"""Reviews a recorded game of Kalah: the perfect-play value of every move
played beside the best one, and where the loser went wrong.

    pip install ./crates/kalah-py
    python examples/review_game.py                       # a recorded Kalah(4,4) game
    python examples/review_game.py --houses 6 --seeds 3 --capture empty S1 N2 ...

Moves are written as the principal variations of `kalah solve` print them:
the side and the house, `S2` for South's house 2 (from South's left).
Values are for the side that moves: the store difference it ends with
under perfect play.
"""

import argparse
import sys

import kalah

#: A game of Kalah(4,4), standard rules, played by two random players.
RECORDED = "S2 N3 S1 N4 S4 N4 N1 S1 N2 S1 N4 S3 N1 S2 N4 S4 N2 S3 S1 N1 S3 N2 S2 N4 S3 N3 S1 N4"


def review(moves, houses, seeds, rules, engine):
    """Each move with the mover's value of it and of the best move; the
    final scores; and the loser's worst move (None after a draw)."""
    position = kalah.Position.start(houses, seeds)
    rows = []
    for number, move in enumerate(moves, 1):
        side, house = move[0], int(move[1:])
        if side != position.to_move:
            raise ValueError("move %d, %s: %s is to move" % (number, move, position.to_move))
        analysis = engine.analyze(position, rules)
        values = {m.house: m.value for m in analysis.moves}
        if house not in values:
            raise ValueError("move %d, %s: not a legal move of %s" % (number, move, position.to_ring()))
        best = analysis.moves[0]
        rows.append({"number": number, "move": move, "value": values[house], "best": best.value, "best_move": side + str(best.house)})
        position = position.play(house, rules)
    if not position.is_over(rules):
        raise ValueError("the game is not over after its %d moves: %s" % (len(moves), position.to_ring()))
    south, north = position.final_scores(rules)
    loser = "N" if south > north else "S" if north > south else None
    lost = [r for r in rows if r["move"][0] == loser]
    worst = max(lost, key=lambda r: r["best"] - r["value"]) if lost else None
    return rows, (south, north), loser, worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("moves", nargs="*", help="the moves played (default: a recorded Kalah(4,4) game)")
    ap.add_argument("--houses", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--capture", default="standard", choices=["standard", "empty"])
    a = ap.parse_args(argv)
    moves = a.moves or RECORDED.split()
    rules = kalah.Rules(capture=a.capture)
    try:
        rows, (south, north), loser, worst = review(moves, a.houses, a.seeds, rules, kalah.Engine())
    except ValueError as e:
        sys.exit("review_game.py: %s" % e)
    print("Kalah(%d,%d), %s capture: %d moves" % (a.houses, a.seeds, a.capture, len(rows)))
    print(" move  played  value  best")
    for r in rows:
        note = "" if r["value"] == r["best"] else "  gives away %d (%s was best)" % (r["best"] - r["value"], r["best_move"])
        print("%5d  %-6s  %+5d  %+4d%s" % (r["number"], r["move"], r["value"], r["best"], note))
    print("Final score: South %d, North %d." % (south, north))
    if worst is None:
        print("A draw.")
    else:
        name = {"S": "South", "N": "North"}[loser]
        print("%s lost; its worst move was %d. %s, worth %+d where %s was worth %+d." % (
            name, worst["number"], worst["move"], worst["value"], worst["best_move"], worst["best"]))


if __name__ == "__main__":
    main()
