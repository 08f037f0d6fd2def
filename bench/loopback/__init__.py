"""Deployments on loopback ports and the tools to break them, for the drills and the tests.

:mod:`~bench.loopback.topology` runs redis-server, several ``python -m server`` processes and
HAProxy with the configuration in deploy/; :mod:`~bench.loopback.drills` plays games through
it while it breaks Redis and the servers; :mod:`~bench.loopback.tcp_proxy` resets connections
the way a network does; :mod:`~bench.loopback.http` is a small HTTP client on asyncio streams;
:mod:`~bench.loopback.tictactoe` is a small game behind the rules API that
``python -m bench.loopback.serve`` (the server with it registered) lets them play.
``python -m bench.drills`` prints the drills' report; tests/deploy and tests/e2e use them too.
"""
