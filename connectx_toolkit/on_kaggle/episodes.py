"""A submission's episodes as Kaggle lists them (``list_submission_episodes``), kept as plain data.

Kaggle answers the whole list at once (the SDK's request has no page token). Each episode names its
agents by seat (``index`` 0 moved first), with the submission, team name, reward and state of each.
A rating appears only when Kaggle sends one: the public API's ``ApiEpisodeAgent`` (kagglesdk 0.1.38)
has no such field, but Kaggle's site lists an agent's rating before and after an episode as
``initialScore`` and ``updatedScore``; the listing's JSON is read as sent, so those are kept when present.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from connectx_toolkit.on_kaggle.connection import Connection, RequestFailed
from connectx_toolkit.on_kaggle.errors import KaggleError

__all__ = ["Episode", "EpisodeAgent", "list_episodes"]

RATING_BEFORE = "initialScore"


@dataclass(frozen=True)
class EpisodeAgent:
    """One seat of an episode."""

    index: int  # the seat: 0 moved first (mark 1)
    submission_id: int
    team_name: str
    reward: float | None
    state: str  # COMPLETE, ERROR_EVALUATION, ERROR_INVALID_ACTION, ERROR_TIMEOUT, ... (kagglesdk's names)
    rating: float | None = None  # before the episode, when Kaggle gives it


@dataclass(frozen=True)
class Episode:
    """One episode of the listing."""

    id: int
    state: str  # COMPLETED, CREATED, ERRORED, NEVER_STARTED
    type: str  # PUBLIC, VALIDATION, ...
    created: str | None
    ended: str | None
    agents: tuple[EpisodeAgent, ...]

    @property
    def finished(self) -> bool:
        return self.state == "COMPLETED"

    def seats_of(self, submission_id: int) -> list[int]:
        """The seats ``submission_id`` played (both in its validation episode against itself)."""
        return [agent.index for agent in self.agents if agent.submission_id == submission_id]

    def agent(self, seat: int) -> EpisodeAgent | None:
        return next((agent for agent in self.agents if agent.index == seat), None)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Episode":
        return cls(**{**data, "agents": tuple(EpisodeAgent(**agent) for agent in data["agents"])})


def list_episodes(connection: Connection, submission_id: int) -> list[Episode]:
    """Every episode of ``submission_id``, oldest first; KaggleError (one line) when Kaggle has no such
    submission or refuses the request."""
    from kagglesdk.competitions.types.competition_api_service import ApiListSubmissionEpisodesRequest

    request = ApiListSubmissionEpisodesRequest()
    request.submission_id = submission_id
    api = connection.client.competitions.competition_api_client
    try:
        response = connection.call(f"the episodes of submission {submission_id}", api.list_submission_episodes,
                                   request)
    except RequestFailed as error:
        if error.status == 404:
            raise KaggleError(f"no submission {submission_id} on Kaggle ({error})") from None
        raise
    raw = {str(item.get("id")): item for item in (connection.raw.get("ListSubmissionEpisodes") or {}).get("episodes", [])
           if isinstance(item, dict)}
    episodes = [_episode(item, raw.get(str(item.id)) or {}) for item in response.episodes]
    return sorted(episodes, key=lambda e: (e.created or "", e.id))


def _episode(item: Any, raw: dict[str, Any]) -> Episode:
    # int64 fields may come as JSON strings (proto3 JSON) and the SDK passes them on as they came
    raw_agents = {int(agent.get("index", 0)): agent for agent in raw.get("agents", []) if isinstance(agent, dict)}
    agents = tuple(EpisodeAgent(index=int(agent.index), submission_id=int(agent.submission_id),
                                team_name=agent.team_name or "", reward=_number(agent.reward),
                                state=_name(agent.state, "EPISODE_AGENT_STATE_"),
                                rating=_number(raw_agents.get(int(agent.index), {}).get(RATING_BEFORE)))
                   for agent in sorted(item.agents, key=lambda a: int(a.index)))
    return Episode(id=int(item.id), state=_name(item.state, "EPISODE_STATE_"), type=_name(item.type, "EPISODE_TYPE_"),
                   created=_time(item.create_time), ended=_time(item.end_time), agents=agents)


def _name(value: Any, prefix: str) -> str:
    name = getattr(value, "name", str(value))
    return name[len(prefix):] if name.startswith(prefix) else name


def _time(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
