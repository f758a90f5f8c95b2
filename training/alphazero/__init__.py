"""AlphaZero-style self-play training (``arena train GAME --algo alphazero``).

A torch policy-value network (``agents.az``) guides the batched array-tree search
(``agents.search``) in self-play over the game's fused learner step; the positions and
their search targets fill a replay buffer the network learns from. ``loop.py`` is the
run (checkpoints, resume, logs), ``selfplay.py`` the games and the buffer.
"""

from __future__ import annotations

from training.alphazero.loop import train

__all__ = ["train"]
