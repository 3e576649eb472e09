"""examples/review_game.py, run as a user would, and its review checked."""

import subprocess
import sys

import kalah
from conftest import ROOT

sys.path.insert(0, str(ROOT / "examples"))
import review_game  # noqa: E402


def test_the_example_reviews_its_recorded_game():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "review_game.py")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Final score: South 21, North 11." in out.stdout
    assert "North lost; its worst move was 9. N2" in out.stdout


def test_the_review_is_consistent(engine):
    rules = kalah.Rules()
    rows, (south, north), loser, worst = review_game.review(review_game.RECORDED.split(), 4, 4, rules, engine)
    assert loser == "N" and worst["move"][0] == "N"
    # No move is worth more than the best; the last move's value is the final difference.
    assert all(r["value"] <= r["best"] for r in rows)
    last = rows[-1]
    assert last["value"] == (south - north if last["move"][0] == "S" else north - south)
    # The value only falls by what the mover gave away: perfect play keeps it.
    start = engine.value(kalah.Position.start(4, 4), rules)
    assert rows[0]["best"] == start


def test_a_bad_game_is_refused_with_a_message():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "review_game.py"), "N1"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "S is to move" in out.stderr
