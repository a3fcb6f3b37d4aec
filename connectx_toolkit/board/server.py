"""Start the board: resolve the agent, read the game, bind 127.0.0.1, serve until Ctrl-C.

:class:`BoardServer` does every check before anything starts and raises :class:`BoardError` (one line
for the user) on bad input: an unknown agent, an unreadable game file, a game number that is not there,
a port in use. ``evaluate.py --board`` and ``connectx_toolkit.open_board`` both build one. ``--position MOVES`` opens the board at a position
(the worst positions of ``connectx accuracy`` are named so), with the human to move there.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import socket
import threading
import webbrowser
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from connectx_toolkit.agents.core import Config
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB

if TYPE_CHECKING:
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec

__all__ = ["BoardError", "BoardOptions", "BoardServer", "load_game", "split_game_argument"]

HOST = "127.0.0.1"


class BoardError(UsageError):
    """Input the board cannot use: one line for the user (exit 2; a ``ValueError``)."""


@dataclass
class BoardOptions:
    """What ``connectx board`` takes (the flags of the same names); checks its own fields when it is made and
    raises ``BoardError`` (one line) for a bad one."""

    agent: "str | Callable[..., Any] | AgentSpec" = "solver"
    game: str | None = None
    position: str | None = None  # a move string (Pons' notation, "" the empty board): the board opens there
    config: Config | None = None  # None: the loaded game's board, else 6x7 four in a row
    port: int = 0
    sandbox: bool = False
    analysis_budget: float | None = None
    analysis_cache: str | None = None
    compiled_solver: bool = True
    outcome_table: bool = True
    workers: int | None = None
    act_timeout: float = DEFAULT_ACT_TIMEOUT
    overage: float = DEFAULT_OVERAGE
    memory_mb: int = DEFAULT_MEMORY_MB  # what the agent may allocate (0: no cap)

    def __post_init__(self) -> None:
        """Each field's rule, once for every door (the command line, the Python API)."""
        from connectx_toolkit.analysis.settings import AnalysisSettings
        from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

        if not (type(self.port) is int and 0 <= self.port <= 65535):
            raise BoardError(f"--port must be a port number (0-65535), got {self.port!r}")
        if self.game is not None and not (isinstance(self.game, str) and self.game):
            raise BoardError(f"--game must be FILE[:N], got {self.game!r}")
        if self.position is not None:
            self.start_moves  # checked here, when the options are made: one line for an illegal move string
        try:  # the clock, the memory cap and the analysis: the same rules as a match's and an analysis's
            if self.config is not None:
                PlaySettings(rows=self.config.rows, columns=self.config.columns, inarow=self.config.inarow,
                             act_timeout=self.act_timeout, overage=self.overage, memory_mb=self.memory_mb)
            else:
                PlaySettings(act_timeout=self.act_timeout, overage=self.overage, memory_mb=self.memory_mb)
            AnalysisSettings(budget=self.analysis_budget, cache=self.analysis_cache, workers=self.workers)
        except UsageError as error:
            raise BoardError(str(error)) from None

    @property
    def start_moves(self) -> tuple[int, ...]:
        """The 0-based columns of ``position`` (none without one); ``BoardError`` (one line) if the board cannot
        open there: an illegal or finished move string, a loaded game as well, a board other than 6x7."""
        from connectx_toolkit.analysis.positions import PositionError, parse_moves

        if self.position is None:
            return ()
        if not isinstance(self.position, str):
            raise BoardError(f"--position must be a move string such as 4453, got {self.position!r}")
        if self.game is not None:
            raise BoardError("--position and --game: the board opens at one or the other, not both")
        if self.config is not None and not self.config.is_standard:
            raise BoardError(f"--position: move strings are positions of the 6x7 board, four in a row, not "
                             f"{self.config.rows}x{self.config.columns}: drop --rows/--columns/--inarow")
        try:
            return parse_moves(self.position)
        except PositionError as error:
            raise BoardError(f"--position {self.position.strip()!r}: {error}") from None


def split_game_argument(text: str) -> tuple[str, int | None]:
    """``FILE[:N]`` -> (FILE, N or None); a colon not followed by digits is part of the file name."""
    head, sep, tail = text.rpartition(":")
    if sep and head and tail.isdigit():
        return head, int(tail)
    return text, None


def load_game(text: str) -> Any:
    """Game N of a results file (N: its game id; default the first game) or the game of a Kaggle episode."""
    from connectx_toolkit.analysis.games import AnalysisInputError, read_games

    path, number = split_game_argument(text)
    try:
        games = read_games(path)
    except AnalysisInputError as error:
        raise BoardError(f"--game: {error}") from None
    if not games:
        raise BoardError(f"--game: {path!r} holds no finished game")
    if number is None:
        return games[0]
    for game in games:
        if game.game_id == number:
            return game
    ids = [game.game_id for game in games]
    raise BoardError(f"--game: {path!r} has no game {number} (its games: {_id_ranges(ids)})")


def _id_ranges(ids: list[int]) -> str:
    if len(ids) == 1:
        return str(ids[0])
    if ids == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]}..{ids[-1]}"
    return ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")


class BoardServer:
    """A bound (not yet serving) board; ``url`` carries the token. ``serve_forever()`` or ``start()``."""

    def __init__(self, options: BoardOptions) -> None:
        from werkzeug.serving import make_server

        from connectx_toolkit.board.app import create_app
        from connectx_toolkit.board.session import BoardSession
        from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
        from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec, AgentSpecError, resolve_agent

        if options.sandbox:
            from connectx_toolkit.sandbox import SandboxUnavailable, require

            try:
                require()
            except SandboxUnavailable as error:
                raise BoardError(str(error)) from None
        try:
            spec = options.agent if isinstance(options.agent, AgentSpec) else resolve_agent(options.agent,
                                                                                            sandbox=options.sandbox)
        except AgentSpecError as error:
            raise BoardError(str(error)) from None
        loaded = load_game(options.game) if options.game else None
        config = options.config or (loaded.config if loaded is not None else Config())
        if loaded is not None and loaded.config != config:
            raise BoardError(f"--game: the game is on a {loaded.config.rows}x{loaded.config.columns} board, not "
                             f"{config.rows}x{config.columns}: drop --rows/--columns/--inarow")
        listening = _listen(options.port)  # before anything starts: a port in use is bad input
        self.token = secrets.token_urlsafe(18)
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request on the terminal
        self._values = _value_service(options) if config.is_standard else None
        self.seat = AgentProcess(spec, sandbox=options.sandbox, memory_mb=options.memory_mb)
        self.session = BoardSession(config, self.seat, spec.name, act_timeout=options.act_timeout,
                                    overage=options.overage, values=self._values, loaded=loaded,
                                    source=options.game or "", start=options.start_moves)
        self._thread: threading.Thread | None = None
        with listening:  # werkzeug serves on its own copy of the socket
            self._server = make_server(HOST, options.port, create_app(self.session, self.token), threaded=True,
                                       fd=listening.fileno())
        try:  # the agent's process starts now: an agent that cannot start is bad input
            self.session.start_agent()
        except RuntimeError as error:
            self.close()
            raise BoardError(str(error)) from None
        self.port = self._server.port
        self.url = f"http://{HOST}:{self.port}/?token={self.token}"

    def serve_forever(self, open_browser: bool = False) -> None:
        """Serve in this thread until Ctrl-C, then close."""
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(self.url,), daemon=True).start()
        try:
            self._server.serve_forever()
        finally:
            self.close()

    def start(self) -> "BoardServer":
        """Serve in a background thread (a notebook)."""
        self._thread = threading.Thread(target=self._server.serve_forever, name="board-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread = None
        self._server.server_close()
        self.session.close()

    def _repr_html_(self) -> str:
        """A notebook shows the board itself, in an IFrame."""
        return f'<iframe src="{self.url}" width="100%" height="720" style="border:0"></iframe>'


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: a free one), bound here rather than by werkzeug, which
    exits the process itself when the port is taken."""
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((HOST, port))
        listening.listen(128)
    except OSError as error:
        listening.close()
        raise BoardError(f"cannot serve on {HOST}:{port}: "
                         f"{'the port is in use' if error.errno == errno.EADDRINUSE else error.strerror}") from None
    return listening


def _value_service(options: BoardOptions) -> Any:
    from connectx_toolkit.analysis.cache import default_cache_path
    from connectx_toolkit.analysis.settings import default_budget
    from connectx_toolkit.analysis.solving import compiled_solver_available
    from connectx_toolkit.analysis.workers import default_workers
    from connectx_toolkit.board.values import ValueService

    compiled = options.compiled_solver and compiled_solver_available()
    cache = options.analysis_cache or default_cache_path()
    if cache != "none":
        try:
            os.makedirs(os.path.dirname(os.path.abspath(cache)), exist_ok=True)
        except OSError as error:
            raise BoardError(f"analysis cache {cache!r}: {error.strerror}") from None
    return ValueService(options.analysis_budget or default_budget(compiled), compiled,
                        None if cache == "none" else cache, options.workers or default_workers(),
                        table=options.outcome_table)
