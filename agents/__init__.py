"""Agents: random, MCTS and trained policies for every game; a game's own agents live in
its folder (``envs/<game>/``) and are named by its registry entry (``envs/registry.py``).

Importing the registry here keeps the old module paths of moved agents importable.
"""

import envs.registry  # noqa: F401  (installs the deprecated-path aliases)
