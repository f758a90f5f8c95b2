"""Moon Shot replay pictures as a vector scene (``envs.core.scene``), for the replay page.

The table seen from above as in ``envs.moon_shot.render`` (x to the right, y up): the
tree at the origin, the tube (MS-3: walls grey, interior shaded), the three pieces as
their MS-4 pentagon footprints coloured by size (small yellow, medium orange, large red;
a piece that stayed standing, MS-7, as its square base) and the shot's trajectories; under
it the scores, round and seat to shoot, and the shot: its MS-5 action, realised MS-6/MS-7
launch, kind and points (MS-10..MS-13). The pieces and trails carry ids
(``ms-piece-k``, ``ms-trail-k``) so the page can move them along the recorded physics
trajectory; :func:`view_json` gives the page the world-to-pixel map and the footprints.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.scene import Scene
from envs.moon_shot import geometry
from envs.moon_shot.params import PIECE_NAMES

WIDTH = 760
TABLE_H = 240
HEIGHT = TABLE_H + 150
PIECE_RGB = ("#fadc3c", "#fa8c28", "#dc3232")
TRAIL_RGB = ("#a59a5e", "#a5765a", "#96525a")
SEAT_NAMES = "player_{}"
KIND_NAMES = ("nothing", "crash landing", "controlled landing", "colony", "crack")
OUTCOMES = ("ongoing", "colony", "crack", "max rounds", "target score")


class View:
    """World metres to page pixels of the table panel (same scale on both axes)."""

    def __init__(self, cfg: Any) -> None:
        params = cfg.params
        self.x0 = -0.06
        x1 = cfg.distance + params.tube_length + 0.06
        self.scale = min(WIDTH / (x1 - self.x0), TABLE_H / 0.07)
        self.yc = TABLE_H / 2.0

    def px(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64)
        return np.stack(
            [(xy[..., 0] - self.x0) * self.scale, self.yc - xy[..., 1] * self.scale], -1
        )


def _square(pose: np.ndarray, half: float) -> np.ndarray:
    return np.asarray(pose[:2]) + np.array(
        [[-half, -half], [half, -half], [half, half], [-half, half]]
    )


def piece_polygons(cfg: Any, poses: np.ndarray, toppled: np.ndarray | None) -> list[np.ndarray]:
    """World polygons of the three pieces (footprint, or square base while standing)."""
    params = cfg.params
    polys = geometry.footprints(np.asarray(poses, np.float64), params)
    halves = params.sizes()[:, 0] / 2.0
    return [
        polys[k] if toppled is None or toppled[k] else _square(poses[k], halves[k])
        for k in range(3)
    ]


def scene(
    cfg: Any,
    scores: np.ndarray,
    round_: int,
    seat: int,
    done: bool,
    outcome: int,
    shot: dict[str, Any] | None = None,
    trails: np.ndarray | None = None,
    agents: list[str] | None = None,
) -> Scene:
    """The table after ``shot`` (the tree alone when None) and the game's text."""
    params = cfg.params
    v = View(cfg)
    sc = Scene(WIDTH, HEIGHT, "#181c30")
    sc.rect(0, 0, WIDTH, TABLE_H, "#181c30")
    x0, x1, y0, y1 = geometry.tube_interior(cfg.distance, params)
    sc.poly(v.px(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])), "#2c3450")
    for wall in geometry.tube_walls(cfg.distance, params):
        sc.poly(v.px(wall), "#aaaab4")
    c = v.px(np.zeros(2))
    sc.line([(c[0] - 5, c[1]), (c[0] + 5, c[1])], "#5ac878", 2)
    sc.line([(c[0], c[1] - 5), (c[0], c[1] + 5)], "#5ac878", 2)
    for k in range(3):
        pts = np.repeat(c[None], 2, 0) if trails is None else v.px(trails[:, k, :2])
        sc.line(pts, TRAIL_RGB[k], 1.5)
        sc.items[-1][1]["id"] = f"ms-trail-{k}"
    if shot is None:  # the tree: nested square bases
        polys = [_square(np.zeros(3), h) for h in params.sizes()[:, 0] / 2.0]
    else:
        polys = piece_polygons(cfg, np.asarray(shot["poses"]), np.asarray(shot["toppled"]))
    for k in (2, 1, 0):  # large first so the small stays visible
        sc.poly(v.px(polys[k]), PIECE_RGB[k], "#101010", 1, id=f"ms-piece-{k}")
    # scale bar: 50 mm
    bar = v.px(np.array([[x0, -0.03], [x0 + 0.05, -0.03]]))
    sc.line(bar, "#d0d0d0", 2)
    sc.text(float(bar[1][0]) + 6, float(bar[1][1]), "50 mm", 11, "#d0d0d0")
    # text under the table
    ty = TABLE_H + 16
    p = len(scores)
    if done:
        head = f"game over ({OUTCOMES[int(outcome)]}) after round {round_}"
    else:
        head = f"round {round_ + 1}/{cfg.max_rounds}: {SEAT_NAMES.format(seat)} to shoot"
    sc.text(10, ty, head, 14, "#f0f0f0", bold=True)
    sc.text(WIDTH - 10, ty, f"tube at {cfg.distance * 1000:.0f} mm", 12, "#c0c0c0", "end")
    for s in range(p):
        name = SEAT_NAMES.format(s) + (f" ({agents[s]})" if agents and s < len(agents) else "")
        x = 10 + (s % 4) * 186
        y = ty + 22 + (s // 4) * 18
        mark = ">" if (not done and s == seat) else " "
        sc.text(x, y, f"{mark} {name}: {int(scores[s])}", 12, "#f0f0f0")
    y = ty + 22 + ((p + 3) // 4) * 18 + 8
    if shot is not None:
        a = shot["action"]
        sc.text(10, y, f"shot by {SEAT_NAMES.format(int(shot['seat']))}: action "
                + " ".join(f"{k}={float(x):+.2f}" for k, x in zip("tvzo", a, strict=True)),
                12, "#f0f0f0")  # fmt: skip
        if "launch" in shot:
            th, sp, z, o = shot["launch"]
            sc.text(10, y + 18, f"launch: aim {np.degrees(th):+.1f} deg, {sp:.2f} m/s, strike"
                    f" {z * 1000:.1f} mm, offset {o:+.2f}", 12, "#c0c0c0")  # fmt: skip
        kind = shot.get("kind", "")
        sc.text(10, y + 36, f"{kind}: +{int(shot['points'])}", 13, "#ffd070", bold=True)
    for k in range(3):
        lx = WIDTH - 330 + k * 110
        sc.rect(lx, HEIGHT - 22, 12, 12, PIECE_RGB[k])
        sc.text(lx + 16, HEIGHT - 16, PIECE_NAMES[k], 11, "#d0d0d0")
    return sc


def view_json(cfg: Any) -> dict[str, Any]:
    """What the page's script needs to draw pieces at any pose (pixels per metre etc.)."""
    v = View(cfg)
    local = [geometry.local_footprint(k, cfg.params).tolist() for k in range(3)]
    return {"x0": v.x0, "scale": v.scale, "yc": v.yc, "local": local}


def trajectory(frames: np.ndarray, max_frames: int = 48) -> np.ndarray:
    """Subsampled (T, 3, 3) poses of one shot until every piece rests."""
    f = np.asarray(frames, np.float64)
    t = f.shape[0]
    moving = np.flatnonzero(np.any((f != f[-1]).reshape(t, -1), axis=1))
    end = int(moving[-1]) + 1 if len(moving) else 0
    idx = np.unique(np.linspace(0, end, min(end + 1, max_frames)).astype(int))
    return f[idx]


def replay_scenes(record: Any, animate: bool = False) -> tuple[list[Scene], dict[str, Any]]:
    """One scene per position of a game record (the start, then after each shot) and the
    animation data of every shot (``animate``: also the in-flight scenes, for GIFs); the
    record is replayed bit for bit first, with the shots' physics trajectories."""
    from envs.core.records import replay

    rep = replay(record, keep_states=True, frames=True)
    cfg = rep.facade
    out: list[Scene] = []
    traj: list[Any] = []
    topp: list[Any] = []
    for k, st in enumerate(rep.states):
        args = (cfg, st.scores[0], int(st.round[0]), int(st.seat[0]), bool(st.done[0]))
        if k == 0:
            out.append(scene(*args, int(st.outcome[0]), None, None, record.agents))
            continue
        sh = rep.shots[k - 1]
        path = trajectory(sh.frames[0])
        shot = dict(record.shots[k - 1], toppled=sh.toppled[0].tolist())
        if animate:
            prev = rep.states[k - 1]
            pargs = (cfg, prev.scores[0], int(prev.round[0]), int(prev.seat[0]), False, 0)
            for f in range(1, len(path), 3):
                moving = dict(shot, poses=path[f], kind="in flight", points=0)
                out.append(scene(*pargs, moving, path[: f + 1], record.agents))
        out.append(scene(*args, int(st.outcome[0]), shot, path, record.agents))
        traj.append(np.round(path, 6).tolist())
        topp.append(sh.toppled[0].tolist())
    anim = dict(view_json(cfg), traj=traj, toppled=topp)
    anim["halves"] = (cfg.params.sizes()[:, 0] / 2.0).tolist()
    return out, anim
