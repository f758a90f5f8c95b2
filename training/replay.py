"""``arena replay``: watch a recorded game as one self-contained HTML page, or as a GIF / MP4.

``arena replay SOURCE [ID] [--out PAGE.html] [--gif FILE.gif] [--mp4 FILE.mp4] [--list]``

``SOURCE`` is a game-record file (JSON lines, ``envs.core.records``; ``ID`` is the line
number from 0, default 0) or a ladder database (``ID`` is the record id that ``--list``
and the ladder report show). The record is first replayed through the kernels, which
checks it bit for bit (a mismatch is an error), and every position is drawn from the
replayed states (``envs/<game>/svg.py``).

The page needs no network: the pictures are inline SVG, the controls a small inline
script. Buttons (first, back, play/pause, forward, last), a slider and the keyboard (left
/ right arrows, Home, End, space) step through the game; the move list beside the board
jumps to a move when clicked; ``page.html#move=N`` opens at move N. Pages of a game with
physics (animation data from its ``replay_scenes``) move the pieces along their recorded
trajectories when stepping forward one move.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from envs.core import cli_text
from envs.core.records import GameRecord, ReplayMismatch, read_records
from envs.core.scene import Scene, to_rgb, to_svg


def scenes(record: GameRecord, animate: bool = False) -> tuple[list[Scene], dict[str, Any] | None]:
    """One scene per position (the start, then after each move), and for a game whose moves
    are animated (physics trajectories) the animation data of every move (``animate``:
    also the in-between scenes, for GIFs). The game's registry entry names the drawing
    (``replay_scenes``, usually ``envs/<game>/svg.py``)."""
    from envs import registry

    spec = registry.get(record.game) if record.game in registry.names() else None
    if spec is None or spec.replay_scenes is None:
        raise ValueError(f"no pictures for game {record.game!r}")
    out, anim = registry.load(spec.replay_scenes)(record, animate)
    return list(out), anim


def _result_text(record: GameRecord) -> str:
    parts = [
        f"{record.agents[s] if s < len(record.agents) else '?'} {float(r):+g}"
        for s, r in enumerate(record.rewards)
    ]
    return "result: " + ", ".join(parts)


_CSS = """
body{font-family:DejaVu Sans,Arial,sans-serif;margin:16px;background:#fafafa;color:#222}
h1{font-size:20px;margin:0 0 4px} .meta{font-size:13px;color:#555;margin-bottom:10px}
.main{display:flex;gap:16px;align-items:flex-start}
#board svg{border:1px solid #bbb;max-width:100%;height:auto}
#moves{position:relative;max-height:520px;overflow-y:auto;min-width:190px;font:13px monospace;margin:0;
 padding:6px 6px 6px 44px;border:1px solid #ccc;background:#fff}
#moves li{cursor:pointer;padding:1px 4px} #moves li.cur{background:#ffd070}
.controls{margin:10px 0;display:flex;gap:6px;align-items:center}
.controls button{font-size:15px;min-width:40px} #slider{width:360px}
#errors{color:#b00;white-space:pre-wrap}
"""

_JS = """
(function(){
const D = JSON.parse(document.getElementById('replay-data').textContent);
const board = document.getElementById('board'), slider = document.getElementById('slider');
const label = document.getElementById('label'), moves = document.getElementById('moves');
const playBtn = document.getElementById('play');
let step = 0, timer = null, anim = null;
D.moves.forEach(function(m, i){
  const li = document.createElement('li'); li.value = i + 1;
  li.textContent = (D.agents ? D.agents[D.seats[i]] + ': ' : '') + m;
  li.addEventListener('click', function(){ show(i + 1, false); }); moves.appendChild(li);
});
function poly(k, pose, toppled){
  const A = D.anim, c = Math.cos(pose[2]), s = Math.sin(pose[2]);
  let pts;
  if (toppled) { pts = A.local[k].map(function(p){
      return [pose[0] + c*p[0] - s*p[1], pose[1] + s*p[0] + c*p[1]]; }); }
  else { const h = A.halves[k];
      pts = [[-h,-h],[h,-h],[h,h],[-h,h]].map(function(p){ return [pose[0]+p[0], pose[1]+p[1]]; }); }
  return pts.map(px).join(' ');
}
function px(p){ const A = D.anim;
  return ((p[0]-A.x0)*A.scale).toFixed(2) + ',' + (A.yc - p[1]*A.scale).toFixed(2); }
function stopAnim(){ if (anim) { clearInterval(anim); anim = null; } }
function animate(k){
  const T = D.anim.traj[k-1], top = D.anim.toppled[k-1]; let f = 0;
  const polys = [0,1,2].map(function(i){ return document.getElementById('ms-piece-'+i); });
  const trails = [0,1,2].map(function(i){ return document.getElementById('ms-trail-'+i); });
  function frame(){
    for (let i = 0; i < 3; i++) {
      if (polys[i]) polys[i].setAttribute('points', poly(i, T[f][i], top[i]));
      if (trails[i]) trails[i].setAttribute('points',
          T.slice(0, f+1).map(function(q){ return px(q[i]); }).join(' '));
    }
    f += 1; if (f >= T.length) stopAnim();
  }
  frame(); anim = setInterval(frame, 40);
}
function show(k, animated){
  stopAnim();
  step = Math.max(0, Math.min(D.frames.length - 1, k));
  board.innerHTML = D.frames[step];
  slider.value = step;
  label.textContent = 'move ' + step + ' / ' + (D.frames.length - 1);
  Array.prototype.forEach.call(moves.children, function(li, i){
    li.className = (i + 1 === step) ? 'cur' : ''; });
  const cur = moves.children[step - 1];  // keep the move in view inside the list only
  if (cur) moves.scrollTop = Math.max(0, cur.offsetTop - moves.clientHeight / 2);
  document.body.setAttribute('data-step', String(step));
  if (animated && D.anim && step > 0) animate(step);
}
function play(){
  if (timer) { clearInterval(timer); timer = null; playBtn.textContent = 'play'; return; }
  if (step >= D.frames.length - 1) show(0, false);
  playBtn.textContent = 'pause';
  timer = setInterval(function(){
    if (step >= D.frames.length - 1) { play(); return; } show(step + 1, true);
  }, D.anim ? 2200 : 700);
}
document.getElementById('first').onclick = function(){ show(0, false); };
document.getElementById('prev').onclick = function(){ show(step - 1, false); };
document.getElementById('next').onclick = function(){ show(step + 1, true); };
document.getElementById('last').onclick = function(){ show(D.frames.length - 1, false); };
playBtn.onclick = play;
slider.max = D.frames.length - 1;
slider.addEventListener('input', function(){ show(parseInt(slider.value, 10), false); });
document.addEventListener('keydown', function(e){
  if (e.key === 'ArrowRight') show(step + 1, true);
  else if (e.key === 'ArrowLeft') show(step - 1, false);
  else if (e.key === 'Home') show(0, false);
  else if (e.key === 'End') show(D.frames.length - 1, false);
  else if (e.key === ' ') { play(); }
  else return;
  e.preventDefault();
});
const m = /move=(\\d+)/.exec(location.hash);
show(m ? parseInt(m[1], 10) : 0, false);
if (/selftest/.test(location.hash)) {  // page.html#selftest: drive every control once
  const N = D.frames.length - 1, r = [];
  function key(k){ document.dispatchEvent(new KeyboardEvent('keydown', {key: k})); }
  show(0, false);
  document.getElementById('next').click(); r.push(step === 1);
  key('ArrowRight'); r.push(step === Math.min(2, N));
  key('End'); r.push(step === N);
  key('ArrowLeft'); r.push(step === N - 1);
  document.getElementById('first').click(); r.push(step === 0);
  document.getElementById('last').click(); r.push(step === N);
  document.getElementById('prev').click(); r.push(step === N - 1);
  key('Home'); r.push(step === 0);
  slider.value = String(N); slider.dispatchEvent(new Event('input')); r.push(step === N);
  moves.children[0].click(); r.push(step === 1);
  playBtn.click(); r.push(timer !== null && playBtn.textContent === 'pause');
  playBtn.click(); r.push(timer === null && playBtn.textContent === 'play');
  document.body.setAttribute('data-selftest', r.every(Boolean) ? 'pass' : 'fail ' + r.join(','));
}
document.body.setAttribute('data-ready', '1');
})();
"""


def replay_html(record: GameRecord, title: str | None = None) -> str:
    """The self-contained page of ``record`` (module docstring)."""
    sc, anim = scenes(record)
    data = {
        "frames": [to_svg(s) for s in sc],
        "moves": list(record.moves),
        "seats": list(record.seats),
        # who moved, in the list: where seats do not simply alternate (3+ players, shots)
        "agents": [f"p{s}" for s in range(len(record.rewards))]
        if len(record.rewards) > 2 or anim is not None
        else None,
        "anim": anim,
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = title or f"{record.game}: {' vs '.join(record.agents)}"
    meta = (
        f"seed {record.seed}, game {record.game_index}; {_result_text(record)};"
        f" {record.length} moves; {record.source or 'recorded'} {record.finished};"
        f" tabletop-arena {record.versions.get('tabletop-arena', '?')}"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{escape(title)}</title>
<style>{_CSS}</style></head>
<body>
<script>window.addEventListener('error', function(e) {{
  document.getElementById('errors').textContent += 'error: ' + e.message + '\\n';
  document.body.setAttribute('data-errors', 'yes'); }});</script>
<h1>{escape(title)}</h1>
<div class="meta">{escape(meta)}</div>
<div class="controls">
<button id="first" title="first (Home)">|&#x25C0;</button>
<button id="prev" title="back (left arrow)">&#x25C0;</button>
<button id="play" title="play / pause (space)">play</button>
<button id="next" title="forward (right arrow)">&#x25B6;</button>
<button id="last" title="last (End)">&#x25B6;|</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="move">
<span id="label"></span>
</div>
<div class="main"><div id="board"></div><ol id="moves"></ol></div>
<div id="errors"></div>
<script type="application/json" id="replay-data">{blob}</script>
<script>{_JS}</script>
</body></html>
"""


def write_replay(record: GameRecord, path: str | Path, title: str | None = None) -> Path:
    """Write the page of ``record`` to ``path``."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(replay_html(record, title), encoding="utf-8")
    return p


#: animated games (physics trajectories) draw in-flight frames: this many per position
_ANIMATED_SPEED = 4


def _frames(record: GameRecord) -> tuple[list[np.ndarray], int]:
    """RGB frames and how many frames a position spans (1; animated games more)."""
    sc, anim = scenes(record, animate=True)
    return [to_rgb(s) for s in sc], 1 if anim is None else _ANIMATED_SPEED


def export_gif(record: GameRecord, path: str | Path, fps: float = 2.0) -> Path:
    """An animated GIF of the game (Pillow), one frame per position (animated games: the
    in-flight frames too)."""
    from PIL import Image

    rgb, speed = _frames(record)
    frames = [Image.fromarray(f) for f in rgb]
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    ms = int(1000 / (fps * speed))
    frames[0].save(p, save_all=True, append_images=frames[1:], duration=ms, loop=0)
    return p


def export_mp4(record: GameRecord, path: str | Path, fps: float = 2.0) -> Path:
    """An MP4 of the game (needs imageio with imageio-ffmpeg); ImportError if missing."""
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        raise ImportError(
            "--mp4 needs imageio and imageio-ffmpeg (pip install imageio-ffmpeg)"
        ) from None
    frames, speed = _frames(record)
    h = max(f.shape[0] for f in frames)
    w = max(f.shape[1] for f in frames)
    h, w = h + (-h) % 16, w + (-w) % 16
    padded: list[Any] = []
    for f in frames:
        out = np.full((h, w, 3), 255, np.uint8)
        out[: f.shape[0], : f.shape[1]] = f
        padded.append(out)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    imageio.mimsave(p, padded, fps=fps * speed)
    return p


def load(source: str | Path, game_id: int | None) -> GameRecord:
    """The record ``game_id`` of a record file (line index) or a ladder database (id)."""
    p = Path(source)
    if not p.exists():
        raise FileNotFoundError(f"no such record file or database: {p}")
    if p.suffix in (".sqlite", ".db", ".sqlite3"):
        from training.ladder_records import list_records, load_record

        if game_id is None:
            ids = list_records(p)
            if not ids:
                raise ValueError(f"{p} holds no game records")
            game_id = ids[0][0]
        return load_record(p, game_id)
    recs = read_records(p)
    k = 0 if game_id is None else int(game_id)
    if not 0 <= k < len(recs):
        raise ValueError(f"{p} has {len(recs)} records; no record {k}")
    return recs[k]


def main(argv: list[str] | None = None) -> int:
    """``arena replay`` entry point."""
    ap = cli_text.ArgumentParser(
        prog="arena replay",
        description="Replay a recorded game (checked bit for bit) as an HTML page, GIF or MP4.",
    )
    ap.add_argument("source", help="game-record file (.jsonl) or ladder database (.sqlite)")
    ap.add_argument("id", nargs="?", type=int, default=None, help="record id / line (default 0)")
    ap.add_argument("--out", default=None, metavar="PAGE", help="HTML page (default: replay.html)")
    ap.add_argument("--gif", default=None, metavar="FILE", help="also write an animated GIF")
    ap.add_argument(
        "--mp4", default=None, metavar="FILE", help="also write an MP4 (imageio-ffmpeg)"
    )
    ap.add_argument("--fps", type=float, default=2.0, help="positions per second in GIF / MP4")
    ap.add_argument("--list", action="store_true", help="list the records of a database")
    args = ap.parse_args(argv)
    record: GameRecord | None = None
    try:
        if args.list:
            from training.ladder_records import list_records

            if Path(args.source).suffix == ".jsonl":
                for k, r in enumerate(read_records(args.source)):
                    print(f"{k:6d}  {r.game}  {' vs '.join(r.agents)}  {r.rewards}")
            else:
                for rid, game, config, seating, idx in list_records(args.source):
                    print(f"{rid:6d}  {game}  {config}  {seating}  game {idx}")
            return 0
        record = load(args.source, args.id)
        out = write_replay(record, args.out or "replay.html")
        print(f"replay page: {out}")
        if args.gif:
            print(f"gif: {export_gif(record, args.gif, args.fps)}")
        if args.mp4:
            print(f"mp4: {export_mp4(record, args.mp4, args.fps)}")
    except ReplayMismatch as exc:
        ver = record.versions.get("tabletop-arena", "?") if record else "?"
        print(f"arena replay: the record does not replay: {exc} (recorded with {ver})")
        return 2
    except (ValueError, KeyError, FileNotFoundError, ImportError) as exc:
        print(f"arena replay: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
