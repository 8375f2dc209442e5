"""The server's own Redis client: one pipelined connection per node, routed by slot on a cluster.

The server's one client for Redis: the rooms (``app/store/redis.py``, the commit and the rooms'
subscriptions) and matchmaking (``app/matchmaking/redis_store.py``) both go through it. It
stands in for redis-py's asyncio ``Redis`` and ``RedisCluster``, because on the path every move
takes redis-py 8.1 cost 2.9-4.9 times its CPU per commit and 1.4-1.5 times per announcement
heard (``bench/redis_client.py``, ``docs/performance.md``): a fifth to a third more CPU per
move. Tests and benches still read and seed Redis with redis-py.

It leans on redis-py for what is not about speed: reading a URL (``parse_url``), its TLS
settings (``SSLConnection``), the key slot (``redis.crc.key_slot``) and the exception types, so
a URL means the same to both clients. ``tests/app/resp/test_redis_py_seams.py`` fails when one
of those changes; ``tests/app/resp/test_tls_auth.py`` holds TLS and AUTH to a real Redis. Tested
with redis-py 8 and hiredis 3 (the ranges in ``pyproject.toml``). Run the bench again on each
upgrade of redis-py, and delete this package when redis-py comes within 15% per commit."""
