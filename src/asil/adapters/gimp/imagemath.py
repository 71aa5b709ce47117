"""Image statistics and SSIM for the GIMP checkpoints (pure Python, no numpy).

The raw validator does not use this module: it decodes with ffmpeg and computes the same
definitions with its own code (``rawpixels``), so the two readers check each other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

BLOCK = 8
C1, C2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2


def channel_stats(values: Sequence[int]) -> dict[str, float]:
    count = len(values)
    mean = sum(values) / count
    return {"mean": round(mean, 3), "min": float(min(values)), "max": float(max(values)),
            "std": round(math.sqrt(sum((v - mean) ** 2 for v in values) / count), 3)}


def ssim(first: Sequence[Sequence[int]], second: Sequence[Sequence[int]], width: int, height: int) -> float:
    """Mean structural similarity of two same-sized images given as channel planes (row-major).

    SSIM is taken on non-overlapping 8x8 blocks (the whole image when smaller) and averaged over
    blocks and channels: 1.0 for identical images, near 0 for unrelated ones.
    """
    scores = [_plane_ssim(a, b, width, height) for a, b in zip(first, second, strict=True)]
    return round(sum(scores) / len(scores), 4)


def _plane_ssim(a: Sequence[int], b: Sequence[int], width: int, height: int) -> float:
    bw, bh = min(BLOCK, width), min(BLOCK, height)
    scores = []
    for top in range(0, height - bh + 1, bh):
        for left in range(0, width - bw + 1, bw):
            xs = [a[(top + r) * width + left + c] for r in range(bh) for c in range(bw)]
            ys = [b[(top + r) * width + left + c] for r in range(bh) for c in range(bw)]
            scores.append(_block_ssim(xs, ys))
    return sum(scores) / len(scores)


def _block_ssim(xs: list[int], ys: list[int]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    vx = sum((x - mx) ** 2 for x in xs) / n
    vy = sum((y - my) ** 2 for y in ys) / n
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / n
    return ((2 * mx * my + C1) * (2 * cov + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2))


STATS = ("mean", "min", "max", "std", "edge", "chroma")
CHANNEL_INDEX = {"red": 0, "green": 1, "blue": 2}


def image_stat(planes: list[list[int]], width: int, height: int, target: str) -> float | list[float]:
    """The statistic ``target`` names, ``stat[:channel][@x,y,w,h]``, of R, G, B planes (row-major).

    ``mean``/``min``/``max``/``std`` per channel; ``edge`` is the largest absolute difference of
    horizontal neighbours per channel (a blur lowers it: hard edges become ramps); ``chroma`` is the mean
    of max(R,G,B) - min(R,G,B) over pixels (0 for gray). A list per channel, or one number when a
    channel is named (chroma is always one number).
    """
    head, _, region = target.partition("@")
    stat, _, channel = head.partition(":")
    if stat not in STATS or (channel and channel not in CHANNEL_INDEX):
        raise ValueError(f"unknown statistic {head!r}: use one of {', '.join(STATS)}, optionally :red/:green/:blue")
    if region:
        x, y, w, h = (int(part) for part in region.split(","))
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width or y + h > height:
            raise ValueError(f"the region {region} is not inside the {width}x{height} image")
        planes = [[plane[(y + r) * width + x + c] for r in range(h) for c in range(w)] for plane in planes]
        width, height = w, h
    if stat == "chroma":
        spread = sum(max(p) - min(p) for p in zip(*planes, strict=True))
        return round(float(spread) / (width * height), 3)
    if stat == "edge":
        values = [_edge(plane, width, height) for plane in planes]
    else:
        values = [float(channel_stats(plane)[stat]) for plane in planes]
    return values[CHANNEL_INDEX[channel]] if channel else values


def _edge(plane: list[int], width: int, height: int) -> float:
    steps = (abs(plane[r * width + c + 1] - plane[r * width + c]) for r in range(height) for c in range(width - 1))
    return float(max(steps, default=0))
