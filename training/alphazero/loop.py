"""The AlphaZero run: self-play rounds, network updates, checkpoints, resume, logs.

``arena train GAME --algo alphazero`` comes here (``training.run.train``). One loop:
a self-play round (every game of the batch searched and moved once, ``selfplay.py``),
then as many network updates as are due (each generated position is sampled about
``--n-epochs`` times on average, minibatches of ``--batch-size``), until ``--steps``
self-play positions or ``--time-limit``. Which config fields it reads: ``n_envs``
(games played together), ``simulations`` (search per move), ``replay_size``,
``batch_size``, ``n_epochs``, ``learning_rate``, ``net`` (hidden layers of the MLP),
``seed``, ``threads``, ``checkpoint_every`` (positions), ``opponents`` (the non-self
names are the fixed opponents of the training curve, evaluated at every checkpoint).

Run directory::

    checkpoints/step_N.pt         model, optimizer, RNG states and counters of a save
    checkpoints/step_N.buffer.npz the replay buffer of that save
    checkpoints/weights_N.pt      the network alone at every save (the training curve)
    model.pt                      the latest network (``agents.az.load_weights``)
    state.json                    config, counters, curve, the unit's files (commit point)
    tb/                           TensorBoard scalars

A save is one atomic unit as in the SB3 path (``training.run``): every file through a
temporary name and ``os.replace``, ``state.json`` last, naming the unit's files, so a
run killed at any moment resumes with network, optimizer, RNG, buffer and counters of
one and the same step.
"""

from __future__ import annotations

import json
import random
import signal
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.az import AZAgent, net_for, save_weights
from envs import registry
from training.alphazero.selfplay import ReplayBuffer, SelfPlay, parse_against
from training.config import TrainConfig
from training.run_io import TrainResult, in_main_thread
from training.run_io import atomic_write as _atomic

#: games per fixed opponent at each checkpoint's evaluation (seat-swapped)
EVAL_GAMES = 40


def _make_game(cfg: TrainConfig) -> Any:
    if ":" in cfg.game:
        return registry.load(cfg.game)()
    return registry.make_batch(cfg.game, cfg.players)


class Run:
    """One AlphaZero run's live objects and counters (module docstring)."""

    def __init__(self, cfg: TrainConfig) -> None:
        import torch

        self.cfg = cfg
        self.out = Path(cfg.out)
        self.game = _make_game(cfg)
        self.net = net_for(self.game, cfg.net_arch(), cfg.obs)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, weight_decay=1e-4)
        k = min(cfg.simulations, int(self.game.num_actions))
        self.buffer = ReplayBuffer(
            cfg.replay_size,
            tuple(self.game.obs_shape),
            int(self.game.num_actions),
            int(self.game.num_players),
            k,
            n_flags=int(self.net.meta["n_flags"]),
        )
        self.rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 0xA2]))
        self.positions = 0  # self-play positions generated (the step counter)
        self.updates = 0
        self.due = 0.0  # updates owed to the generated positions
        self.elapsed_before = 0.0
        self.selfplay_seconds = 0.0
        self.update_seconds = 0.0
        self.timed_positions = 0  # positions of the timed rounds (all but each start's first)
        self.saved = -1  # positions at the last save
        self.curve: list[dict[str, float]] = []
        self.unit: dict[str, str] = {}
        self.games = 0
        self.games_seed = cfg.seed

    # ------------------------------------------------------------------ checkpoints
    def save(self, elapsed: float) -> None:
        """One atomic unit (module docstring); ``state.json`` is the commit point."""
        import torch

        step = self.positions
        ck = self.out / "checkpoints"
        ck.mkdir(parents=True, exist_ok=True)
        unit = {
            "model": f"checkpoints/step_{step}.pt",
            "replay": f"checkpoints/step_{step}.buffer.npz",
            "weights": f"checkpoints/weights_{step}.pt",
        }
        blob = {
            "net": self.net.state_dict(),
            "opt": self.opt.state_dict(),
            "rng": {
                "actor": self.rng.bit_generator.state,
                "torch": torch.get_rng_state(),
                "python": random.getstate(),
            },
            "counters": {
                "positions": step,
                "updates": self.updates,
                "due": self.due,
                "games": self.games,
            },
        }
        _atomic(self.out / unit["model"], lambda p: torch.save(blob, p))
        _atomic(self.out / unit["replay"], self.buffer.save)
        _atomic(self.out / unit["weights"], lambda p: save_weights(self.net, p, half=False))
        total = self.elapsed_before + elapsed
        state = {
            "config": asdict(self.cfg),
            "algo": "alphazero",
            "num_timesteps": step,
            "updates": self.updates,
            "games": self.games,
            "elapsed_seconds": total,
            "selfplay_seconds": self.selfplay_seconds,
            "update_seconds": self.update_seconds,
            "timed_positions": self.timed_positions,
            "curve": self.curve,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            **unit,
        }
        text = json.dumps(state, indent=1)
        _atomic(self.out / "state.json", lambda p: p.write_text(text))  # the commit point
        _atomic(self.out / "model.pt", lambda p: save_weights(self.net, p, half=False))
        keep = {self.out / v for v in unit.values()}
        for old in ck.glob("*"):  # older units' model / buffer files, kills' leftovers
            stale = old.name.startswith("step_") or ".tmp" in old.name
            if stale and old not in keep:
                old.unlink(missing_ok=True)
        self.unit = unit
        self.saved = step

    def restore(self) -> None:
        """Load the unit ``state.json`` names (network, optimizer, RNG, buffer, counters)."""
        import torch

        state = json.loads((self.out / "state.json").read_text())
        if state.get("algo") != "alphazero":
            raise ValueError(f"--resume: {self.out} holds a run of another algorithm")
        blob = torch.load(self.out / state["model"], map_location="cpu", weights_only=False)
        c = blob["counters"]
        if int(c["positions"]) != int(state["num_timesteps"]):
            raise ValueError(
                f"--resume: {state['model']} is at step {c['positions']} but "
                f"state.json at {state['num_timesteps']}: inconsistent run directory"
            )
        self.net.load_state_dict(blob["net"])
        self.opt.load_state_dict(blob["opt"])
        for g in self.opt.param_groups:  # a resumed run keeps its stored learning rate
            g["lr"] = self.cfg.learning_rate
        self.rng.bit_generator.state = blob["rng"]["actor"]
        torch.set_rng_state(blob["rng"]["torch"])
        random.setstate(blob["rng"]["python"])
        self.buffer.load(self.out / state["replay"])
        self.positions, self.updates = int(c["positions"]), int(c["updates"])
        self.due, self.games = float(c["due"]), int(c["games"])
        self.elapsed_before = float(state.get("elapsed_seconds", 0.0))
        self.selfplay_seconds = float(state.get("selfplay_seconds", 0.0))
        self.update_seconds = float(state.get("update_seconds", 0.0))
        self.timed_positions = int(state.get("timed_positions", 0))
        self.curve = list(state.get("curve", []))
        self.unit = {k: state[k] for k in ("model", "replay", "weights")}

    # ------------------------------------------------------------------ learning
    def update(self) -> dict[str, float]:
        """One minibatch step on the replay buffer: policy cross-entropy + value MSE."""
        import torch

        b = self.buffer.sample(self.rng, self.cfg.batch_size)
        self.net.train()
        flags = torch.from_numpy(b["flags"]) if "flags" in b else None
        logits, v = self.net(torch.from_numpy(b["obs"]), flags)
        logits = logits.masked_fill(~torch.from_numpy(b["mask"]), -1e9)
        logp = torch.log_softmax(logits, dim=1)
        target = torch.from_numpy(b["policy"])
        loss_p = -(target * logp).sum(dim=1).mean()
        loss_v = torch.mean((v - torch.from_numpy(b["value"])) ** 2)
        loss = loss_p + loss_v
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        self.net.eval()
        self.updates += 1
        return {"loss/policy": float(loss_p.detach()), "loss/value": float(loss_v.detach())}

    def evaluate(self, elapsed: float) -> dict[str, float]:
        """``az-policy`` with the current network against the fixed opponents (the curve)."""
        from agents.registry import make_agent
        from envs.core.match import TurnBasedRunner
        from training.opponents import parse_opponents

        names = [n for n, _ in parse_opponents(self.cfg.opponents) if n != "self"]
        runner = TurnBasedRunner(self.game)
        p = runner.num_players
        point: dict[str, float] = {"positions": self.positions, "minutes": elapsed / 60.0}
        for name in names:
            wins = n = 0
            for seat in range(p):
                try:
                    agents = [make_agent(self.cfg.game, name, 1000 + s) for s in range(p)]
                except ValueError:
                    break
                me = AZAgent(simulations=0)
                me._net = self.net
                agents[seat] = me
                res = runner.play(agents, 7919 * seat + 17, np.arange(max(1, EVAL_GAMES // p)))
                wins += sum(int(o.rewards[seat] > 0) for o in res)
                n += len(res)
            if n:
                point[f"win_rate_vs_{name}"] = wins / n
        self.curve.append(point)
        return point


def train(cfg: TrainConfig, resume: bool, progress: bool, quiet: bool) -> TrainResult:
    """Run (or continue) an AlphaZero run as configured (module docstring)."""
    import torch

    from training.run_io import set_threads

    set_threads(cfg.threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    run = Run(cfg)
    if resume:
        run.restore()
    start = run.positions
    games_before = run.games
    # a resumed run plays fresh games from a seed of its own (no game was stored)
    actor = SelfPlay(
        run.game,
        cfg.n_envs,
        cfg.simulations,
        cfg.seed + 7 * run.games + start,
        run.buffer,
        gumbel=cfg.gumbel,
        rollout_mix=cfg.rollout_mix,
        against=parse_against(cfg.train_against, cfg.game) if cfg.train_against else None,
    )
    from torch.utils.tensorboard import SummaryWriter

    tb = SummaryWriter(str(out / "tb"), purge_step=start if resume else None)
    if not quiet:
        print(
            f"arena train {cfg.game}: alphazero, {cfg.n_envs} games at once, "
            f"{cfg.simulations} simulations per move, MLP {cfg.net}; run dir {out}",
            flush=True,
        )
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.steps, initial=start, unit="pos", dynamic_ncols=True)
    next_ckpt = (start // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    interrupted = False
    t0 = time.perf_counter()
    last_report = t0
    previous = signal.getsignal(signal.SIGTERM)

    def _on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if in_main_thread():
        signal.signal(signal.SIGTERM, _on_term)
    losses: dict[str, float] = {}
    first = True
    try:
        while run.positions < cfg.steps:
            if cfg.time_limit > 0 and time.perf_counter() - t0 > 60.0 * cfg.time_limit:
                break
            ts = time.perf_counter()
            moved = actor.round(run.net, run.rng)  # the network's searched moves
            if first:  # the first round compiles the search: not part of the throughput
                first = False
            else:
                run.selfplay_seconds += time.perf_counter() - ts
                run.timed_positions += moved
            run.positions += moved
            run.games = games_before + actor.games_done
            run.due += moved * cfg.n_epochs / cfg.batch_size
            ts = time.perf_counter()
            while run.due >= 1.0 and run.buffer.size >= min(cfg.batch_size, cfg.replay_size):
                losses = run.update()
                run.due -= 1.0
            run.update_seconds += time.perf_counter() - ts
            if bar is not None:
                bar.update(moved)
            now = time.perf_counter()
            if now - last_report >= 30.0:
                last_report = now
                rates = _rates(run)
                against = {
                    f"selfplay/win_rate_vs_{name}": actor.against_wins[k] / actor.against_games[k]
                    for k, (name, _) in enumerate(actor.against)
                    if actor.against_games[k]
                }
                for k, v in {**losses, **rates, **against}.items():
                    tb.add_scalar(k, v, run.positions)
                tb.add_scalar("replay/size", run.buffer.size, run.positions)
                if not progress and not quiet:
                    print(
                        f"[{time.strftime('%H:%M:%S')}] positions {run.positions:,} updates "
                        f"{run.updates:,} buffer {run.buffer.size:,} "
                        f"{rates['throughput/selfplay_positions_per_s']:,.0f} pos/s "
                        f"{rates['throughput/updates_per_s']:,.1f} upd/s "
                        + " ".join(f"{k.split('/')[1]} {v:.3f}" for k, v in losses.items())
                        + "".join(f" {k[9:]} {v:.2f}" for k, v in against.items()),
                        flush=True,
                    )
            if run.positions >= next_ckpt:
                _checkpoint(run, tb, t0, quiet or progress)
                next_ckpt = (run.positions // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if in_main_thread():
            signal.signal(signal.SIGTERM, previous)
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    if run.saved != run.positions and (run.positions > start or not (out / "model.pt").exists()):
        _checkpoint(run, tb, t0, quiet, evaluate=not interrupted)
    tb.close()
    rates = _rates(run)
    done = run.positions - start
    status = "interrupted, checkpoint saved" if interrupted else "done"
    lines = (
        f"arena train {cfg.game}: {status}: {done:,} self-play positions this run (total "
        f"{run.positions:,}), {run.updates:,} network updates, {seconds:.1f} s",
        f"  throughput: {rates['throughput/selfplay_positions_per_s']:,.0f} self-play "
        f"positions/s (search of {cfg.simulations} simulations each), "
        f"{rates['throughput/updates_per_s']:,.1f} network updates/s of {cfg.batch_size}",
        f"  model: {out / 'model.pt'}   logs: tensorboard --logdir {out / 'tb'}",
    )
    return TrainResult(
        out=out,
        num_timesteps=run.positions,
        start_timesteps=start,
        seconds=seconds,
        learner_steps_per_s=done / seconds if seconds > 0 else 0.0,
        decisions_per_s=rates["throughput/selfplay_positions_per_s"],
        env_steps_per_s=rates["throughput/selfplay_positions_per_s"],
        interrupted=interrupted,
        lines=lines,
    )


def _rates(run: Run) -> dict[str, float]:
    sp = run.selfplay_seconds
    up = run.update_seconds
    return {
        "throughput/selfplay_positions_per_s": run.timed_positions / sp if sp > 0 else 0.0,
        "throughput/updates_per_s": run.updates / up if up > 0 else 0.0,
    }


def _checkpoint(run: Run, tb: Any, t0: float, quiet: bool, evaluate: bool = True) -> None:
    elapsed = run.elapsed_before + time.perf_counter() - t0
    if evaluate:
        point = run.evaluate(elapsed)
        for k, v in point.items():
            if k.startswith("win_rate"):
                tb.add_scalar(f"eval/{k}", v, run.positions)
        if not quiet:
            rates = " ".join(f"{k[12:]} {v:.2f}" for k, v in point.items() if k.startswith("win"))
            print(
                f"[{time.strftime('%H:%M:%S')}] checkpoint at {run.positions:,} positions "
                f"({elapsed / 60:.1f} min): az-policy win rate vs {rates}",
                flush=True,
            )
    run.save(time.perf_counter() - t0)
