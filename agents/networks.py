"""Policy networks for observations that carry per-action features (needs torch).

``ActionFeaturePolicy`` is ``MaskableActorCriticPolicy`` with one change to the actor's
head: an action's logit is the usual linear read-out of the MLP's last layer *plus* a
learned weighted sum of that action's own features,

    logit[a] = W h + b  +  FLAG_SCALE * sum_f  w_f * feature[f, a],

with one weight ``w_f`` per feature shared by all actions (zero at the start; the constant
``FLAG_SCALE`` lets Adam's steps of about the learning rate move these few weights by
whole logits within a run). The features
are the last ``n_flags * n_actions`` entries of the flat observation (they also reach the
MLP with the rest of it). Why: a plain MLP maps feature ``(f, a)`` to logit ``a`` only by
learning each of the ``n_actions`` diagonal links apart; sharing one weight per feature lets
a fact such as "this move hands the opponent a win" (a game's lookahead variant, ``arena train --obs``) shape
every action's logit after a few updates. The critic is unchanged.
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

#: Logits per unit of a flag weight (see the module docstring).
FLAG_SCALE = 10.0


class _PassFeatures(MlpExtractor):
    """An ``MlpExtractor`` whose actor latent also carries the raw per-action features."""

    def __init__(self, feature_dim: int, n_extra: int, **kwargs: Any) -> None:
        super().__init__(feature_dim, **kwargs)
        self.hidden_dim_pi = self.latent_dim_pi
        self.n_extra = n_extra
        self.latent_dim_pi += n_extra

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        hidden = self.policy_net(features)
        return th.cat([hidden, features[:, features.shape[1] - self.n_extra :]], dim=1)


class ActionFeatureHead(nn.Module):
    """Logits = linear(hidden) + per-feature weights times each action's features."""

    def __init__(self, hidden_dim: int, n_actions: int, n_flags: int) -> None:
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_actions = n_actions
        self.n_flags = n_flags
        self.linear = nn.Linear(hidden_dim, n_actions)
        self.flag_weight = nn.Parameter(th.zeros(n_flags))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        hidden = latent[:, : self.hidden_dim]
        flags = latent[:, self.hidden_dim :].reshape(-1, self.n_flags, self.n_actions)
        # (F,) @ (B, F, A) -> (B, A): a matmul: a third of an einsum's time here
        return self.linear(hidden) + th.matmul(FLAG_SCALE * self.flag_weight, flags)


class ActionFeaturePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy for observations ending in ``n_flags`` flags per action."""

    def __init__(self, *args: Any, n_flags: int = 4, **kwargs: Any) -> None:
        if n_flags < 1:
            raise ValueError(f"n_flags must be >= 1, got {n_flags}")
        self.n_flags = int(n_flags)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        n_extra = self.n_flags * int(self.action_space.n)  # type: ignore[attr-defined]
        if self.features_dim <= n_extra:
            raise ValueError(
                f"observation of {self.features_dim} values cannot end in {self.n_flags} flags "
                f"for each of {self.action_space.n} actions"  # type: ignore[attr-defined]
            )
        self.mlp_extractor = _PassFeatures(
            self.features_dim,
            n_extra,
            net_arch=self.net_arch,
            activation_fn=self.activation_fn,
            device=self.device,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        extractor = self.mlp_extractor
        assert isinstance(extractor, _PassFeatures)
        self.action_net = ActionFeatureHead(
            extractor.hidden_dim_pi,
            int(self.action_space.n),  # type: ignore[attr-defined]
            self.n_flags,
        )
        if self.ortho_init:  # as SB3 initialises its own action head
            self.action_net.linear.apply(lambda m: self.init_weights(m, gain=0.01))
        # the optimizer was built over the replaced head: build it again
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["n_flags"] = self.n_flags
        return data
