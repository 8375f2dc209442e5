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
    (0.0, 0.0186),
    (0.002, 0.0186),
    (0.0389, 0.0979),
    (0.1086, 0.1088),
    (0.1703, 0.25),
    (0.2134, 0.2554),
    (0.2588, 0.3204),
    (0.2904, 0.3485),
    (0.3525, 0.3679),
    (0.4106, 0.3774),
    (0.4604, 0.423),
    (0.5398, 0.5269),
    (0.6464, 0.5487),
    (0.7503, 0.6246),
    (0.8083, 0.7376),
    (0.85, 0.7848),
    (0.8796, 0.7963),
    (0.9103, 0.8085),
    (0.9294, 0.8673),
    (0.9499, 0.8876),
    (0.9685, 0.9035),
    (0.9981, 0.9595),
    (1.0, 0.9595),
)
"""The fit used by reviews and hints: ``bench/review.py --rounds 16 calibration`` on 51
two-player Medium self-play games (seeds 100000 to 100050, 6,654 judged decisions), apart from
the games that test it (docs/ai.md, "Calibration"). Raw chances between two knots are read on
the line that joins them."""


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
