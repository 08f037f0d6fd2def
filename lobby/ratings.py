"""Glicko-2 ratings: one (rating, deviation, volatility) per account and game, as pure functions.

The formulas are Glickman's "Example of the Glicko-2 system" (2013), written once here and
tested on its worked example. The ``glicko2`` package (2.1.0) was measured and set aside: its
volatility step uses the player's rating where the paper uses the deviation (``f(x)`` has
``mu**2`` for ``phi**2``), so a whole field shifted by 400 points gets a different volatility
than the same field unshifted; the paper's example hides this because its player sits at 1500.
It also installs a top-level ``tests`` package that shadows ours.

Each rated game is its own rating period, so a player's rating moves as soon as a game ends;
a player who stays away grows uncertain again (:func:`age`). Guests are never rated.
Standard library and :mod:`lobby.identity` only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lobby.identity import Player

SCALE = 173.7178
"""Glicko-2's conversion between the rating scale and its internal scale."""

DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5
"""The system constant: how fast volatility may change. Glickman suggests 0.3 to 1.2."""

PROVISIONAL_DEVIATION = 110.0
"""A rating whose deviation is above this is provisional and shown with ``?``."""

PERIOD_SECONDS = 7 * 24 * 3600.0
"""An idle week counts as one rating period without games when a player comes back."""

_EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating on the familiar scale (1500 for a newcomer)."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def is_provisional(self) -> bool:
        """Whether the deviation is still too high for the rating to mean much."""
        return self.deviation > PROVISIONAL_DEVIATION

    def text(self) -> str:
        """``1732`` for an established rating, ``1500?`` for a provisional one."""
        shown = f"{round(self.rating)}"
        return f"{shown}?" if self.is_provisional else shown

    def to_data(self) -> dict[str, float]:
        return {"r": self.rating, "rd": self.deviation, "vol": self.volatility}

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> Rating:
        """Raises ValueError for data that is not a rating."""
        try:
            return cls(
                float(data["r"]),  # type: ignore[arg-type]
                float(data["rd"]),  # type: ignore[arg-type]
                float(data["vol"]),  # type: ignore[arg-type]
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a rating: {data!r}") from error


def can_be_rated(first: Player, second: Player) -> bool:
    """A game is rated only between two registered players; guests play casual games."""
    return not first.guest and not second.guest and first.id != second.id


COMPUTER_POOL_SUFFIX = ":computer"
"""Games against a bot are rated in a pool of their own per game, apart from people's."""
BOT_ID_PREFIX = "u:bot-"
"""Bot accounts hold the reserved names ``bot-N`` (lobby.accounts.RESERVED_PREFIXES)."""


def rating_pool(game: str, first: Player, second: Player) -> str:
    """The pool a rated game counts in: the game's own, or its computer pool when a bot plays,
    so that bots' ratings and games against them never move people's leaderboard."""
    if first.id.startswith(BOT_ID_PREFIX) or second.id.startswith(BOT_ID_PREFIX):
        return game + COMPUTER_POOL_SUFFIX
    return game


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period of ``(opponent, score)`` results.

    A score is 1 for a win, 0.5 for a draw, 0 for a loss. With no results, only the deviation
    grows (step 6 of the paper). Raises ValueError for a score outside [0, 1].
    """
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, _capped(math.sqrt(phi**2 + sigma**2)) * SCALE, sigma)
    terms: list[tuple[float, float, float]] = []
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 and 1, not {score}")
        g = _g(opponent.deviation / SCALE)
        expected = 1.0 / (1.0 + math.exp(-g * (mu - (opponent.rating - DEFAULT_RATING) / SCALE)))
        terms.append((g, expected, score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    improvement = sum(g * (s - e) for g, e, s in terms)
    new_sigma = _new_volatility(phi, sigma, v, v * improvement, tau)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    new_mu = mu + new_phi**2 * improvement
    return Rating(new_mu * SCALE + DEFAULT_RATING, _capped(new_phi) * SCALE, new_sigma)


def rate_game(first: Rating, second: Rating, first_score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game, each rated against the other's rating before it."""
    return update(first, [(second, first_score)]), update(second, [(first, 1.0 - first_score)])


def age(rating: Rating, idle_seconds: float) -> Rating:
    """The rating of a player back after ``idle_seconds``: one empty period per idle week."""
    periods = int(max(0.0, idle_seconds) // PERIOD_SECONDS)
    if periods == 0:
        return rating
    phi = rating.deviation / SCALE
    grown = math.sqrt(phi**2 + periods * rating.volatility**2)
    return Rating(rating.rating, _capped(grown) * SCALE, rating.volatility)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm on f(x) = 0 for x = ln(sigma'^2)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    low = a
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > _EPSILON:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = middle, f_middle
    return math.exp(low / 2.0)


def _capped(phi: float) -> float:
    """A deviation never exceeds a newcomer's."""
    return min(phi, DEFAULT_DEVIATION / SCALE)
