"""The budget of bytes per address that replays are sent from (``app/api/byte_budget.py``)."""

from __future__ import annotations

from app.api.byte_budget import SWEEP_AT, ByteBudget, retry_after


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_starts_while_bytes_are_left_and_takes_them_all_into_debt() -> None:
    clock = Clock()
    budget = ByteBudget(per_second=100, burst=1000, clock=clock)
    assert budget.spend("a", 900) == 0
    assert budget.spend("a", 5000) == 0, "100 bytes left: a larger answer still starts"
    # 4,900 bytes of debt: 49 s at 100 a second, then one byte's worth more.
    assert budget.spend("a", 1) == 49.0
    assert budget.spend("b", 1) == 0, "each address has its own"
    clock.now = 49.0
    assert budget.spend("a", 1) == 0.01, "paid off to nothing is not yet something"
    clock.now = 49.5
    assert budget.spend("a", 10) == 0


def test_a_bucket_refills_only_to_its_burst() -> None:
    clock = Clock()
    budget = ByteBudget(per_second=100, burst=1000, clock=clock)
    clock.now = 3600.0
    assert budget.spend("a", 1000) == 0
    assert budget.spend("a", 1) > 0


def test_full_buckets_are_forgotten_so_addresses_cannot_grow_it_without_end() -> None:
    clock = Clock()
    budget = ByteBudget(per_second=100, burst=1000, clock=clock)
    for number in range(SWEEP_AT):
        budget.spend(f"10.0.{number // 256}.{number % 256}", 1000)
    assert len(budget) == SWEEP_AT
    clock.now = 10.0  # every bucket has filled again
    budget.spend("192.0.2.1", 1)
    assert len(budget) == 1


def test_retry_after_is_whole_seconds_and_at_least_one() -> None:
    assert [retry_after(s) for s in (0.01, 1.0, 1.2, 49.0)] == ["1", "1", "2", "49"]
