"""kalah against OpenSpiel's mancala: the same game move by move, the same
values as an exhaustive minimax over OpenSpiel's own states, and a
PerfectBot that never loses."""

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts

import kalah
from kalah.openspiel import RULES, PerfectBot, from_action, from_state, to_action, to_actions

GAME = pyspiel.load_game("mancala")

#: Random games replayed move by move.
GAMES = 2000


def openspiel_scores(state):
    """South's and North's final scores by OpenSpiel's board: the stores and each side's seeds left."""
    cells = [int(x) for x in state.observation_tensor(0)[:14]]
    return cells[7] + sum(cells[1:7]), cells[0] + sum(cells[8:14])


def test_thousands_of_random_games_agree_at_every_step():
    rng = random.Random(36)
    moves = 0
    for game in range(GAMES):
        state = GAME.new_initial_state()
        position = kalah.Position.start(6, 4)
        while not state.is_terminal():
            assert from_state(state) == position, (game, state.history())
            actions = state.legal_actions()
            assert actions == sorted(to_action(position, h) for h in position.legal_moves(RULES))
            action = rng.choice(actions)
            house = from_action(state, action)
            state.apply_action(action)
            position = position.play(house, RULES)
            moves += 1
        assert from_state(state) == position
        assert position.is_over(RULES) and position.legal_moves(RULES) == []
        south, north = position.final_scores(RULES)
        assert (south, north) == openspiel_scores(state)
        assert state.returns()[0] == np.sign(south - north)
    assert moves > 40 * GAMES


def minimax(state, memo):
    """The final store difference for the player to move, by an exhaustive
    search over OpenSpiel's states (OpenSpiel's rules only; a finished
    game's difference is South's)."""
    if state.is_terminal():
        south, north = openspiel_scores(state)
        return south - north
    me = state.current_player()
    key = (tuple(state.observation_tensor(0)[:14]), me)
    if key not in memo:
        best = None
        for action in state.legal_actions():
            child = state.child(action)
            v = minimax(child, memo)
            if child.is_terminal():
                v = v if me == 0 else -v
            elif child.current_player() != me:
                v = -v
            best = v if best is None else max(best, v)
        memo[key] = best
    return memo[key]


def houses_seeds(state):
    cells = state.observation_tensor(0)
    return sum(cells[1:7]) + sum(cells[8:14])


def test_endgame_values_agree_with_a_minimax_over_openspiel_states(engine):
    rng = random.Random(7)
    memo = {}
    checked = 0
    while checked < 300:
        state = GAME.new_initial_state()
        # Random play until at most 10 seeds are left in the houses.
        while not state.is_terminal() and houses_seeds(state) > 10:
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        position = from_state(state)
        assert position.to_move == ("S" if state.current_player() == 0 else "N")
        assert engine.value(position, RULES) == minimax(state, memo), position
        checked += 1


def final_difference(bots):
    """Plays a game; South's final score minus North's."""
    state = GAME.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    south, north = openspiel_scores(state)
    return south - north


@pytest.fixture(scope="module")
def perfect():
    # A 20-seed database built in memory once (about 6 s on two cores):
    # a perfect game of Kalah(6,4) then takes about 10 s.
    return PerfectBot(kalah.Engine(threads=2, db_seeds=20))


def test_the_perfect_bot_against_itself_reaches_plus_8(perfect):
    # Kalah(6,4), standard capture: South wins by 8 (Irving et al. 2000).
    assert final_difference([perfect, perfect]) == 8


def test_the_perfect_bot_never_loses_to_a_random_bot(perfect):
    # Through OpenSpiel's own game loop: the perfect player wins as South.
    for seed in range(2):
        returns = evaluate_bots.evaluate_bots(GAME.new_initial_state(), [perfect, pyspiel.make_uniform_random_bot(1, seed)], np.random.RandomState(seed))
        assert returns[0] == 1.0


def test_the_perfect_bot_never_loses_to_mcts(perfect):
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(GAME, uct_c=2, max_simulations=300, evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    assert final_difference([perfect, bot]) >= 8


def test_actions_of_a_line_of_play(engine):
    start = kalah.Position.start(6, 4)
    # South's 3 ends in its store: South plays again, then 6 passes the turn.
    assert to_actions(start, [3, 6, 1]) == [3, 6, 8]
    with pytest.raises(ValueError):
        to_action(kalah.Position.start(4, 3), 1)
