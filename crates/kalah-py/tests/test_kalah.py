"""The Python API against the Rust library (its command line) and against
its own promises: positions, rules, errors, batches."""

import random

import pytest

import kalah
from conftest import query

RULE_SETS = [
    kalah.Rules(),
    kalah.Rules(capture="empty"),
    kalah.Rules(end="turn", leftovers="emptier"),
    kalah.Rules(leftovers="unscored"),
    kalah.Rules(sowing="cw"),
    kalah.Rules(relay=True),
]


def random_positions(count, houses, seed):
    """Positions reached by random play from small starts."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        rules = rng.choice(RULE_SETS)
        p = kalah.Position.start(houses, rng.randint(1, 3))
        for _ in range(rng.randint(0, 12)):
            if p.is_over(rules):
                break
            p = p.play(rng.choice(p.legal_moves(rules)), rules)
        found.append((p, rules))
    return found


def test_values_agree_with_the_rust_library(engine, kalah_bin, tmp_path):
    for position, rules in random_positions(24, 3, seed=1) + random_positions(12, 4, seed=2):
        mine = engine.analyze(position, rules)
        theirs = query(kalah_bin, position, rules, tmp_path)
        assert mine.value == theirs["value"], (position, rules)
        assert (mine.lower, mine.upper, mine.exact) == (theirs["lower"], theirs["upper"], theirs["exact"])
        assert {m.house: m.value for m in mine.moves} == {m["house"]: m["value"] for m in theirs["moves"]}
        assert mine.position == kalah.Position.from_ring(theirs["position"])
        if mine.moves:
            best = max(m.value for m in mine.moves)
            assert mine.moves[0].value == best == mine.value
            assert mine.best_move in [m.house for m in mine.moves if m.value == best]


def test_the_published_start_values(engine):
    # Kalah(4,3) with empty capture: South wins by 8 playing house 2 (docs/api.md).
    a = engine.analyze(kalah.Position.start(4, 3), kalah.Rules(capture="empty"))
    assert (a.value, a.best_move, a.exact) == (8, 2, True)
    assert [m.house for m in a.moves] == [2, 3, 4, 1]
    assert a.pv[0] == ("S", 2)
    assert engine.value(kalah.Position.start(3, 3), kalah.Rules()) == query_free_value(3, 3)


def test_what_this_project_has_proven_is_answered_at_once(engine):
    # Kalah(6,6) under empty capture: +2, proven by this project and shipped
    # with it (data/kalah-6-6/start-empty.json), at once; its move 1 (the
    # turn 1-2) +2, every other move at most +2 (issue 64).
    rules = kalah.Rules(capture="empty")
    start = kalah.Position.start(6, 6)
    assert engine.value(start, rules) == 2
    a = engine.analyze(start, rules, time_limit=0.2)
    assert (a.value, a.exact, a.source) == (2, True, "proven")
    bounds = {m.house: (m.lower, m.upper) for m in a.moves}
    assert bounds[1] == (2, 2)
    assert all(upper <= 2 for _, upper in bounds.values())
    # Standard capture: +4 (data/kalah-6-6/start-standard.json), its move
    # 1 (the turn 1-3) +4, every other move at most +4.
    assert engine.value(start) == 4
    b = engine.analyze(start, time_limit=0.2)
    assert (b.value, b.exact, b.source) == (4, True, "proven"), b
    bounds = {m.house: (m.lower, m.upper) for m in b.moves}
    assert bounds[1] == (4, 4)
    assert all(upper <= 4 for _, upper in bounds.values())


def query_free_value(h, s):
    """The value by a plain minimax over Position.play (small boards only)."""
    rules = kalah.Rules()
    memo = {}

    def value(p):
        if p.is_over(rules):
            south, north = p.final_scores(rules)
            return south - north if p.to_move == "S" else north - south
        if p in memo:
            return memo[p]
        best = None
        for house in p.legal_moves(rules):
            q = p.play(house, rules)
            v = value(q) if q.to_move == p.to_move else -value(q)
            best = v if best is None else max(best, v)
        memo[p] = best
        return best

    return value(kalah.Position.start(h, s))


def test_a_batch_gives_what_one_by_one_gives(engine):
    positions = [p for p, _ in random_positions(30, 3, seed=3)]
    rules = kalah.Rules(capture="empty")
    batch = engine.analyze_many(positions, rules)
    assert [a.position for a in batch] == positions
    for a, p in zip(batch, positions):
        one = engine.analyze(p, rules)
        assert (a.value, a.lower, a.upper) == (one.value, one.lower, one.upper)
        assert [(m.house, m.value) for m in a.moves] == [(m.house, m.value) for m in one.moves]


def test_positions_read_write_play_and_compare():
    p = kalah.Position.from_ring("3,3,3,3,0,3,3,3,3,0 S")
    assert p == kalah.Position.start(4, 3)
    assert p == kalah.Position.from_ring("S:3-3-3-3:0 N:3-3-3-3:0 S")
    assert hash(p) == hash(kalah.Position.start(4, 3))
    assert len({p, kalah.Position.start(4, 3), p.play(1)}) == 2
    assert p.to_ring() == str(p) == "3,3,3,3,0,3,3,3,3,0 S"
    assert (p.houses, p.to_move, p.south, p.north, p.stores) == (4, "S", (3, 3, 3, 3), (3, 3, 3, 3), (0, 0))
    assert p.counts == (3, 3, 3, 3, 0, 3, 3, 3, 3, 0)
    nxt = p.play(2)
    assert nxt.to_ring() == "3,0,4,4,1,3,3,3,3,0 S"  # the last seed in the store: South again
    assert nxt.to_move == "S" and not nxt.is_over()
    assert kalah.Position.from_counts([0, 0], [1, 2], (5, 3), "S").is_over()
    assert kalah.Position.from_counts([0, 0], [1, 2], (5, 3), "S").final_scores() == (5, 6)
    assert kalah.Position.from_counts([0, 0], [1, 2], (5, 3), "S").legal_moves() == []
    assert kalah.Position.from_counts([0, 0], [1, 2], (5, 3), "S").final_scores(kalah.Rules(leftovers="unscored")) == (5, 3)
    assert kalah.Position.start(4, 3).final_scores() is None
    assert repr(kalah.Rules(capture="empty")).startswith("Rules(capture=\"empty\"")
    assert kalah.Rules(capture="empty") == kalah.Rules(capture="empty") != kalah.Rules()


def test_bad_input_raises_value_error_with_the_librarys_message():
    with pytest.raises(ValueError, match="ring form"):
        kalah.Position.from_ring("3,3 S")
    with pytest.raises(ValueError, match="capture"):
        kalah.Rules(capture="never")
    with pytest.raises(ValueError, match="no house 9"):
        kalah.Position.start(4, 3).play(9)
    with pytest.raises(ValueError, match="empty"):
        kalah.Position.start(4, 3).play(2).play(2)
    with pytest.raises(ValueError, match="9 houses"):
        kalah.Position.start(9, 3)
    with pytest.raises(ValueError, match="side"):
        kalah.Position.from_counts([1], [1], (0, 0), "W")
    with pytest.raises(ValueError, match="time_limit"):
        kalah.Engine(threads=1).value(kalah.Position.start(3, 3), time_limit=-1)
    with pytest.raises(ValueError, match="threads"):
        kalah.Engine(threads=0)


def test_a_refused_request_raises_refused():
    with pytest.raises(kalah.Refused, match="GiB"):
        kalah.Engine(db_seeds=40, threads=1).value(kalah.Position.start(6, 6))
    assert issubclass(kalah.Refused, kalah.Error) and issubclass(kalah.Error, Exception)


def test_a_time_limit_gives_bounds():
    a = kalah.Engine(threads=1, db_seeds=0).analyze(kalah.Position.start(6, 6), time_limit=0.3)
    assert not a.exact and a.value is None and a.lower < a.upper
    assert all(m.lower <= m.upper for m in a.moves) and len(a.moves) == 6


def test_the_packages_docstring_example_runs():
    import doctest

    failures, tried = doctest.testmod(kalah)
    assert tried >= 3 and failures == 0


def test_the_opening_book_answers_first_and_as_a_search_would():
    start = kalah.Position.start(4, 3)
    rules = kalah.Rules(capture="empty")
    booked = kalah.Engine(threads=1).analyze(start, rules)
    searched = kalah.Engine(threads=1, book=False).analyze(start, rules)
    assert booked.source == "book" and booked.nodes == 0
    assert searched.source == "search"
    assert booked.value == searched.value == 8
    assert [(m.house, m.value) for m in booked.moves] == [(m.house, m.value) for m in searched.moves]


def test_kept_answers_answer_at_once_when_asked_for(tmp_path):
    """keep_answers: an exact answer found by a search is kept in the
    folder, and another engine on it (or `kalah query`) answers from it;
    without keep_answers nothing is read or written."""
    position = kalah.Position.start(4, 3).play(2).play(1)
    rules = kalah.Rules(capture="empty")
    forgetting = kalah.Engine(threads=1, db_dir=tmp_path, book=False).analyze(position, rules)
    assert forgetting.source == "search" and not (tmp_path / "answers").exists()
    first = kalah.Engine(threads=1, db_dir=tmp_path, book=False, keep_answers=True).analyze(position, rules)
    assert first.source == "search"
    kept = kalah.Engine(threads=1, db_dir=tmp_path, book=False, keep_answers=True).analyze(position, rules)
    assert kept.source == "kept" and kept.nodes == 0
    assert (kept.value, [(m.house, m.value) for m in kept.moves]) == (first.value, [(m.house, m.value) for m in first.moves])
    assert kept.pv == first.pv
    # Other rules are another question.
    assert kalah.Engine(threads=1, db_dir=tmp_path, book=False, keep_answers=True).analyze(position).source == "search"
    with pytest.raises(ValueError, match="keep_answers"):
        kalah.Engine(db_dir=tmp_path, db_seeds=10, keep_answers=True)


def test_negative_numbers_are_value_errors_naming_the_argument():
    start = kalah.Position.start(4, 3)
    for call, name in [
        (lambda: start.play(-1), "house"),
        (lambda: kalah.Position.from_counts([1, -2], [1, 2]), "south[1]"),
        (lambda: kalah.Position.from_counts([1, 2], [1, 2], stores=(0, -1)), "stores[1]"),
        (lambda: kalah.Position.start(-4, 3), "houses"),
        (lambda: kalah.Position.start(4, -3), "seeds"),
    ]:
        with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
            call()
