"""OpenSpiel's Python AlphaZero (JAX/Flax) on one of our registered OpenSpiel games.

    python -m envs.openspiel.alpha_zero --steps 1 --path runs/az     # a smoke run, first game
    python -m envs.openspiel.alpha_zero --game GAME --steps 200 --actors 2 --simulations 50

``--game`` is a registered game name (default: the first with an OpenSpiel game) or any
pyspiel game string; ``--max-turns`` sets a registered game's length limit (the parameter
its registry entry names in ``max_len_arg``).

OpenSpiel's ``alpha_zero`` starts its actors with the ``spawn`` start method; each child
re-imports this module as its main module, which registers our games with pyspiel before
the pickled game is loaded there. That is why it must run as ``python -m`` (or as a file),
not from an interactive session. The learner writes ``learner.jsonl`` (losses, game
lengths, outcomes per step) and checkpoints under ``--path``.
"""

from __future__ import annotations

import sys
import tempfile

import envs.openspiel  # registers our games in parent and children
from envs import registry
from envs.core import cli_text


def main(argv: list[str] | None = None) -> int:
    """Run AlphaZero with a small configuration (defaults: a smoke run)."""
    p = cli_text.ArgumentParser(prog="python -m envs.openspiel.alpha_zero")
    ours = list(envs.openspiel.GAMES)
    p.add_argument("--game", default=ours[0] if ours else None, help=f"({', '.join(ours)})")
    p.add_argument("--max-turns", type=int, default=60, help="length limit of our games (60)")
    p.add_argument("--path", default=None, help="log/checkpoint folder (default: a temp dir)")
    p.add_argument("--steps", type=int, default=1, help="learner steps (0 = forever)")
    p.add_argument("--actors", type=int, default=1)
    p.add_argument("--evaluators", type=int, default=0)
    p.add_argument("--simulations", type=int, default=8, help="MCTS simulations per move")
    p.add_argument("--buffer", type=int, default=64, help="replay buffer size (states)")
    p.add_argument("--batch", type=int, default=16, help="train batch size")
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--depth", type=int, default=1)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)

    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    game = args.game
    if game in envs.openspiel.GAMES:
        name, limit = envs.openspiel.short_name(game), registry.get(game).max_len_arg
        game = f"{name}({limit}={args.max_turns})" if limit else name
    config = alpha_zero.Config(
        game=game,
        path=args.path or tempfile.mkdtemp(prefix="az-"),
        learning_rate=1e-3,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=args.batch,
        replay_buffer_size=args.buffer,
        replay_buffer_reuse=1,
        max_steps=args.steps,
        checkpoint_freq=1,
        actors=args.actors,
        evaluators=args.evaluators,
        evaluation_window=10,
        eval_levels=2,
        uct_c=2.0,
        max_simulations=args.simulations,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=10,
        nn_model="mlp",
        nn_width=args.width,
        nn_depth=args.depth,
        observation_shape=None,
        output_size=None,
        verbose=False,
        quiet=True,
    )
    alpha_zero.alpha_zero(config)
    print(f"alpha_zero done: {config.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
