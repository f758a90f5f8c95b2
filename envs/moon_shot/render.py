"""Drawing Moon Shot apart from the rules: ANSI text, top-down RGB frames, pygame replay.

``rgb_array`` frames are fixed-size ``(H, W, 3)`` uint8 pictures of the table seen from
above (so Gymnasium's ``RecordVideo`` can use them): the tree at the origin, the tube
(grey walls, its interior shaded), the three pieces as their MS-4 pentagon footprints
coloured by size (small yellow, medium orange, large red; a piece still standing is drawn as
its square base) and the trajectories of the last shot's pieces (thin lines). Pixels are
rasterised with numpy only; pygame is imported lazily, for ``human`` mode only, through
:class:`envs.core.render.HumanWindow`.

Every function takes the static config, the game state and the shots to draw (the envs'
``config``, ``state`` and ``last_shot``), never an env object: this module imports no env.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from envs.moon_shot import geometry
from envs.moon_shot.params import PIECE_NAMES, PhysicsParams
from envs.moon_shot.state import OUTCOME_NAMES

if TYPE_CHECKING:
    from envs.moon_shot.batch import MoonShotConfig, Shots
    from envs.moon_shot.state import GameState

WIDTH, HEIGHT = 480, 256
BACKGROUND = np.array([24, 28, 48], dtype=np.uint8)  # the night table
INTERIOR = np.array([44, 52, 80], dtype=np.uint8)
WALL = np.array([170, 170, 180], dtype=np.uint8)
TREE = np.array([90, 200, 120], dtype=np.uint8)
PIECE_COLOURS = np.array([[250, 220, 60], [250, 140, 40], [220, 50, 50]], dtype=np.uint8)
TRAIL_COLOURS = (PIECE_COLOURS.astype(np.int32) // 2 + 40).astype(np.uint8)
MAX_REPLAY_FRAMES = 24


class View:
    """World-to-pixel transform of one panel: x to the right, y up, same scale on both."""

    def __init__(self, tube_distance: float, params: PhysicsParams, width: int, height: int):
        self.x0 = -0.06
        x1 = tube_distance + params.tube_length + 0.06
        # pixels per metre: the whole tube across, and at least +-35 mm of table (walls) high
        self.scale = min(width / (x1 - self.x0), height / 0.07)
        self.width, self.height = width, height
        self.yc = height / 2.0

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        """World metres (..., 2) to pixel coordinates (..., 2)."""
        xy = np.asarray(xy, dtype=np.float64)
        px = (xy[..., 0] - self.x0) * self.scale
        py = self.yc - xy[..., 1] * self.scale
        return np.stack([px, py], axis=-1)


def _fill_polygon(img: np.ndarray, poly_px: np.ndarray, colour: np.ndarray) -> None:
    """Fill a convex CCW (in world coordinates) polygon given in pixel coordinates."""
    h, w = img.shape[:2]
    lo = np.floor(poly_px.min(axis=0)).astype(int)
    hi = np.ceil(poly_px.max(axis=0)).astype(int)
    x0, y0 = max(lo[0], 0), max(lo[1], 0)
    x1, y1 = min(hi[0], w - 1), min(hi[1], h - 1)
    if x0 > x1 or y0 > y1:
        return
    ys, xs = np.mgrid[y0 : y1 + 1, x0 : x1 + 1]
    px = xs + 0.5
    py = ys + 0.5
    inside = np.ones(px.shape, dtype=bool)
    n = len(poly_px)
    # pixel y points down, so a CCW world polygon is CW in pixels: keep the right side
    sign = np.sign(_area(poly_px)) or 1.0
    for i in range(n):
        ax, ay = poly_px[i]
        bx, by = poly_px[(i + 1) % n]
        cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        inside &= cross * sign >= -1e-9
    if not inside.any():  # thinner than a pixel: mark its centre
        c = poly_px.mean(axis=0).astype(int)
        if 0 <= c[0] < w and 0 <= c[1] < h:
            img[c[1], c[0]] = colour
        return
    img[y0 : y1 + 1, x0 : x1 + 1][inside] = colour


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _polyline(img: np.ndarray, pts_px: np.ndarray, colour: np.ndarray) -> None:
    """Draw a 1-pixel polyline by sampling it about once per pixel of its length."""
    h, w = img.shape[:2]
    seglen = np.hypot(*np.diff(pts_px, axis=0).T)
    keep = np.concatenate([[True], seglen > 1e-9])
    pts = pts_px[keep]
    if len(pts) < 2:
        return
    cum = np.concatenate([[0.0], np.cumsum(seglen[seglen > 1e-9])])
    t = np.linspace(0.0, cum[-1], int(np.ceil(cum[-1])) + 2)
    p = np.floor(np.stack([np.interp(t, cum, pts[:, 0]), np.interp(t, cum, pts[:, 1])], 1))
    p = p.astype(int)
    ok = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
    img[p[ok, 1], p[ok, 0]] = colour


def draw_panel(
    img: np.ndarray,
    tube_distance: float,
    params: PhysicsParams,
    poses: np.ndarray | None,
    toppled: np.ndarray | None,
    trails: np.ndarray | None,
) -> None:
    """Draw one table (tree, tube, pieces, trajectories) into ``img`` (h, w, 3) in place."""
    h, w = img.shape[:2]
    view = View(tube_distance, params, w, h)
    img[:] = BACKGROUND
    x0, x1, y0, y1 = geometry.tube_interior(tube_distance, params)
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    _fill_polygon(img, view.to_px(rect), INTERIOR)
    for wall in geometry.tube_walls(tube_distance, params):
        _fill_polygon(img, view.to_px(wall), WALL)
    # launch point: a small cross
    c = view.to_px(np.zeros(2)).astype(int)
    for d in range(-3, 4):
        for px, py in ((c[0] + d, c[1]), (c[0], c[1] + d)):
            if 0 <= px < w and 0 <= py < h:
                img[py, px] = TREE
    if trails is not None:
        for k in range(3):
            _polyline(img, view.to_px(trails[:, k, :2]), TRAIL_COLOURS[k])
    if poses is None:  # the tree before the first shot: nested square bases
        for k in (2, 1, 0):
            half = params.sizes()[k, 0] / 2.0
            sq = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
            _fill_polygon(img, view.to_px(sq), PIECE_COLOURS[k])
        return
    polys = geometry.footprints(poses, params)
    for k in (2, 1, 0):  # large first so the small stays visible
        if toppled is not None and not toppled[k]:
            half = params.sizes()[k, 0] / 2.0
            sq = poses[k, :2] + np.array(
                [[-half, -half], [half, -half], [half, half], [-half, half]]
            )
            _fill_polygon(img, view.to_px(sq), PIECE_COLOURS[k])
        else:
            _fill_polygon(img, view.to_px(polys[k]), PIECE_COLOURS[k])


def frame(
    tube_distance: float,
    params: PhysicsParams,
    poses: np.ndarray | None,
    toppled: np.ndarray | None = None,
    trails: np.ndarray | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> np.ndarray:
    """One table as an ``(height, width, 3)`` uint8 frame."""
    img = np.zeros((height, width, 3), dtype=np.uint8)
    draw_panel(img, tube_distance, params, poses, toppled, trails)
    return img


def panels(
    tube_distance: float,
    params: PhysicsParams,
    num: int,
    poses: np.ndarray | None,
    toppled: np.ndarray | None,
    trails: np.ndarray | None,
    highlight: int = -1,
) -> np.ndarray:
    """``num`` tables stacked vertically in one fixed-size frame (realtime, MS-18)."""
    img = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    edges = np.linspace(0, HEIGHT, num + 1).astype(int)
    for p in range(num):
        sub = img[edges[p] : edges[p + 1]]
        draw_panel(
            sub,
            tube_distance,
            params,
            None if poses is None else poses[p],
            None if toppled is None else toppled[p],
            None if trails is None else trails[p],
        )
        sub[-1, :] = WALL // 2
        if p == highlight:
            sub[:, :3] = TREE
    return img


def _trail(shots: Shots | None, m: int, upto: int | None = None) -> np.ndarray | None:
    if shots is None or shots.frames is None:
        return None
    f = shots.frames[m]
    return f if upto is None else f[: upto + 1]


def _replay_indices(frames: np.ndarray) -> np.ndarray:
    """Frame indices shown when replaying a shot: until all pieces rest, at most a few dozen.

    ``frames`` is (T, ..., 3) recorded poses; frames after the rest repeat the last one.
    """
    t = frames.shape[0]
    moving = np.flatnonzero(np.any((frames != frames[-1]).reshape(t, -1), axis=1))
    end = int(moving[-1]) + 1 if len(moving) else 0
    return np.unique(np.linspace(0, end, min(end + 1, MAX_REPLAY_FRAMES)).astype(int))


# ----------------------------------------------------------------------------- one table
def rgb_shot(cfg: MoonShotConfig, shots: Shots | None, m: int) -> np.ndarray:
    """The table after shot ``m`` of ``shots`` (the tree alone when ``shots`` is None)."""
    if shots is None:
        return frame(cfg.distance, cfg.params, None)
    return frame(cfg.distance, cfg.params, shots.poses[m], shots.toppled[m], _trail(shots, m))


def replay_shot(cfg: MoonShotConfig, shots: Shots | None, m: int) -> list[np.ndarray]:
    """Frames replaying shot ``m`` (needs recorded trajectories), ending on its rest."""
    if shots is None or shots.frames is None:
        return [rgb_shot(cfg, shots, m)]
    f = shots.frames[m]
    top = shots.toppled[m]
    out = [frame(cfg.distance, cfg.params, f[t], top, f[: t + 1]) for t in _replay_indices(f)]
    out.append(rgb_shot(cfg, shots, m))
    return out


# ----------------------------------------------------------------------------- turn game
def rgb_turn(cfg: MoonShotConfig, shots: Shots | None) -> np.ndarray:
    """AEC ``rgb_array`` frame: the table after the last shot (``shots`` of one game)."""
    return rgb_shot(cfg, shots, 0)


def replay_frames_turn(cfg: MoonShotConfig, shots: Shots | None) -> list[np.ndarray]:
    """AEC ``human`` replay frames of the last shot."""
    return replay_shot(cfg, shots, 0)


def shot_line(shots: Shots, m: int) -> str:
    """One text line describing shot ``m`` (kind, points, where the pieces lie)."""
    info = shots.info(m)
    where = ", ".join(
        f"{name} ({x * 1000:+.0f},{y * 1000:+.0f}) mm{' IN' if inside else ''}"
        for name, (x, y, _), inside in zip(PIECE_NAMES, info["poses"], info["in_tube"], strict=True)
    )
    return f"{info['kind']} +{info['points']}: {where}"


def _seat_names(cfg: MoonShotConfig) -> list[str]:
    return [f"player_{i}" for i in range(cfg.num_players)]


def _game_over(st: GameState, names: list[str]) -> list[str]:
    """The ansi line of a finished game 0: why it ended and the MS-17 rewards (else none)."""
    if not st.done[0]:
        return []
    rewards = ", ".join(f"{a} {st.rewards[0, i]:+.0f}" for i, a in enumerate(names))
    return [f"game over ({OUTCOME_NAMES[int(st.outcome[0])]}): rewards {rewards}"]


def ansi_turn(cfg: MoonShotConfig, st: GameState, shots: Shots | None, shooter: int = -1) -> str:
    """AEC ``ansi`` text of game 0 of ``st``: scores, seat to shoot, last shot by seat
    ``shooter``, ending."""
    names = _seat_names(cfg)
    lines = [
        f"Moon Shot, {cfg.num_players} players, round {int(st.round[0]) + 1}/{cfg.max_rounds}, "
        f"tube at {cfg.distance * 1000:.0f} mm"
    ]
    for i, a in enumerate(names):
        mark = ">" if (not st.done[0] and i == int(st.seat[0])) else " "
        last = int(st.last_landing[0, i])
        landed = "never landed" if last < 0 else f"last landing turn {last + 1}"
        lines.append(f"{mark} {a}: {int(st.scores[0, i])} points, {landed}")
    if shots is not None:
        lines.append(f"last shot by player_{shooter}: {shot_line(shots, 0)}")
    return "\n".join(lines + _game_over(st, names))


# ----------------------------------------------------------------------------- realtime
def rgb_realtime(cfg: MoonShotConfig, shots: Shots | None) -> np.ndarray:
    """Realtime ``rgb_array`` frame: one table per player (``shots`` of one step)."""
    P = cfg.num_players
    if shots is None:
        return panels(cfg.distance, cfg.params, P, None, None, None)
    trails = None if shots.frames is None else shots.frames
    return panels(cfg.distance, cfg.params, P, shots.poses, shots.toppled, trails)


def replay_frames_realtime(cfg: MoonShotConfig, shots: Shots | None) -> list[np.ndarray]:
    """Realtime ``human`` replay frames of the last step."""
    if shots is None or shots.frames is None:
        return [rgb_realtime(cfg, shots)]
    f = shots.frames  # (P, T, 3, 3)
    out = [
        panels(cfg.distance, cfg.params, cfg.num_players, f[:, t], shots.toppled, f[:, : t + 1])
        for t in _replay_indices(np.swapaxes(f, 0, 1))
    ]
    out.append(rgb_realtime(cfg, shots))
    return out


def ansi_realtime(cfg: MoonShotConfig, st: GameState, shots: Shots | None) -> str:
    """Realtime ``ansi`` text of game 0 of ``st``: scores and every player's last shot."""
    names = _seat_names(cfg)
    lines = [
        f"Moon Shot realtime, {cfg.num_players} players, round {int(st.round[0]) + 1}/"
        f"{cfg.max_rounds}, tube at {cfg.distance * 1000:.0f} mm"
    ]
    for i, a in enumerate(names):
        shot = "" if shots is None else "; last shot " + shot_line(shots, i)
        lines.append(f"  {a}: {int(st.scores[0, i])} points{shot}")
    return "\n".join(lines + _game_over(st, names))


# ----------------------------------------------------------------------------- human
class ShotReplay:
    """Replays a shot in a pygame window (``human`` mode); each shot is replayed once."""

    def __init__(self, title: str, fps: float) -> None:
        from envs.core.render import HumanWindow

        self.window = HumanWindow(title, fps)
        self._last: Any = None

    def seen(self, key: Any) -> bool:
        """Whether the shot ``key`` was already replayed (then only its last frame is shown)."""
        return key is not None and key == self._last

    def play(self, frames: list[np.ndarray], key: Any = None) -> None:
        """Show ``frames`` one after the other and remember ``key`` as replayed."""
        self._last = key
        for f in frames:
            self.window.show(f)

    def close(self) -> None:
        self.window.close()
