"""Perfect play for Kalah: positions, rules, and an engine over endgame databases.

    >>> import kalah
    >>> start = kalah.Position.start(4, 3)
    >>> start.legal_moves()
    [1, 2, 3, 4]
    >>> engine = kalah.Engine(threads=1)
    >>> engine.value(start, kalah.Rules(capture="empty"))
    8

Values are the store difference the side to move ends with under perfect
play. Bad input raises ValueError with the library's message; a request
beyond what the machine or method can do raises kalah.Refused; any other
failure kalah.Error (Refused is a kind of Error).

`kalah.openspiel` bridges to OpenSpiel's `mancala` game (import it only
where open_spiel is installed).
"""

from ._kalah import Analysis, Boards, Database, Engine, Error, MoveValue, Position, Refused, Rules

__all__ = ["Analysis", "Boards", "Database", "Engine", "Error", "MoveValue", "Position", "Refused", "Rules"]
