"""Shared fixtures: one engine for the session, so that the database it
builds in memory for Kalah(6,4) is built once."""

import os
import pathlib
import subprocess

import pytest

import kalah

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def no_repository_databases(tmp_path_factory, monkeypatch):
    """Every test's default database folder is a new one of its own
    ($KALAH_DB_DIR): no test reads or writes the repository's data/db,
    whatever the engine it makes."""
    monkeypatch.setenv("KALAH_DB_DIR", str(tmp_path_factory.mktemp("default-db")))


@pytest.fixture(scope="session")
def engine(tmp_path_factory):
    # A folder of its own: the tests neither read nor write the
    # repository's data/db.
    return kalah.Engine(threads=2, db_dir=tmp_path_factory.mktemp("db"))


@pytest.fixture(scope="session")
def kalah_bin():
    """The command line's binary, the Rust library's own door: $KALAH_BIN,
    or one built in the repository's target directory. .ci/run sets
    KALAH_BIN, so there the tests that need it cannot skip."""
    given = os.environ.get("KALAH_BIN")
    if given:
        assert pathlib.Path(given).exists(), "KALAH_BIN=%s does not exist" % given
        return given
    for kind in ("release", "debug"):
        candidate = ROOT / "target" / kind / "kalah"
        if candidate.exists():
            return str(candidate)
    pytest.skip("no kalah binary: cargo build, or set KALAH_BIN")


def query(kalah_bin, position, rules, db_dir):
    """`kalah query --json` of a position: the Rust library's answer."""
    args = [kalah_bin, "query", "--position", position.to_ring(), "--json", "--threads", "1", "--capture", rules.capture,
            "--end", rules.end, "--leftovers", rules.leftovers, "--sowing", rules.sowing,
            "--relay", "on" if rules.relay else "off"]
    out = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "KALAH_DB_DIR": str(db_dir)}, timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    return json.loads(out.stdout)
