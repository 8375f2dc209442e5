"""The token bucket per client address behind ``429 too_many_requests``, on a clock of the
test's own: what it lets through is counted, not timed."""

from __future__ import annotations

from app.api.request_rate import RequestBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_address_spends_its_burst_then_gets_the_rate() -> None:
    clock = Clock()
    buckets = RequestBuckets(rate=4.0, burst=10, clock=clock)
    assert [buckets.take("10.0.0.1") for _ in range(10)] == [0.0] * 10
    assert buckets.take("10.0.0.1") == 0.25
    assert buckets.take("10.0.0.2") == 0.0  # another address has its own bucket
    clock.now += 10.0  # 40 requests' worth of refill, but the bucket holds 10
    allowed = 0
    while buckets.take("10.0.0.1") == 0.0:
        allowed += 1
    assert allowed == 10
    clock.now += 0.5
    assert [buckets.take("10.0.0.1") for _ in range(3)][:2] == [0.0, 0.0]


def test_the_buckets_kept_are_bounded_whatever_the_addresses() -> None:
    clock = Clock()
    buckets = RequestBuckets(rate=1.0, burst=5, clock=clock, max_addresses=1000)
    for number in range(50_000):
        buckets.take(f"10.{number // 65536}.{number // 256 % 256}.{number % 256}")
    assert len(buckets) <= 1000
    # The most recent spenders are the ones kept: a busy address cannot be reset by flooding.
    for _ in range(5):
        buckets.take("192.0.2.1")
    for number in range(500):
        buckets.take(f"10.9.{number // 256}.{number % 256}")
    assert buckets.take("192.0.2.1") > 0.0
