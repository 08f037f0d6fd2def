"""Tournaments as plain values and pure transitions: formats, pairings, standings, tie-breaks.

A :class:`~lobby.tournaments.model.Tournament` is a frozen value; every transition of
:mod:`~lobby.tournaments.lifecycle` (``create``, ``join``, ``withdraw``, ``start``,
``pair_round``, ``record_result``, ``finish``, ``cancel``) returns a new one with ``version``
bumped, or the same value when it changes nothing (a repeated result), or raises
:class:`~protocol.errors.TournamentError` with a stable ``code``, and then nothing changes. A
game of the event is a :class:`~lobby.tournaments.model.Game` with a deterministic id
(``<tournament>.<round>.<board>``, ``.<replay>`` for a knockout replay, ``<tournament>.a<n>``
in an arena) that the server turns into an ordinary room, idempotently on that id.

The modules: :mod:`~lobby.tournaments.model` (the values and their data),
:mod:`~lobby.tournaments.lifecycle` (the transitions and what is due next), one module a
format with its pairing rules and the choices made where players' customs leave one
(:mod:`~lobby.tournaments.round_robin`, :mod:`~lobby.tournaments.swiss`,
:mod:`~lobby.tournaments.knockout`, :mod:`~lobby.tournaments.arena`), and
:mod:`~lobby.tournaments.standings` (scores, tie-breaks, the crosstable).

Withdrawing before the start leaves the event; withdrawing during it forfeits the game in
progress and every later game (a forfeit scores like a win or a loss but is left out of
tie-breaks and performance). Standings rank by each format's score and tie-breaks, then seed.

The package imports networkx, :mod:`rules` (to check the game and options),
:mod:`lobby.clocks` (for the longest clock), :mod:`lobby.identity` and :mod:`protocol.errors`
(its refusals); no I/O.
"""
