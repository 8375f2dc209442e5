"""A bounded map of what a process keeps because it was used lately: at most ``bound``
entries, the least recently used let go first."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        """The entry, now the most recently used; None if not kept."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the most recently used, letting the least recent go past the
        bound."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.bound:
            self._entries.popitem(last=False)
