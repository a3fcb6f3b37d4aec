"""Fetch a submission's ladder games: list its episodes, then download each finished episode's replay and
our agent's log into the cache folder (:mod:`files`), skipping what is already there.

Nothing is written before the first replay shows the submission plays ConnectX: an unknown submission,
another competition's submission or no network leaves no folder behind. A missing log (Kaggle has none, or
keeps it from this account) is noted and the run goes on; it is asked for again by the next run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from connectx_toolkit.on_kaggle.connection import Connection, RequestFailed
from connectx_toolkit.on_kaggle.episodes import Episode, list_episodes
from connectx_toolkit.on_kaggle.errors import KaggleError
from connectx_toolkit.on_kaggle.files import LadderFolder
from connectx_toolkit.outcomes import Status

__all__ = ["COMPETITION", "Fetched", "fetch"]

COMPETITION = "connectx"  # the environment name in every ConnectX replay, and the competition's slug


@dataclass
class Fetched:
    """What a fetch found and did."""

    folder: LadderFolder
    listed: list[Episode]
    selected: list[Episode]  # the finished episodes asked for, oldest first
    downloaded: int = 0  # replays fetched by this run
    already_here: int = 0  # replays a previous run had fetched
    logs_missing: dict[int, str] = field(default_factory=dict)  # episode id -> why
    replays_missing: list[int] = field(default_factory=list)  # finished, but Kaggle has no replay (404)


def fetch(connection: Connection, submission_id: int, directory: str, max_episodes: int | None = None,
          progress: bool = True) -> Fetched:
    """List the episodes of ``submission_id`` and download what ``directory`` lacks; KaggleError (one line)
    for an unknown submission, another competition's, or a request that fails for good."""
    listed = list_episodes(connection, submission_id)
    if not listed:
        raise KaggleError(f"submission {submission_id} has no episodes on Kaggle (none played yet? a new "
                          "submission plays its validation episode within minutes)")
    if not any(episode.seats_of(submission_id) for episode in listed):
        raise KaggleError(f"Kaggle's episode list for submission {submission_id} does not include it")
    finished = [episode for episode in listed if episode.finished]
    selected = finished[-max_episodes:] if max_episodes else finished
    folder = LadderFolder(directory)
    fetched = Fetched(folder, listed, selected)
    if not selected:
        return fetched
    folder.remove_stale_temporaries()
    verified = _verify_cached(folder, selected, submission_id)
    todo = [e for e in selected if not os.path.exists(folder.replay(e.id)) or not os.path.exists(folder.log(e.id))]
    fetched.already_here = sum(os.path.exists(folder.replay(e.id)) for e in selected)
    bar = _progress(len(selected), len(selected) - len(todo), progress)
    try:
        for episode in todo:
            if not os.path.exists(folder.replay(episode.id)):
                data = _replay(connection, episode.id)
                if data is None:
                    fetched.replays_missing.append(episode.id)
                    continue
                if not verified:
                    _check_competition(data, submission_id)
                    verified = True
                    folder.write_json(folder.listing, _listing(submission_id, listed))
                folder.write(folder.replay(episode.id), data)
                fetched.downloaded += 1
            if not os.path.exists(folder.log(episode.id)):
                _log(connection, folder, episode, submission_id, fetched.logs_missing)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    if verified:
        folder.write_json(folder.listing, _listing(submission_id, listed))
    return fetched


def _replay(connection: Connection, episode_id: int) -> bytes | None:
    """The replay as Kaggle sends it; None when Kaggle has none (404: the next run asks again)."""
    from kagglesdk.competitions.types.competition_api_service import ApiGetEpisodeReplayRequest

    request = ApiGetEpisodeReplayRequest()
    request.episode_id = episode_id
    api = connection.client.competitions.competition_api_client
    try:
        return connection.call(f"the replay of episode {episode_id}", lambda r: api.get_episode_replay(r).content,
                               request)
    except RequestFailed as error:
        if error.status == 404:
            return None
        raise


def _log(connection: Connection, folder: LadderFolder, episode: Episode, submission_id: int,
         missing: dict[int, str]) -> None:
    """Download our agent's log of ``episode``, or note why there is none."""
    from kagglesdk.competitions.types.competition_api_service import ApiGetEpisodeAgentLogsRequest

    seat = our_log_seat(episode, submission_id)
    if seat is None:
        missing[episode.id] = f"no seat of the episode is submission {submission_id}'s"
        return
    request = ApiGetEpisodeAgentLogsRequest()
    request.episode_id = episode.id
    request.agent_index = seat
    api = connection.client.competitions.competition_api_client
    try:
        data = connection.call(f"our agent's log of episode {episode.id}",
                               lambda r: api.get_episode_agent_logs(r).content, request)
    except RequestFailed as error:
        if error.status not in (403, 404):
            raise
        missing[episode.id] = "Kaggle has no log of our agent" if error.status == 404 else \
            "Kaggle keeps the log from this account"
        return
    folder.write(folder.log(episode.id), data)


def our_log_seat(episode: Episode, submission_id: int) -> int | None:
    """The seat whose log is ours: in the validation episode (both seats ours) the one that forfeited, if any;
    None when no seat is ours."""
    seats = episode.seats_of(submission_id)
    failed = [agent.index for agent in episode.agents if agent.index in seats and agent.state.startswith(Status.ERROR)]
    return (failed or seats or [None])[0]


def _check_competition(data: bytes, submission_id: int) -> None:
    try:
        replay = json.loads(data)
    except ValueError:
        raise KaggleError(f"the first replay of submission {submission_id} is not JSON ({len(data)} bytes)") from None
    name = replay.get("name") if isinstance(replay, dict) else None
    if name != COMPETITION:
        raise KaggleError(f"submission {submission_id} is not a ConnectX submission: its episodes are games of "
                          f"{name!r} (another competition)")


def _verify_cached(folder: LadderFolder, selected: list[Episode], submission_id: int) -> bool:
    """True when a replay of an earlier run is there (and is ConnectX's)."""
    for episode in selected:
        try:
            with open(folder.replay(episode.id), "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        _check_competition(data, submission_id)
        return True
    return False


def _listing(submission_id: int, listed: list[Episode]) -> dict[str, Any]:
    return {"submission_id": submission_id, "episodes": [episode.to_json() for episode in listed]}


def _progress(total: int, initial: int, enabled: bool) -> Any:
    if not enabled or initial >= total:
        return None
    from connectx_toolkit.evaluation.reports.progress import progress_bar

    return progress_bar(total, initial=initial, unit="episode", desc="downloading")
