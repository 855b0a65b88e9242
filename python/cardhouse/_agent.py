"""The network of :mod:`cardhouse.train`: a two-layer MLP with policy and value heads, and its
export to the engine's policy file (which the engine evaluates in Rust, with no Python)."""

from __future__ import annotations

import struct

import numpy as np
import torch
from torch import nn

import cardhouse

__all__ = ["Agent", "export_policy", "learner_seats", "sides"]


def sides(players: int) -> int:
    """Partnerships with four players (seats ``s`` and ``s + 2``), every seat alone
    otherwise."""
    return 2 if players == 4 else players


def learner_seats(game: cardhouse.Game) -> list[int]:
    """The seats of side 0."""
    return [s for s in range(game.num_players) if s % sides(game.num_players) == 0]


class Agent(nn.Module):
    """A two-layer MLP (ReLU) with a policy head (logits over every action id) and a value
    head on the same trunk. With ``hint``, the heuristic's action is a second input (a
    one-hot, here an embedding added to the first layer) and ``hint_bonus`` is added to its
    logit. The trunk and the policy head are what the engine evaluates
    (:func:`export_policy`)."""

    def __init__(
        self, obs_len: int, num_actions: int, hidden: int = 256, hint: float | None = None
    ) -> None:
        super().__init__()
        self.first = nn.Linear(obs_len, hidden)
        self.second = nn.Linear(hidden, hidden)
        self.actor = nn.Linear(hidden, num_actions)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, 0.01)
        nn.init.zeros_(self.actor.bias)
        self.hint_embedding: nn.Embedding | None = None
        self.hint_bonus: nn.Parameter | None = None
        if hint is not None:
            self.hint_embedding = nn.Embedding(num_actions, hidden)
            nn.init.normal_(self.hint_embedding.weight, std=0.01)
            self.hint_bonus = nn.Parameter(torch.tensor(float(hint)))

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e9) and values."""
        x = self.first(obs)
        if self.hint_embedding is not None and hint is not None:
            x = x + self.hint_embedding(hint)
        h = torch.relu(self.second(torch.relu(x)))
        logits = self.actor(h)
        if self.hint_bonus is not None and hint is not None:
            logits = logits.scatter_add(
                1, hint[:, None], self.hint_bonus.expand(len(hint), 1)
            )
        return logits.masked_fill(~mask, -1e9), self.critic(h).squeeze(-1)


def export_policy(agent: Agent, game: cardhouse.Game, name: str, info: str = "") -> bytes:
    """The policy (trunk and policy head) as the engine's policy file, version 1: magic
    ``CHPOLICY``, u32 version, then u32-length-prefixed UTF-8 name, game and info, u32
    observation length, u32 action count, u32 features (1: the heuristic's action one-hot
    follows the observation), f32 hint bonus, u32 layer count, and per layer u32 inputs, u32
    outputs, the weights input-major (``weight.T``) and the biases, all little-endian. A
    ReLU follows every layer but the last. Load it with :func:`cardhouse.bots.policy`."""

    def array(t: torch.Tensor) -> np.ndarray:
        return t.detach().to(torch.float32).cpu().numpy()

    first_w = array(agent.first.weight).T  # (obs_len, hidden), input-major
    if agent.hint_embedding is not None:
        first_w = np.concatenate([first_w, array(agent.hint_embedding.weight)], axis=0)
    layers = [
        (first_w, array(agent.first.bias)),
        (array(agent.second.weight).T, array(agent.second.bias)),
        (array(agent.actor.weight).T, array(agent.actor.bias)),
    ]
    bonus = float(agent.hint_bonus.item()) if agent.hint_bonus is not None else 0.0
    out = bytearray(b"CHPOLICY")
    out += struct.pack("<I", 1)
    for text in (name, game.name, info):
        data = text.encode()
        out += struct.pack("<I", len(data)) + data
    out += struct.pack("<II", game.observation_shape[0], game.num_distinct_actions)
    out += struct.pack("<If", int(agent.hint_bonus is not None), bonus)
    out += struct.pack("<I", len(layers))
    for w, b in layers:
        out += struct.pack("<II", w.shape[0], w.shape[1])
        out += np.ascontiguousarray(w, dtype="<f4").tobytes()
        out += np.ascontiguousarray(b, dtype="<f4").tobytes()
    return bytes(out)
