"""Monte Carlo tree search (UCT with lightly biased playouts) over :mod:`rules.api`.

The search sees a game only through the GameRules functions, so every registered game (and
every option set) gets the same bot.  The swap on move 2 is an ordinary move to it, valued for
the colour its player ends up with.  A few game-agnostic biases make the few playouts of slow
games count: the root plays a move that wins at once and avoids moves that lose at once; a root
move whose replies are few enough has them all played when it is first expanded, and is dropped
if one of them wins at once for the opponent; a playout move is the best of a few random
candidates, one that wins at once first, else the one that gains its mover the most points
where the game keeps a score during play (else one that does not lose at once).
All-moves-as-first statistics (RAVE) share what a move did anywhere in a playout with its
siblings in the tree, which helps the placement games most.

A game that supplies the optional evaluation hook (:class:`rules.api.Evaluation`) is searched
by the same algorithm with two changes: its playouts stop after :data:`EVALUATED_PLIES` plies
(or as many as the game sets: none for Che) and the position reached is valued by its
``evaluate`` (a playout's result is then a value in [0, 1] rather than a win or a loss), and
its ``move_priors`` order the moves a node expands and bias the selection towards the
promising ones while their visits are few (progressive bias).
A game that supplies the optional sampling hook (:class:`rules.api.MoveSampling`, Che with
three or more tiles a turn) is searched without its move lists: the root and each node consider
a few hundred or a few dozen moves drawn at random, and a playout's candidates are drawn.
Where a game's optional ending hook (:class:`rules.api.EndingMoves`) says that no move of a
position ends the game, the checks for a move that wins or loses at once are skipped there: the
root's scan, the reply scan of a root move and a playout's extra candidates.  Marque's moves
cost about 40 µs each and a reply scan plays a hundred of them, which left its lowest levels a
dozen iterations a move.
Pure apart from the clock it reads to respect a time budget (injectable) and the random
generator it is given.  Imports ``rules`` only.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from bots.levels import Level, find_level
from rules.api import (
    GameRules,
    Seat,
    ending_test,
    evaluated_plies,
    evaluator,
    move_prioritiser,
    move_sampler,
)
from rules.pie import is_swap

EXPLORATION = 0.7
"""UCT exploration constant for rewards in [0, 1]."""
RAVE_EQUIVALENCE = 300
"""Visits at which a child's own mean and its all-moves-as-first mean weigh about the same;
0 turns the all-moves-as-first statistics off."""
PLAYOUT_PLIES = 300
"""A playout that reaches this length is scored from the game's scores, or as a draw.  Random
games of Osbox, Che and Boche last under 60 plies and Marque's about 150; Ankor's, where
cubes wander once the supplies are out, often run past 300, and those add nothing but time."""
MOVES_PER_TRY = 64
"""A playout examines one more random candidate per this many legal moves, looking for a move
that wins at once: listing many moves costs about as much as playing a few, so the search for
a winning move at most doubles the cost of a ply (and games with few moves play uniformly)."""
MAX_TRIES = 16
SCAN_LIMIT = 1024
"""A root move whose replies are at most this many has them all played when the search first
reaches it, to find one that wins at once (an anti-decisive check: two plies, and the positions
are kept for the tree).  A scan costs a few playouts at most, and where one reply can decide the
game (a tile that closes a region) it is worth more than they are; the limit keeps one
iteration short where the lists run to thousands."""
SCORED_TRIES = 2
"""Candidates a playout ply compares at least where the game scores during play (by points
gained), so that playouts take some of the points a random mover would miss.  Two did best in
the match bench: one leaves the playouts blind to the points, four make them cost more than
they tell."""
CLOCK_EVERY = 64
"""The root's scan of the legal moves (for a win or a loss at once) reads the clock this often,
so that even a huge move list cannot overrun the time budget."""

EVALUATED_PLIES = 4
"""Plies a playout plays (with the light bias) before it asks the game's ``evaluate``, where
there is one.  Measured from 0 to 32 plies on a game with the hook (level 1 against random, 60
games each) the differences stayed within the noise, while every setting won more games
than the same level without the hook (15 to 26 wins against 12); four keeps playouts cheap.
A game whose evaluation sees further than a few random plies sets its own: Che and Osbox set
0 (Osbox's level 1 against random over 200 games won 146 with its evaluation of knots being
built and no random plies, 89 with four)."""
SAMPLED_AT_ROOT = 256
"""Moves the root considers in a game that draws its moves at random (the sampling hook,
:class:`rules.api.MoveSampling`) rather than listing tens of thousands of them."""
SAMPLED_AT_NODE = 64
"""Moves a node below the root considers in such a game."""
PRIOR_WEIGHT = 1.0
"""Weight of a move's prior in the selection, fading as 1 / (visits + 1)."""

Reward = float
"""The result of a playout for Seat.FIRST: 1 a win, 0 a loss, 0.5 a draw, or a value between
(from the game's ``evaluate``)."""


class _Node:
    """A position in the tree; ``seat`` is the colour whose wins count here (its mover's).

    ``pending`` holds the moves not yet expanded, with their positions where already known
    (the root's, and a root child's once its replies have been scanned) and their priors; it
    is listed at the node's first expansion, so leaves cost no move listing, and the move
    popped next is the one with the highest prior.
    ``key`` is the hash of (mover, move), the move as the all-moves-as-first statistics see
    it: an int, because the backup looks every child's key up in the moves played below it,
    and hashing a move there again each time cost more than the rest of the backup (two
    different moves with the same hash would only share those statistics).
    ``refuted`` marks a root move after which the opponent has a move that wins at once.
    """

    __slots__ = (
        "move",
        "state",
        "seat",
        "key",
        "prior",
        "pending",
        "children",
        "visits",
        "wins",
        "amaf_visits",
        "amaf_wins",
        "refuted",
    )

    def __init__(self, move: Any, state: Any, mover: Seat | None, prior: float = 0.0) -> None:
        self.move = move
        self.state = state
        self.seat = None if mover is None else _reward_seat(mover, move)
        self.key = hash((mover, move))
        self.prior = prior
        self.pending: list[tuple[Any, Any, float]] | None = None
        self.children: list[_Node] = []
        self.visits = 0
        self.wins = 0.0
        self.amaf_visits = 0
        self.amaf_wins = 0.0
        self.refuted = False


class _Search:
    """The game and what the search asks of it, looked up once per move chosen."""

    __slots__ = ("game", "rng", "evaluate", "evaluated_plies", "priors", "sample", "may_end")

    def __init__(self, game: GameRules, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.evaluate = evaluator(game)
        self.evaluated_plies = evaluated_plies(game, EVALUATED_PLIES)
        self.priors = move_prioritiser(game)
        self.sample = move_sampler(game)
        self.may_end = ending_test(game)

    def quiet(self, state: Any) -> bool:
        """Whether the game promises that no move of ``state`` ends it (its optional ending
        hook, :class:`rules.api.EndingMoves`), so that looking for one is wasted."""
        may_end = self.may_end
        return may_end is not None and not may_end(state)

    def moves(self, state: Any, at_most: int) -> list[Any]:
        """The moves of ``state`` the search considers: all of them, or, where the game draws
        its moves at random because listing them would cost too much, up to ``at_most``
        different ones drawn (in the order drawn, so that a seed repeats the search)."""
        sample = self.sample
        first = None if sample is None else sample(state, self.rng)
        if sample is None or first is None:
            return list(self.game.legal_moves(state))
        drawn = {first: None}
        for _ in range(2 * at_most):
            if len(drawn) >= at_most:
                break
            drawn[sample(state, self.rng)] = None
        return list(drawn)

    def pending(self, state: Any, moves: list[tuple[Any, Any]]) -> list[tuple[Any, Any, float]]:
        """``moves`` (with their positions, or None) in the order a node expands them: shuffled,
        then by prior where the game gives priors (the best last, to be popped first)."""
        self.rng.shuffle(moves)
        if self.priors is None:
            return [(move, after, 0.0) for move, after in moves]
        priors = self.priors(state, [move for move, _ in moves])
        ranked = [(move, after, prior) for (move, after), prior in zip(moves, priors, strict=True)]
        ranked.sort(key=lambda entry: entry[2])
        return ranked


def choose_move(
    game: GameRules,
    state: Any,
    level: Level | int,
    rng: random.Random,
    clock: Callable[[], float] = time.monotonic,
    seconds: float | None = None,
) -> Any:
    """The move the search prefers in ``state``.

    ``level`` caps the playouts and the time; ``seconds`` caps the time further (a live
    clock's share, see :func:`bots.levels.time_budget`).  The root first plays every legal
    move once (stopping at the deadline) to take a win at once and to drop moves that lose at
    once; with no time at all the bot answers with a move it has not searched.  Raises
    ValueError if the game is over (or the level is unknown).
    """
    if isinstance(level, int):
        level = find_level(level)
    started = clock()
    limits = [x for x in (level.seconds, seconds) if x is not None]
    deadline = started + min(limits) if limits else math.inf
    mover = game.to_move(state)
    search = _Search(game, rng)
    legal = search.moves(state, SAMPLED_AT_ROOT) if mover is not None else []
    if mover is None or not legal:
        raise ValueError("the game is over: there is no move to choose")
    if len(legal) == 1:
        return legal[0]

    rng.shuffle(legal)
    candidates: list[tuple[Any, Any]] = []
    if search.quiet(state):
        candidates = [(move, None) for move in legal]
        legal = []
    for index, move in enumerate(legal):
        if index % CLOCK_EVERY == CLOCK_EVERY - 1 and clock() >= deadline:
            if not candidates:
                return move
            break
        after = game.play(state, move)
        if game.to_move(after) is None:
            outcome = game.outcome(after)
            winner = None if outcome is None else outcome.winner
            if winner is _reward_seat(mover, move):
                return move
            if winner is not None:
                continue
        candidates.append((move, after))
    if not candidates:
        return legal[0]
    if len(candidates) == 1:
        return candidates[0][0]

    root = _Node(None, state, None)
    root.pending = search.pending(state, candidates)
    playouts = level.playouts if level.playouts is not None else math.inf
    done = 0
    while done < playouts and clock() < deadline:
        _iterate(search, root)
        done += 1
    sound = [child for child in root.children if not child.refuted]
    if sound:
        return max(sound, key=lambda child: (child.visits, child.wins)).move
    if root.pending:
        return root.pending[-1][0]
    return root.children[0].move if root.children else candidates[0][0]


def _iterate(search: _Search, root: _Node) -> None:
    """One selection, expansion, playout and backup (of the results and the AMAF statistics)."""
    game = search.game
    node = root
    path = [root]
    while True:
        pending = node.pending
        if pending is None:
            if game.to_move(node.state) is None:
                break
            listed = [(move, None) for move in search.moves(node.state, SAMPLED_AT_NODE)]
            pending = node.pending = search.pending(node.state, listed)
        if pending:
            move, after, prior = pending.pop()
            if after is None:
                after = game.play(node.state, move)
            child = _Node(move, after, game.to_move(node.state), prior)
            node.children.append(child)
            path.append(child)
            if node is root:
                refuter = _refuting_winner(search, child)
                if refuter is not None:
                    _backup(path, _seat_reward(refuter), [])
                    return
            node = child
            break
        if not node.children:
            break
        node = _select(node)
        path.append(node)
    played: list[tuple[Seat, Any]] = []
    reward = _playout(search, node.state, played)
    _backup(path, reward, played)


def _refuting_winner(search: _Search, node: _Node) -> Seat | None:
    """List a new root child's replies and, where they are few enough, play them all (keeping
    the positions for its expansion); if one wins at once, mark the child refuted and return
    the winner."""
    game = search.game
    state = node.state
    mover = game.to_move(state)
    if mover is None or search.quiet(state):
        return None
    listed: list[tuple[Any, Any]] = [(m, None) for m in search.moves(state, SAMPLED_AT_NODE)]
    if len(listed) > SCAN_LIMIT:
        node.pending = search.pending(state, listed)
        return None
    for index, (move, _) in enumerate(listed):
        after = game.play(state, move)
        listed[index] = (move, after)
        if game.to_move(after) is None:
            outcome = game.outcome(after)
            winner = _reward_seat(mover, move)
            if outcome is not None and outcome.winner is winner:
                node.refuted = True
                node.pending = search.pending(state, listed)
                return winner
    node.pending = search.pending(state, listed)
    return None


def _backup(path: list[_Node], reward: Reward, played: list[tuple[Seat, Any]]) -> None:
    """Count a playout's result on every node of ``path`` and, for the children of each,
    on the all-moves-as-first statistics of the moves played below it."""
    later = {hash(key) for key in played}
    for visited in reversed(path):
        visited.visits += 1
        visited.wins += reward if visited.seat is Seat.FIRST else 1.0 - reward
        if RAVE_EQUIVALENCE:
            for child in visited.children:
                if child.key in later:
                    child.amaf_visits += 1
                    child.amaf_wins += reward if child.seat is Seat.FIRST else 1.0 - reward
        later.add(visited.key)


def _select(node: _Node) -> _Node:
    """The child with the highest upper confidence bound (every child has been visited).

    The value mixes the child's own mean with its all-moves-as-first mean, which counts every
    playout where the same player made the same move later; its weight fades as the child's
    own visits grow (Gelly and Silver's schedule).  A move's prior (zero for games without
    priors) adds a bias that fades as 1 / (visits + 1).
    """
    scale = EXPLORATION * math.sqrt(math.log(node.visits))
    best = node.children[0]
    best_value = -math.inf
    equivalence = RAVE_EQUIVALENCE
    for child in node.children:
        if child.refuted:
            continue
        visits = child.visits
        value = child.wins / visits
        amaf_visits = child.amaf_visits
        if amaf_visits:
            weight = math.sqrt(equivalence / (3 * visits + equivalence))
            value += weight * (child.amaf_wins / amaf_visits - value)
        value += scale / math.sqrt(visits) + PRIOR_WEIGHT * child.prior / (visits + 1)
        if value > best_value:
            best, best_value = child, value
    return best


def _playout(search: _Search, state: Any, played: list[tuple[Seat, Any]]) -> Reward:
    """Play on to the end (or :data:`PLAYOUT_PLIES`) with the light bias; the result for FIRST.

    Each ply looks at a few random candidates (more where the move list is long, and at least
    :data:`SCORED_TRIES` where the game keeps a score during play) and plays the first that
    wins at once, else the one that gains its mover the most points, preferring moves that
    neither end the game in a draw nor lose it.  Appends each (mover, move) to ``played``.
    A game with ``evaluate`` stops after :data:`EVALUATED_PLIES` plies (or the number the game
    sets, see :func:`rules.api.evaluated_plies`) and is valued by it.
    """
    game = search.game
    legal_moves, play, to_move, scores = game.legal_moves, game.play, game.to_move, game.scores
    random_index = search.rng.random
    record = played.append
    evaluate = search.evaluate
    sample = search.sample
    plies = PLAYOUT_PLIES if evaluate is None else search.evaluated_plies
    least_tries = SCORED_TRIES if scores(state) is not None else 1
    for _ in range(plies):
        mover = to_move(state)
        if mover is None:
            break
        drawn = None if sample is None else sample(state, search.rng)
        if sample is not None and drawn is not None:
            # A list too long to build: as many candidates drawn as a long list would give.
            moves = [drawn, *(sample(state, search.rng) for _ in range(MAX_TRIES - 1))]
            count = tries = MAX_TRIES
        else:
            moves = list(legal_moves(state))
            count = len(moves)
            tries = min(MAX_TRIES, max(least_tries, 1 + count // MOVES_PER_TRY))
            if tries > least_tries and search.quiet(state):
                tries = least_tries  # no candidate can win, lose or draw at once
        if tries == 1:
            move = moves[int(random_index() * count)]
            record((mover, move))
            state = play(state, move)
            continue
        best_rank = -math.inf
        best = None
        for _ in range(tries):
            move = moves[int(random_index() * count)]
            after = play(state, move)
            if to_move(after) is None:
                outcome = game.outcome(after)
                winner = None if outcome is None else outcome.winner
                if winner is mover:
                    record((mover, move))
                    return _seat_reward(mover)
                rank = -1e9 if winner is None else -2e9  # below any score difference
            else:
                points = scores(after)
                rank = 0.0 if points is None else points[mover] - points[1 - mover]
            if rank > best_rank:
                best_rank, best = rank, (move, after)
        assert best is not None
        move, state = best
        record((mover, move))
    else:
        if to_move(state) is not None:
            if evaluate is not None:
                return (1.0 + evaluate(state)) / 2
            return _unfinished_result(game, state)
    outcome = game.outcome(state)
    return _seat_reward(None if outcome is None else outcome.winner)


def _unfinished_result(game: GameRules, state: Any) -> Reward:
    """A playout cut short: a win for the seat ahead on points, or a draw."""
    scores = game.scores(state)
    if scores is None or scores[0] == scores[1]:
        return 0.5
    return 1.0 if scores[0] > scores[1] else 0.0


def _seat_reward(winner: Seat | None) -> Reward:
    """The reward for FIRST of a game that ``winner`` won (None: a draw)."""
    if winner is None:
        return 0.5
    return 1.0 if winner is Seat.FIRST else 0.0


def _reward_seat(mover: Seat, move: Any) -> Seat:
    """The colour the player of ``move`` holds afterwards: a swap takes the other one."""
    return mover.other if is_swap(move) else mover
