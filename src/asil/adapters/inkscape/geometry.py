"""Plane geometry for SVG: affine transforms, path parsing, and bounding boxes of simple shapes.

Boxes are computed in document user units. Curves are bounded exactly (Bezier extrema after the
transform, ellipses by their transformed half-axes); elliptical arcs are bounded by their end
points and centre extremes only when they are axis-aligned, which is what the tasks use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1
Point = tuple[float, float]

UNITS = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_LENGTH = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-z]*)\s*$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"\s*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)\s*,?")
_PATH_TOKEN = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


class GeometryError(ValueError):
    """A length, transform or path that cannot be read."""


@dataclass(frozen=True)
class Matrix:
    """The affine map (x, y) -> (a x + c y + e, b x + d y + f), as in SVG's matrix(a b c d e f)."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    def __matmul__(self, other: Matrix) -> Matrix:
        """``self @ other`` applies ``other`` first, then ``self``."""
        return Matrix(self.a * other.a + self.c * other.b, self.b * other.a + self.d * other.b,
                      self.a * other.c + self.c * other.d, self.b * other.c + self.d * other.d,
                      self.a * other.e + self.c * other.f + self.e, self.b * other.e + self.d * other.f + self.f)

    def apply(self, x: float, y: float) -> Point:
        return self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f

    def inverse(self) -> Matrix:
        det = self.a * self.d - self.b * self.c
        if abs(det) < 1e-12:
            raise GeometryError("the transform is singular (it flattens the shape)")
        a, b, c, d = self.d / det, -self.b / det, -self.c / det, self.a / det
        return Matrix(a, b, c, d, -(a * self.e + c * self.f), -(b * self.e + d * self.f))

    @property
    def scale(self) -> float:
        """The mean linear scale (square root of the determinant), for stroke widths."""
        return math.sqrt(abs(self.a * self.d - self.b * self.c))

    @property
    def is_identity(self) -> bool:
        return self == Matrix()


IDENTITY = Matrix()


def translate(dx: float, dy: float) -> Matrix:
    return Matrix(e=dx, f=dy)


def length(text: str | None, default: float | None = None) -> float:
    """An SVG length in user units (px); ``default`` when absent; GeometryError when unreadable."""
    if text is None or not text.strip():
        if default is None:
            raise GeometryError("a length is missing")
        return default
    match = _LENGTH.match(text)
    if not match or match.group(2) not in UNITS:
        raise GeometryError(f"{text!r} is not a length in px, pt, pc, mm, cm or in")
    return float(match.group(1)) * UNITS[match.group(2)]


def parse_transform(text: str | None) -> Matrix:
    """The matrix of an SVG transform list such as ``translate(10,5) rotate(30)``."""
    result = IDENTITY
    if not text or not text.strip():
        return result
    pos = 0
    while pos < len(text):
        match = _TRANSFORM.match(text, pos)
        if not match:
            if text[pos:].strip():
                raise GeometryError(f"cannot read the transform {text!r}")
            break
        result = result @ _one_transform(match.group(1), [float(n) for n in _NUMBER.findall(match.group(2))])
        pos = match.end()
    return result


def _one_transform(kind: str, n: list[float]) -> Matrix:
    arity = {"matrix": (6,), "translate": (1, 2), "scale": (1, 2), "rotate": (1, 3), "skewX": (1,), "skewY": (1,)}
    if len(n) not in arity[kind]:
        raise GeometryError(f"{kind}() takes {' or '.join(map(str, arity[kind]))} numbers, not {len(n)}")
    if kind == "matrix":
        return Matrix(*n)
    if kind == "translate":
        return Matrix(e=n[0], f=n[1] if len(n) > 1 else 0.0)
    if kind == "scale":
        return Matrix(a=n[0], d=n[1] if len(n) > 1 else n[0])
    if kind == "rotate":
        t = math.radians(n[0])
        turn = Matrix(math.cos(t), math.sin(t), -math.sin(t), math.cos(t))
        if len(n) == 3:
            return translate(n[1], n[2]) @ turn @ translate(-n[1], -n[2])
        return turn
    if kind == "skewX":
        return Matrix(c=math.tan(math.radians(n[0])))
    return Matrix(b=math.tan(math.radians(n[0])))


def format_matrix(m: Matrix) -> str:
    if m.a == 1 and m.b == 0 and m.c == 0 and m.d == 1:
        return f"translate({num(m.e)},{num(m.f)})"
    return "matrix(" + ",".join(num(v, 8) for v in (m.a, m.b, m.c, m.d, m.e, m.f)) + ")"


def num(value: float, places: int = 4) -> str:
    """A number as SVG writes it: no trailing zeros, at most ``places`` decimals."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


# ---------------------------------------------------------------- boxes


def union(boxes: Iterable[Box | None]) -> Box | None:
    found = [b for b in boxes if b is not None]
    if not found:
        return None
    return (min(b[0] for b in found), min(b[1] for b in found), max(b[2] for b in found), max(b[3] for b in found))


def points_box(points: Iterable[Point]) -> Box | None:
    pts = list(points)
    if not pts:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def grow(box: Box | None, by: float) -> Box | None:
    return None if box is None else (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def line_stroke_box(p: Point, q: Point, half: float, square: bool) -> Box | None:
    """The box of a stroked straight segment with butt (or square) caps."""
    length_ = math.hypot(q[0] - p[0], q[1] - p[1])
    if length_ == 0:
        return None if not square else grow(points_box([p]), half)
    ux, uy = (q[0] - p[0]) / length_, (q[1] - p[1]) / length_
    nx, ny = -uy * half, ux * half
    ex, ey = (ux * half, uy * half) if square else (0.0, 0.0)
    return points_box([(p[0] - ex + sx * nx, p[1] - ey + sx * ny) for sx in (-1, 1)]
                      + [(q[0] + ex + sx * nx, q[1] + ey + sx * ny) for sx in (-1, 1)])


def rect_box(x: float, y: float, w: float, h: float, m: Matrix) -> Box | None:
    return points_box(m.apply(px, py) for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)))


def ellipse_box(cx: float, cy: float, rx: float, ry: float, m: Matrix) -> Box:
    x, y = m.apply(cx, cy)
    half_w = math.hypot(m.a * rx, m.c * ry)
    half_h = math.hypot(m.b * rx, m.d * ry)
    return x - half_w, y - half_h, x + half_w, y + half_h


def polyline_points(text: str) -> list[Point]:
    values = [float(v) for v in _NUMBER.findall(text or "")]
    if len(values) % 2:
        raise GeometryError("a points list needs an even count of numbers")
    return list(zip(values[0::2], values[1::2], strict=True))


def path_box(d: str, m: Matrix) -> Box | None:
    """The exact box of a path's lines and Bezier curves (arcs by their end points and extremes)."""
    pts: list[Point] = []
    for seg in path_segments(d):
        mapped = [m.apply(*p) for p in seg]
        pts.append(mapped[0])
        pts.append(mapped[-1])
        if len(mapped) == 4:
            pts += [_cubic(mapped, t) for t in _cubic_extrema(mapped)]
    return points_box(pts)


def path_segments(d: str) -> list[list[Point]]:
    """The path as absolute segments: [p0, p1] lines and [p0, c1, c2, p3] cubics (quadratics raised)."""
    tokens = _PATH_TOKEN.findall(d or "")
    if not tokens:
        return []
    if not tokens[0][0] or tokens[0][0] not in "Mm":
        raise GeometryError("a path must start with a moveto (M or m)")
    segments: list[list[Point]] = []
    cur = start = last_ctrl = (0.0, 0.0)
    command, i = "", 0
    while i < len(tokens):
        if tokens[i][0]:
            command = tokens[i][0]
            i += 1
            if command in "Zz":
                segments.append([cur, start])
                cur = last_ctrl = start
                continue
        count = _ARGS[command.upper()]
        if i + count > len(tokens) or any(t[0] for t in tokens[i:i + count]):
            raise GeometryError(f"the path command {command!r} is missing numbers")
        args = [float(t[1]) for t in tokens[i:i + count]]
        i += count
        cur, start, last_ctrl, command = _step(command, args, cur, start, last_ctrl, segments)
    return segments


def _step(command: str, a: list[float], cur: Point, start: Point, ctrl: Point,
          segs: list[list[Point]]) -> tuple[Point, Point, Point, str]:
    rel = command.islower()
    ox, oy = cur if rel else (0.0, 0.0)
    up = command.upper()

    def p(k: int) -> Point:
        return ox + a[k], oy + a[k + 1]

    if up == "M":
        end = p(0)
        return end, end, end, "l" if rel else "L"  # further pairs are implicit linetos
    if up in "LHV":
        end = p(0) if up == "L" else ((ox + a[0], cur[1]) if up == "H" else (cur[0], oy + a[0]))
        segs.append([cur, end])
        return end, start, end, command
    if up in "CS":
        c1 = (2 * cur[0] - ctrl[0], 2 * cur[1] - ctrl[1]) if up == "S" else p(0)
        c2, end = (p(0), p(2)) if up == "S" else (p(2), p(4))
        segs.append([cur, c1, c2, end])
        return end, start, c2, command
    if up in "QT":
        q = (2 * cur[0] - ctrl[0], 2 * cur[1] - ctrl[1]) if up == "T" else p(0)
        end = p(0) if up == "T" else p(2)
        c1 = (cur[0] + 2 / 3 * (q[0] - cur[0]), cur[1] + 2 / 3 * (q[1] - cur[1]))
        c2 = (end[0] + 2 / 3 * (q[0] - end[0]), end[1] + 2 / 3 * (q[1] - end[1]))
        segs.append([cur, c1, c2, end])
        return end, start, q, command
    end = p(5)  # arc: bound by the end points (see the module docstring)
    segs.append([cur, end])
    return end, start, end, command


def _cubic(p: list[Point], t: float) -> Point:
    u = 1 - t
    return (u**3 * p[0][0] + 3 * u * u * t * p[1][0] + 3 * u * t * t * p[2][0] + t**3 * p[3][0],
            u**3 * p[0][1] + 3 * u * u * t * p[1][1] + 3 * u * t * t * p[2][1] + t**3 * p[3][1])


def _cubic_extrema(p: list[Point]) -> list[float]:
    found: list[float] = []
    for k in (0, 1):
        a = -p[0][k] + 3 * p[1][k] - 3 * p[2][k] + p[3][k]
        b = 2 * (p[0][k] - 2 * p[1][k] + p[2][k])
        c = p[1][k] - p[0][k]
        if abs(a) < 1e-12:
            roots = [-c / b] if abs(b) > 1e-12 else []
        else:
            disc = b * b - 4 * a * c
            roots = [] if disc < 0 else [(-b + s * math.sqrt(disc)) / (2 * a) for s in (1, -1)]
        found += [t for t in roots if 0 < t < 1]
    return found


def box_to_xywh(box: Box) -> list[float]:
    return [round(box[0], 3), round(box[1], 3), round(box[2] - box[0], 3), round(box[3] - box[1], 3)]
