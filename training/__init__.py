"""Training: self-play loops, SB3 VecEnvs over the kernels, RLlib entry, checkpoints.

Importing the registry here keeps the old module paths of moved per-game modules
importable (e.g. the ladder runner that moved into its game's folder).
"""

import envs.registry  # noqa: F401  (installs the deprecated-path aliases)
