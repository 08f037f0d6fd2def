"""The pie rule (swap), written once for every game that offers it (Boche and Ankor).

After the first move, the second player may answer ``swap`` instead of moving: the players
exchange colours and the board stays as it is.  In the rules, seats are colours, so a swap
changes nothing on the board and leaves the SECOND colour to move again (now held by the
player who made the first move); it is still an entry of the game record, so a replay sees
it.  The room, which maps seats to players, exchanges that mapping when a swap is played.
Imports only :mod:`rules.api`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.api import Flag

SWAP_TEXT = "swap"


@dataclass(frozen=True, slots=True)
class Swap:
    """The swap move; one value, :data:`SWAP`, stands for it."""

    def __str__(self) -> str:
        return SWAP_TEXT


SWAP = Swap()

PIE_FLAGS = (
    Flag("swap", "pie", True, help="the second player may swap colours after the first move"),
    Flag("no_swap", "pie", False, help="no swap offer"),
)
"""The on/off option for the swap, to be added to a game's FLAGS (field ``pie``, default on)."""


def is_swap_text(text: str) -> bool:
    """Whether ``text`` is the swap move (case and surrounding space ignored)."""
    return text.strip().lower() == SWAP_TEXT


def can_swap(moves_played: int, pie: bool) -> bool:
    """Whether a swap is legal now: the option is on and exactly one move has been played."""
    return pie and moves_played == 1


def is_swap(move: object) -> bool:
    """Whether ``move`` is the swap, for callers that hold moves of any game."""
    return isinstance(move, Swap)
