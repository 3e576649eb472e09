"""Between OpenSpiel's ``mancala`` game and kalah.

OpenSpiel's ``mancala`` is Kalah(6,4) under kalah's default rules
(:data:`RULES`: standard capture, the game over as soon as the side to move
has no seeds, the seeds left to their owner, counter-clockwise sowing, no
relay).

Players: OpenSpiel's player 0 is South (it moves first), player 1 North.

Board: OpenSpiel's board has 14 cells, as its observation tensor gives them
(``state.observation_tensor()``: the 14 cells, then the player to move and
the move number):

- cell 0: North's store;
- cells 1-6: South's houses 1-6, from South's left (kalah's ``S1``-``S6``);
- cell 7: South's store;
- cells 8-13: North's houses 1-6, from North's left (``N1``-``N6``).

Actions are cells: South's house ``k`` is action ``k``, North's house ``k``
is action ``k + 7``.

A finished game: OpenSpiel leaves the seeds of the side that still has some
in its houses, and scores them for their owner; kalah's play puts them in
their owner's store, and :func:`from_state` does the same. kalah's side to
move in a finished game is then the side that made the last move.
"""

from typing import Iterable, List, Optional

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - only without open_spiel
    raise ImportError("kalah.openspiel needs OpenSpiel: pip install open_spiel") from e

from ._kalah import Engine, Position, Rules

#: The rules of OpenSpiel's mancala: kalah's defaults.
RULES = Rules()

#: Houses a side, and seeds a house at the start, in OpenSpiel's mancala.
HOUSES = 6
SEEDS = 4

_SOUTH, _NORTH = 0, 1
_NORTH_STORE, _SOUTH_STORE = 0, 7


def _board(state) -> List[int]:
    """The 14 cells of an OpenSpiel mancala state."""
    if state.get_game().get_type().short_name != "mancala":
        raise ValueError("not a state of OpenSpiel's mancala game: %s" % state.get_game())
    return [int(round(x)) for x in state.observation_tensor(0)[:14]]


def from_state(state) -> Position:
    """The kalah position of an OpenSpiel ``mancala`` state."""
    cells = _board(state)
    south = cells[1:7]
    north = cells[8:14]
    stores = (cells[_SOUTH_STORE], cells[_NORTH_STORE])
    if state.is_terminal():
        # As kalah's play leaves a finished game: the seeds left in their
        # owner's store (RULES' leftovers), the side that made the last move
        # to move.
        history = state.history()
        to_move = "S" if not history or history[-1] < 7 else "N"
        stores = (stores[0] + sum(south), stores[1] + sum(north))
        south, north = [0] * HOUSES, [0] * HOUSES
    else:
        to_move = "S" if state.current_player() == _SOUTH else "N"
    return Position.from_counts(south, north, stores, to_move)


def to_action(position: Position, house: int) -> int:
    """OpenSpiel's action for the side to move of ``position`` playing ``house`` (1-6)."""
    if position.houses != HOUSES:
        raise ValueError("OpenSpiel's mancala has %d houses a side, this position %d" % (HOUSES, position.houses))
    if not 1 <= house <= HOUSES:
        raise ValueError("house %d: houses are 1 to %d" % (house, HOUSES))
    return house if position.to_move == "S" else house + 7


def to_actions(position: Position, houses: Iterable[int]) -> List[int]:
    """OpenSpiel's actions for moves played one after another from ``position``
    (each a house of the side then to move, as in a principal variation)."""
    actions = []
    for house in houses:
        actions.append(to_action(position, house))
        position = position.play(house, RULES)
    return actions


def from_action(state, action: int) -> int:
    """The house (1-6, from its owner's left) of an OpenSpiel action."""
    if 1 <= action <= 6:
        return action
    if 8 <= action <= 13:
        return action - 7
    raise ValueError("action %d is no house of OpenSpiel's mancala" % action)


class PerfectBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` that plays perfect moves in OpenSpiel's mancala.

    Without ``time_limit``, every move keeps the position's value; under a
    time limit (seconds a move), the move with the best bounds proven in
    that time. ``engine`` defaults to a new :class:`kalah.Engine`, which
    keeps its databases for all the games the bot plays.
    """

    def __init__(self, engine: Optional[Engine] = None, time_limit: Optional[float] = None):
        pyspiel.Bot.__init__(self)
        self.engine = engine if engine is not None else Engine()
        self.time_limit = time_limit

    def step(self, state) -> int:
        position = from_state(state)
        house = self.engine.best_move(position, RULES, self.time_limit)
        if house is None:
            raise ValueError("the game is over: no move to play")
        return to_action(position, house)

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_force_action(self) -> bool:
        return False

    def provides_policy(self) -> bool:
        return False
