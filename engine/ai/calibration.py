"""Calibrated win chances: the search's raw estimates mapped to how often such positions won.

The search scores its playouts with rules of thumb for every seat, so its raw chances are too
sure of themselves at the ends (docs/ai.md, "Calibration"). An isotonic regression fitted on
self-play games (``bench/review.py calibration``, on games apart from those that test it) maps
a raw chance to the share of wins that followed such chances: a monotone step curve, kept here
as its knots and read between them by straight lines.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Knot = tuple[float, float]
"""(raw chance, calibrated chance)."""

FITTED_KNOTS: tuple[Knot, ...] = (
    (0.0, 0.0185),
    (0.001, 0.0185),
    (0.0013, 0.0218),
    (0.0018, 0.0255),
    (0.0024, 0.0299),
    (0.0032, 0.035),
    (0.0043, 0.041),
    (0.0058, 0.0479),
    (0.0078, 0.056),
    (0.0104, 0.0653),
    (0.0139, 0.076),
    (0.0186, 0.0883),
    (0.0248, 0.1023),
    (0.0329, 0.1184),
    (0.0437, 0.1365),
    (0.0578, 0.1569),
    (0.076, 0.1798),
    (0.0994, 0.2052),
    (0.1289, 0.2331),
    (0.1657, 0.2636),
    (0.2104, 0.2965),
    (0.2633, 0.3317),
    (0.3242, 0.3689),
    (0.3915, 0.4077),
    (0.4633, 0.4476),
    (0.5367, 0.4883),
    (0.6085, 0.5291),
    (0.6758, 0.5696),
    (0.7367, 0.6091),
    (0.7896, 0.6472),
    (0.8343, 0.6836),
    (0.8711, 0.7179),
    (0.9006, 0.7497),
    (0.924, 0.7791),
    (0.9422, 0.806),
    (0.9563, 0.8303),
    (0.9671, 0.8521),
    (0.9752, 0.8715),
    (0.9814, 0.8887),
    (0.9861, 0.9039),
    (0.9896, 0.9172),
    (0.9922, 0.9288),
    (0.9942, 0.9389),
    (0.9957, 0.9476),
    (0.9968, 0.9551),
    (0.9976, 0.9617),
    (0.9982, 0.9672),
    (0.9987, 0.972),
    (0.999, 0.9762),
    (1.0, 0.9762),
)
"""The fit used by reviews and hints: ``bench/review.py calibration`` (32 rounds per decision,
as reviews run) on 300 two-player Medium self-play games (seeds 100000 to 100299, 38,316 judged
decisions), apart from the 200 games that test it (docs/ai.md, "Calibration"). Platt scaling,
chosen over the isotonic fit by two-fold cross-validation on the fit games; raw chances between
two knots are read on the line that joins them."""


BINS = 50
"""Bins of raw chance pooled before the fit."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """A monotone map from raw to calibrated chances, by straight lines between knots."""

    knots: tuple[Knot, ...]
    """Knots by increasing raw chance, their calibrated chances never decreasing."""

    def __call__(self, chance: float) -> float:
        xs = [x for x, _ in self.knots]
        index = bisect.bisect_left(xs, chance)
        if index == 0:
            return self.knots[0][1]
        if index == len(self.knots):
            return self.knots[-1][1]
        (x0, y0), (x1, y1) = self.knots[index - 1], self.knots[index]
        if x1 == x0:
            return y1
        return y0 + (y1 - y0) * (chance - x0) / (x1 - x0)


def fit_isotonic(pairs: Iterable[tuple[float, float]]) -> tuple[Knot, ...]:
    """Isotonic regression of outcomes on chances (pool adjacent violators).

    ``pairs`` are (raw chance, outcome 0 to 1). They are first pooled in ``BINS`` equal bins
    of raw chance (so the fit has at most that many knots), then each pooled block becomes a
    knot at its mean raw chance and mean outcome; the ends are pinned at raw 0 and 1 to the
    first and last blocks' outcomes.
    """
    # Each block: [sum of chances, sum of outcomes, count].
    bins: dict[int, list[float]] = {}
    for chance, outcome in pairs:
        block = bins.setdefault(min(BINS - 1, int(chance * BINS)), [0.0, 0.0, 0.0])
        block[0] += chance
        block[1] += outcome
        block[2] += 1.0
    if not bins:
        return ((0.0, 0.0), (1.0, 1.0))
    blocks: list[list[float]] = []
    for index in sorted(bins):
        blocks.append(bins[index])
        while len(blocks) > 1 and _mean(blocks[-2]) >= _mean(blocks[-1]):
            last = blocks.pop()
            for index in range(3):
                blocks[-1][index] += last[index]
    knots = [(block[0] / block[2], block[1] / block[2]) for block in blocks]
    return _pinned(knots)


PLATT_KNOTS = 48
"""Knots that keep a Platt fit: evenly spaced in log-odds, so the curve's ends are drawn as
finely as its middle."""


def fit_platt(pairs: Iterable[tuple[float, float]]) -> tuple[Knot, ...]:
    """Platt scaling: the logistic regression of outcomes on the raw chances' log-odds,
    ``calibrated = 1 / (1 + exp(-(a * logit(raw) + b)))``, fitted by Newton's method and kept
    as knots. Two parameters instead of a step per block: smoother than ``fit_isotonic`` where
    the games are few, and unable to follow a curve that is not of this shape."""
    points = [(_logit(chance), outcome) for chance, outcome in pairs]
    a, b = 1.0, 0.0
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for x, outcome in points:
            p = _sigmoid(a * x + b)
            gradient, weight = p - outcome, p * (1.0 - p)
            ga += gradient * x
            gb += gradient
            haa += weight * x * x
            hab += weight * x
            hbb += weight
        determinant = haa * hbb - hab * hab
        if not points or determinant <= 0.0:
            break
        da = (hbb * ga - hab * gb) / determinant
        db = (haa * gb - hab * ga) / determinant
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-10:
            break
    low, high = _logit(0.0), _logit(1.0)
    xs = [low + (high - low) * index / (PLATT_KNOTS - 1) for index in range(PLATT_KNOTS)]
    knots = [(_sigmoid(x), _sigmoid(a * x + b)) for x in xs]
    return _pinned(knots)


_EDGE = 1e-3
"""Raw chances are read within this of 0 and 1 (a playout's count gives nothing closer)."""


def _logit(chance: float) -> float:
    chance = min(max(chance, _EDGE), 1.0 - _EDGE)
    return math.log(chance / (1.0 - chance))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _mean(block: Sequence[float]) -> float:
    return block[1] / block[2]


def _pinned(knots: list[Knot]) -> tuple[Knot, ...]:
    if knots[0][0] > 0.0:
        knots.insert(0, (0.0, knots[0][1]))
    if knots[-1][0] < 1.0:
        knots.append((1.0, knots[-1][1]))
    return tuple(knots)


calibrated = Calibration(FITTED_KNOTS)
"""The calibration reviews use."""
