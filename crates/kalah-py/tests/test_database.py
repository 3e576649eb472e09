"""Databases from Python (build, open, find, probe, iterate), answers that
pickle and copy for multiprocessing, and an engine that names its file."""

import copy
import pickle

import pytest

import kalah


def test_a_database_builds_opens_probes_and_iterates(tmp_path):
    rules = kalah.Rules(capture="empty")
    path = kalah.Database.default_path(3, 8, rules, db_dir=tmp_path)
    assert path.parent == tmp_path
    db = kalah.Database.build(path, 3, 8, rules)
    assert (db.houses, db.max_seeds, db.rules) == (3, 8, rules)
    assert db.boards > 0 and db.bytes > 0 and db.path == path
    engine = kalah.Engine(threads=1, db_dir=tmp_path / "none", book=False, db_seeds=0)
    # Every board of 5 seeds, each once, with the engine's value.
    seen = set()
    for position, value in db.level(5):
        assert sum(position.south) + sum(position.north) == 5
        assert position.stores == (0, 0) and position.to_move == "S"
        seen.add(position.to_ring())
        assert value == engine.value(position, rules) == db.probe(position)
    assert len(seen) == 252  # 5 seeds in 6 houses: C(10, 5)
    # Stores count; a position beyond the file is None; another size is refused.
    p = kalah.Position.from_ring("1,0,2,7,0,1,1,4 N")
    assert db.probe(p) == engine.value(p, rules)
    assert db.probe(kalah.Position.start(3, 3)) is None
    with pytest.raises(ValueError, match="houses"):
        db.probe(kalah.Position.start(4, 1))
    with pytest.raises(ValueError, match="seeds"):
        db.level(9)
    # Opened again, and found in its folder by board size and rules.
    assert kalah.Database.open(path).boards == db.boards
    assert kalah.Database.find(3, rules, db_dir=tmp_path).path == path
    assert kalah.Database.find(3, kalah.Rules(), db_dir=tmp_path) is None


def test_a_packed_database_answers_as_the_byte_one(tmp_path):
    """Issue 51: `packed=True` stores the same values in fewer bits."""
    rules = kalah.Rules(capture="empty")
    byte = kalah.Database.build(tmp_path / "byte.kdb", 4, 12, rules)
    packed = kalah.Database.build(tmp_path / "packed.kdb", 4, 12, rules, packed=True)
    assert (byte.packed, packed.packed) == (False, True)
    assert packed.bytes < byte.bytes and packed.boards == byte.boards
    for seeds in (0, 7, 12):
        assert list(packed.level(seeds)) == list(byte.level(seeds))


def test_a_damaged_or_foreign_file_raises_error(tmp_path):
    other = tmp_path / "x.kdb"
    other.write_bytes(b"not a database at all" * 100)
    with pytest.raises(kalah.Error):
        kalah.Database.open(other)


def test_an_engine_uses_the_file_it_is_given(tmp_path):
    path = tmp_path / "mine.kdb"
    kalah.Database.build(path, 3, 18)
    engine = kalah.Engine(threads=1, db_dir=tmp_path / "empty", db_file=path, book=False)
    a = engine.analyze(kalah.Position.start(3, 3))
    assert a.source == "database" and a.value == 2
    # A file of another board size is refused when a position needs it.
    with pytest.raises(ValueError):
        engine.analyze(kalah.Position.start(4, 2))


def test_answers_pickle_and_copy_with_their_rules():
    rules = kalah.Rules(capture="empty", end="turn")
    engine = kalah.Engine(threads=1, book=False, db_seeds=0)
    a = engine.analyze(kalah.Position.start(3, 3), rules)
    assert a.rules == rules
    for again in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert again.rules == rules and again.position == a.position
        assert (again.value, again.lower, again.upper, again.best_move, again.pv, again.source) == (a.value, a.lower, a.upper, a.best_move, a.pv, a.source)
        assert [(m.house, m.value, m.lower, m.upper) for m in again.moves] == [(m.house, m.value, m.lower, m.upper) for m in a.moves]
    for thing in (rules, kalah.Position.start(4, 3), kalah.Position.from_ring("1,0,2,7,0,1,1,4 N")):
        assert pickle.loads(pickle.dumps(thing)) == thing
        assert copy.deepcopy(thing) == thing


def test_moves_come_best_first_as_every_door_gives_them():
    engine = kalah.Engine(threads=1, book=False, db_seeds=0)
    a = engine.analyze(kalah.Position.start(4, 3))
    keys = [(-m.lower, -m.upper, m.house) for m in a.moves]
    assert keys == sorted(keys)
    assert a.moves[0].value == a.value


def test_counts_of_the_engine_are_value_errors_naming_them():
    with pytest.raises(ValueError, match="db_seeds"):
        kalah.Engine(db_seeds=-1)
    with pytest.raises(ValueError, match="threads"):
        kalah.Engine(threads=-2)


def test_huge_numbers_are_value_errors_naming_them():
    # Beyond 64 bits, too: not a bare OverflowError (issue 52, item 7).
    with pytest.raises(ValueError, match="seeds"):
        kalah.Position.start(4, 10**20)
    with pytest.raises(ValueError, match="house"):
        kalah.Position.start(4, 3).play(2**70)
    with pytest.raises(ValueError, match=r"north\[0\]"):
        kalah.Position.from_counts([1, 2], [-(2**80), 2])
    with pytest.raises(ValueError, match="threads"):
        kalah.Engine(threads=10**30)


def _interrupt_after(seconds):
    """Ctrl-C, as the terminal sends it, `seconds` from now (Python's
    handler must be in place: `_python_handles_ctrl_c`)."""
    import _thread
    import threading

    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


@pytest.fixture
def _python_handles_ctrl_c():
    """Python's own Ctrl-C handler (KeyboardInterrupt) for the test. A
    process started in the background by a shell that has no job
    control (`cmd &` in a script, as a CI run may be) inherits SIGINT
    ignored, and Python then keeps it ignored: `_thread.interrupt_main`
    does nothing, and the searches the test interrupts ran on for
    minutes (seen twice, 2026-12-07: gdb showed Python's SIGINT handler
    was SIG_IGN)."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_stops_a_search_and_a_build_within_moments(tmp_path, _python_handles_ctrl_c):
    """Issue 52's notes: Ctrl-C could not stop a Python analysis or build."""
    import time

    # A search of minutes: Kalah(6,5) with no database and no book.
    engine = kalah.Engine(threads=2, db_dir=tmp_path / "none", book=False, db_seeds=0)
    start = time.monotonic()
    _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        engine.analyze(kalah.Position.start(6, 5))
    assert time.monotonic() - start < 5, "the search went on after Ctrl-C"
    # The engine answers again afterwards.
    assert engine.value(kalah.Position.start(3, 3)) == 2

    # The same for a batch.
    start = time.monotonic()
    _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        engine.analyze_many([kalah.Position.start(6, 5), kalah.Position.start(6, 6)])
    assert time.monotonic() - start < 5, "the batch went on after Ctrl-C"

    # A build of many seconds (6 houses, 20 seeds: 225 million boards)
    # stops; its levels are kept, and the same build goes on from them.
    path = tmp_path / "six.kdb"
    start = time.monotonic()
    _interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        kalah.Database.build(path, 6, 20)
    assert time.monotonic() - start < 6, "the build went on after Ctrl-C"
    assert not path.exists()
    assert (tmp_path / "six.kdb.partial").exists()
    small = tmp_path / "small.kdb"
    assert kalah.Database.build(small, 3, 6).max_seeds == 6


def test_answers_compare_equal_as_their_fields_do(engine):
    a = engine.analyze(kalah.Position.start(4, 3))
    assert a == copy.deepcopy(a) == pickle.loads(pickle.dumps(a))
    assert a != engine.analyze(kalah.Position.start(4, 4))
    assert a.moves[0] == kalah.MoveValue(a.moves[0].house, a.moves[0].value, a.moves[0].lower, a.moves[0].upper)
    assert a.moves[0] != kalah.MoveValue(a.moves[0].house, None, a.moves[0].lower - 2, a.moves[0].upper)
    assert len({a.moves[0], copy.copy(a.moves[0])}) == 1
    with pytest.raises(TypeError):
        hash(a)


def _start_value(seeds):
    return kalah.Engine(threads=1, book=False, db_seeds=0).value(kalah.Position.start(4, seeds))


def test_engines_work_in_forked_children():
    # A call in the parent first: whatever it started must not be needed
    # by the children, which a fork leaves without the parent's threads.
    assert _start_value(2) == 6
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(_start_value, [1, 2, 3]) == [2, 6, 6]
