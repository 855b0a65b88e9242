"""The network of :mod:`cardhouse.train`: a two-layer MLP with policy and value heads, and its
export to the engine's policy file (which the engine evaluates in Rust, with no Python)."""

from __future__ import annotations

import struct

import numpy as np
import torch
from torch import nn

import cardhouse

__all__ = ["Agent", "export_policy", "learner_seats", "rank_sharing", "sides"]


def sides(players: int) -> int:
    """Partnerships with four players (seats ``s`` and ``s + 2``), every seat alone
    otherwise."""
    return 2 if players == 4 else players


def learner_seats(game: cardhouse.Game) -> list[int]:
    """The seats of side 0."""
    return [s for s in range(game.num_players) if s % sides(game.num_players) == 0]


def rank_sharing(game: cardhouse.Game) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Fixed linear maps that let a network share its weights across the suits of a 52-card
    game whose card ids are ``suit lane * 13 + rank index`` (Cribbage): ``features``
    ``(obs_len, k)``, the rank counts of every 52-card slice of the observation (hand,
    discards, cards laid, starter, crib), and ``groups`` ``(num_actions, 13)``, each card
    action's rank. ``None`` for other games. Both fold into plain layers at export, so the
    engine's policy format does not change."""
    if game.name != "cribbage":
        return None
    obs_len = game.observation_shape[0]
    blocks = []
    for piece in game.observation_layout():
        shape = tuple(piece["shape"])
        if shape[-1] != 52:
            continue
        for k in range(int(np.prod(shape[:-1], dtype=np.int64))):
            block = np.zeros((obs_len, 13), dtype=np.float32)
            start = piece["offset"] + 52 * k
            for card in range(52):
                block[start + card, card % 13] = 1.0
            blocks.append(block)
    features = torch.from_numpy(np.concatenate(blocks, axis=1))
    groups = torch.zeros((game.num_distinct_actions, 13))
    groups[torch.arange(52), torch.arange(52) % 13] = 1.0
    return features, groups


class Agent(nn.Module):
    """A two-layer MLP (ReLU) with a policy head (logits over every action id) and a value
    head on the same trunk. With ``hint``, the heuristic's action is a second input (a
    one-hot, here an embedding added to the first layer) and ``hint_bonus`` is added to its
    logit. With ``sharing`` (:func:`rank_sharing`), fixed linear features of the observation
    feed the first layer too and each action's output and hint embedding get a share common
    to its group (a card's rank). The trunk and the policy head are what the engine
    evaluates (:func:`export_policy`)."""

    def __init__(
        self,
        obs_len: int,
        num_actions: int,
        hidden: int = 256,
        hint: float | None = None,
        sharing: tuple[torch.Tensor, torch.Tensor] | None = None,
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
        self.features: torch.Tensor | None
        self.groups: torch.Tensor | None
        self.register_buffer("features", None if sharing is None else sharing[0].clone())
        self.register_buffer("groups", None if sharing is None else sharing[1].clone())
        if sharing is not None:
            features, groups = sharing
            self.first_shared = nn.Linear(features.shape[1], hidden, bias=False)
            self.actor_shared = nn.Linear(hidden, groups.shape[1])
            nn.init.orthogonal_(self.actor_shared.weight, 0.01)
            nn.init.zeros_(self.actor_shared.bias)
            self.hint_shared = nn.Embedding(groups.shape[1], hidden)
            nn.init.normal_(self.hint_shared.weight, std=0.01)

    def folded(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor, torch.Tensor]:
        """The plain layers the engine evaluates: the first layer's weights ``(obs_len,
        hidden)``, its bias, the hint rows ``(num_actions, hidden)`` (or ``None``), the
        policy head's weights ``(hidden, num_actions)`` and bias, the shared parts folded
        in."""
        first_w: torch.Tensor = self.first.weight.T
        actor_w: torch.Tensor = self.actor.weight.T
        actor_b: torch.Tensor = self.actor.bias
        hint_w: torch.Tensor | None = (
            self.hint_embedding.weight if self.hint_embedding is not None else None
        )
        if self.features is not None and self.groups is not None:
            first_w = first_w + self.features @ self.first_shared.weight.T
            actor_w = actor_w + self.actor_shared.weight.T @ self.groups.T
            actor_b = actor_b + self.groups @ self.actor_shared.bias
            if hint_w is not None:
                hint_w = hint_w + self.groups @ self.hint_shared.weight
        return first_w, self.first.bias, hint_w, actor_w, actor_b

    def outputs(self, obs: torch.Tensor, hint: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy head's outputs (before the hint bonus and the mask) and the trunk."""
        x = self.first(obs)
        if self.features is not None:
            x = x + self.first_shared(obs @ self.features)
        if self.hint_embedding is not None and hint is not None:
            x = x + self.hint_embedding(hint)
            if self.groups is not None:
                x = x + self.groups[hint] @ self.hint_shared.weight
        h = torch.relu(self.second(torch.relu(x)))
        out = self.actor(h)
        if self.groups is not None:
            out = out + self.actor_shared(h) @ self.groups.T
        return out, h

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e9) and values."""
        logits, h = self.outputs(obs, hint)
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

    with torch.no_grad():
        first_t, first_b, hint_t, actor_t, actor_b = agent.folded()
    first_w = array(first_t)  # (obs_len, hidden), input-major
    if hint_t is not None:
        first_w = np.concatenate([first_w, array(hint_t)], axis=0)
    layers = [
        (first_w, array(first_b)),
        (array(agent.second.weight).T, array(agent.second.bias)),
        (array(actor_t), array(actor_b)),
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
