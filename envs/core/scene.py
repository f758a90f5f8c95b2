"""A tiny vector scene drawn two ways: SVG text (replay pages) and Pillow images (frames).

Each game builds one :class:`Scene` of a position (``envs/<game>/svg.py``); the replay
page embeds ``to_svg`` and the envs' ``rgb_array`` frames are ``to_rgb`` of the same
scene, so a frame and a replay show the same picture with the same coordinates, legend
and text. Coordinates are pixels, y down; colours are ``#rrggbb``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np


@dataclass
class Scene:
    """A list of primitives over a ``width`` x ``height`` canvas."""

    width: int
    height: int
    background: str = "#ffffff"
    items: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def rect(
        self, x: float, y: float, w: float, h: float, fill: str | None, stroke: str | None = None,
        sw: float = 1.0, id: str = "",
    ) -> None:  # fmt: skip
        self.items.append(
            ("rect", dict(x=x, y=y, w=w, h=h, fill=fill, stroke=stroke, sw=sw, id=id))
        )

    def poly(
        self, points: Any, fill: str | None, stroke: str | None = None, sw: float = 1.0,
        id: str = "",
    ) -> None:  # fmt: skip
        pts = [(float(x), float(y)) for x, y in np.asarray(points, np.float64).reshape(-1, 2)]
        self.items.append(("poly", dict(points=pts, fill=fill, stroke=stroke, sw=sw, id=id)))

    def circle(
        self, cx: float, cy: float, r: float, fill: str | None, stroke: str | None = None,
        sw: float = 1.0,
    ) -> None:  # fmt: skip
        self.items.append(("circle", dict(cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, sw=sw)))

    def line(self, points: Any, stroke: str, sw: float = 1.0) -> None:
        pts = [(float(x), float(y)) for x, y in np.asarray(points, np.float64).reshape(-1, 2)]
        self.items.append(("line", dict(points=pts, stroke=stroke, sw=sw)))

    def text(
        self, x: float, y: float, s: str, size: float = 14, fill: str = "#000000",
        anchor: str = "start", bold: bool = False,
    ) -> None:  # fmt: skip
        """Text vertically centred on ``y``; ``anchor`` start / middle / end."""
        self.items.append(
            ("text", dict(x=x, y=y, s=s, size=size, fill=fill, anchor=anchor, bold=bold))
        )


def _paint(fill: str | None, stroke: str | None, sw: float) -> str:
    out = f'fill="{fill or "none"}"'
    if stroke:
        out += f' stroke="{stroke}" stroke-width="{sw:g}"'
    return out


def _pts(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in points)


#: the item kinds drawn with a fill and an outline
_FILLED = ("rect", "poly", "circle")


def to_svg(scene: Scene, extra: str = "") -> str:
    """The scene as one ``<svg>`` element (``extra`` is appended inside it)."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {scene.width} {scene.height}"'
        f' width="{scene.width}" height="{scene.height}" font-family="DejaVu Sans, sans-serif">',
        f'<rect width="{scene.width}" height="{scene.height}" fill="{scene.background}"/>',
    ]
    for kind, d in scene.items:
        ident = f' id="{d["id"]}"' if d.get("id") else ""
        paint = _paint(d["fill"], d["stroke"], d["sw"]) if kind in _FILLED else ""
        if kind == "rect":
            xywh = f'x="{d["x"]:.2f}" y="{d["y"]:.2f}" width="{d["w"]:.2f}" height="{d["h"]:.2f}"'
            out.append(f"<rect{ident} {xywh} {paint}/>")
        elif kind == "poly":
            out.append(f'<polygon{ident} points="{_pts(d["points"])}" {paint}/>')
        elif kind == "circle":
            out.append(f'<circle cx="{d["cx"]:.2f}" cy="{d["cy"]:.2f}" r="{d["r"]:.2f}" {paint}/>')
        elif kind == "line":
            out.append(
                f'<polyline points="{_pts(d["points"])}" fill="none" stroke="{d["stroke"]}"'
                f' stroke-width="{d["sw"]:g}"/>'
            )
        else:
            weight = ' font-weight="bold"' if d["bold"] else ""
            out.append(
                f'<text x="{d["x"]:.2f}" y="{d["y"]:.2f}" font-size="{d["size"]:g}"'
                f' fill="{d["fill"]}" text-anchor="{d["anchor"]}"'
                f' dominant-baseline="central"{weight}>{escape(str(d["s"]))}</text>'
            )
    out.append(extra)
    out.append("</svg>")
    return "\n".join(out)


_FONTS: dict[tuple[int, bool], Any] = {}


def _font(size: float, bold: bool) -> Any:
    from PIL import ImageFont

    key = (int(round(size)), bold)
    if key not in _FONTS:
        name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
        try:
            _FONTS[key] = ImageFont.truetype(name, key[0])
        except OSError:  # no DejaVu on this system: Pillow's own scalable default font
            _FONTS[key] = ImageFont.load_default(size=key[0])
    return _FONTS[key]


def to_rgb(scene: Scene) -> np.ndarray:
    """The scene as an ``(height, width, 3)`` uint8 array (Pillow ``ImageDraw``)."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImportError(
            "rgb_array frames are drawn with Pillow: pip install 'tabletop-arena[render]'"
        ) from None

    img = Image.new("RGB", (scene.width, scene.height), scene.background)
    draw = ImageDraw.Draw(img)
    for kind, d in scene.items:
        w = max(1, int(round(d.get("sw", 1.0))))
        if kind == "rect":
            box = [d["x"], d["y"], d["x"] + d["w"] - 1, d["y"] + d["h"] - 1]
            draw.rectangle(box, fill=d["fill"], outline=d["stroke"], width=w)
        elif kind == "poly":
            draw.polygon(d["points"], fill=d["fill"], outline=d["stroke"], width=w)
        elif kind == "circle":
            c, r = (d["cx"], d["cy"]), d["r"]
            box = [c[0] - r, c[1] - r, c[0] + r, c[1] + r]
            draw.ellipse(box, fill=d["fill"], outline=d["stroke"], width=w)
        elif kind == "line":
            if len(d["points"]) >= 2:
                draw.line(d["points"], fill=d["stroke"], width=w)
        else:
            anchor = {"start": "lm", "middle": "mm", "end": "rm"}[d["anchor"]]
            draw.text(
                (d["x"], d["y"]), str(d["s"]), fill=d["fill"], font=_font(d["size"], d["bold"]),
                anchor=anchor,
            )  # fmt: skip
    return np.asarray(img, dtype=np.uint8).copy()
