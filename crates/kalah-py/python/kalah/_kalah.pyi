"""Type stubs of the native module (crates/kalah-py/src/lib.rs)."""

from os import PathLike
from typing import List, Optional, Sequence, Tuple, Union

class Error(Exception):
    """A failure of the kalah library: a damaged database, an I/O error, or an internal one."""

class Refused(Error):
    """A request beyond what this machine or method can do."""

class Rules:
    """The rules of a game: capture, end, leftovers, sowing, relay."""

    def __init__(
        self,
        capture: str = "standard",
        end: str = "instant",
        leftovers: str = "owner",
        sowing: str = "ccw",
        relay: bool = False,
    ) -> None: ...
    @property
    def capture(self) -> str: ...
    @property
    def end(self) -> str: ...
    @property
    def leftovers(self) -> str: ...
    @property
    def sowing(self) -> str: ...
    @property
    def relay(self) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Position:
    """Both sides' houses and stores, and the side to move."""

    @staticmethod
    def start(houses: int, seeds: int) -> Position: ...
    @staticmethod
    def from_ring(text: str) -> Position: ...
    @staticmethod
    def from_counts(
        south: Sequence[int], north: Sequence[int], stores: Tuple[int, int] = (0, 0), to_move: str = "S"
    ) -> Position: ...
    def to_ring(self) -> str: ...
    @property
    def houses(self) -> int: ...
    @property
    def to_move(self) -> str: ...
    @property
    def south(self) -> Tuple[int, ...]: ...
    @property
    def north(self) -> Tuple[int, ...]: ...
    @property
    def stores(self) -> Tuple[int, int]: ...
    @property
    def counts(self) -> Tuple[int, ...]: ...
    def legal_moves(self, rules: Optional[Rules] = None) -> List[int]: ...
    def play(self, house: int, rules: Optional[Rules] = None) -> Position: ...
    def is_over(self, rules: Optional[Rules] = None) -> bool: ...
    def final_scores(self, rules: Optional[Rules] = None) -> Optional[Tuple[int, int]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class MoveValue:
    """One move's value for the side that makes it, or its bounds."""

    house: int
    value: Optional[int]
    lower: int
    upper: int

class Analysis:
    """A position's perfect-play value, each move's, a line of best play, and how they were found."""

    position: Position
    value: Optional[int]
    lower: int
    upper: int
    exact: bool
    best_move: Optional[int]
    moves: List[MoveValue]
    pv: List[Tuple[str, int]]
    source: str
    nodes: int
    seconds: float

class Engine:
    """Answers positions; its databases are opened once and kept."""

    def __init__(
        self,
        db_dir: Optional[Union[str, PathLike]] = None,
        db_seeds: Optional[int] = None,
        threads: Optional[int] = None,
        book: bool = True,
    ) -> None: ...
    def analyze(self, position: Position, rules: Optional[Rules] = None, time_limit: Optional[float] = None) -> Analysis: ...
    def value(self, position: Position, rules: Optional[Rules] = None, time_limit: Optional[float] = None) -> Optional[int]: ...
    def best_move(self, position: Position, rules: Optional[Rules] = None, time_limit: Optional[float] = None) -> Optional[int]: ...
    def analyze_many(
        self, positions: Sequence[Position], rules: Optional[Rules] = None, time_limit: Optional[float] = None
    ) -> List[Analysis]: ...
