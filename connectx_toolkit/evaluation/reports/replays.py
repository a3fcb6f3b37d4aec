"""HTML replays of finished games, drawn by Kaggle's own ConnectX renderer (``env.render(mode="html")``).

``evaluate.py --replays DIR`` calls ``save_replay`` for every game the first agent lost, forfeited
(invalid move, error) or timed out, so the game can be watched move by move in a browser.

A record normally carries Kaggle's ``env.steps`` and the replay is exactly what Kaggle recorded. A game
whose worker had to be killed (a hung or crashed agent), or a record read back from a results file, has
no steps: the game is then rebuilt on a fresh referee from its moves, and the forfeit is passed to
Kaggle's ``env.step`` the way Kaggle's own runner does (``DeadlineExceeded`` for a timeout, an
exception for an error, a non-integer action for an invalid move), so the replay ends as the game did.
"""

from __future__ import annotations

import os
from typing import Any

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.evaluation.referees.kaggle_steps import KaggleSteps
from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.evaluation.referees.record import GameRecord

__all__ = ["replay_environment", "replay_html", "replay_name", "save_replay", "write_page"]


def save_replay(record: GameRecord, directory: str, perspective: int = 0) -> str:
    """Write the HTML replay of ``record`` into ``directory`` (created if needed); returns its path.

    The file is named after the game id, the agent ``perspective`` (0 = the match's first agent), its
    opponent and its outcome, e.g. ``game-000017-greedy-vs-negamax-loss.html``. The file appears whole
    or not at all.
    """
    return write_page(replay_html(record), directory, replay_name(record, perspective))


def write_page(text: str, directory: str, name: str) -> str:
    """Write ``text`` to ``directory/name`` (the directory created if needed) so that the file appears
    whole or not at all; returns its path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    write_atomically(path, text)
    return path


def replay_name(record: GameRecord, perspective: int = 0) -> str:
    """``game-<id>-<agent>-vs-<opponent>-<outcome>.html`` from the point of view of match agent ``perspective``."""
    seat = perspective ^ int(record.swapped)
    agent, opponent = _slug(record.agents[seat]), _slug(record.agents[1 - seat])
    return f"game-{record.game_id:06d}-{agent}-vs-{opponent}-{record.outcome_of(perspective)}.html"


def replay_html(record: GameRecord) -> str:
    """A self-contained HTML page: Kaggle's ConnectX player loaded with this game, and, above it, why a seat
    forfeited and the last lines each seat printed."""
    page = replay_environment(record).render(mode="html")
    notes = forfeit_notes(record)
    if not notes:
        return page
    marker = page.find("<body>")
    at = marker + len("<body>") if marker >= 0 else 0
    return page[:at] + notes + page[at:]


def forfeit_notes(record: GameRecord) -> str:
    """An HTML block with each seat's error and printed lines (empty when no seat forfeited or printed)."""
    import html

    parts = []
    for seat, name in enumerate(record.agents):
        error = record.error[seat] if seat < len(record.error) else None
        logs = record.logs[seat] if seat < len(record.logs) else []
        if not error and not logs:
            continue
        title = f"player {seat + 1} ({html.escape(name)}): {html.escape(record.statuses[seat])}"
        body = f"<p class=\"error\"><b>{title}</b> {html.escape(error or '')}</p>"
        if logs:
            body += "<pre class=\"logs\">" + html.escape("\n".join(logs)) + "</pre>"
        parts.append(body)
    if not parts:
        return ""
    return ("<div class=\"forfeit\" style=\"font-family: sans-serif; font-size: 13px; margin: 8px\">"
            + "".join(parts) + "</div>")


def replay_environment(record: GameRecord) -> Any:
    """A finished ``kaggle_environments`` ConnectX environment holding the game of ``record``."""
    from kaggle_environments import make

    info = {"TeamNames": list(record.agents)}
    configuration = dict(record.config)
    if record.steps:
        return make("connectx", configuration=configuration, info=info, steps=_plain(record.steps))
    return _rebuild(record, make("connectx", configuration=configuration, info=info))


def _rebuild(record: GameRecord, env: Any) -> Any:
    """Replay ``record.moves`` on ``env`` and end the game with the recorded forfeit, if any."""
    from kaggle_environments.errors import DeadlineExceeded

    for column in record.moves:
        if env.done:
            raise ValueError(f"game {record.game_id}: moves go on after the game ended")
        actions: list[Any] = [None, None]
        actions[_active_seat(env)] = int(column)
        env.step(actions, [{}, {}])
    forfeits = {Status.TIMEOUT: DeadlineExceeded(record.note or "no answer in time"),
                Status.ERROR: RuntimeError(record.note or "the agent failed"),
                Status.INVALID: f"invalid: {record.note}"}
    offenders = [seat for seat, status in enumerate(record.statuses) if status in forfeits]
    if offenders and not env.done:
        actions = [None, None]
        for seat in offenders:
            actions[seat] = forfeits[record.statuses[seat]]
        env.step(actions, [{}, {}])
    return env


def _active_seat(env: Any) -> int:
    return 0 if env.state[0].status == Status.ACTIVE else 1


def _plain(value: Any) -> Any:
    """Kaggle ``Struct``s (dict subclasses) as plain dicts/lists, as ``make(steps=...)`` expects."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, KaggleSteps)):
        return [_plain(item) for item in value]
    return value


def _slug(name: str) -> str:
    """An agent name fit for a file name: ``submissions/my agent.py`` -> ``my_agent``."""
    from connectx_toolkit.building.agent_names import file_stem

    return file_stem(name)
