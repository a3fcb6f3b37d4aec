"""A local stand-in for the part of Kaggle's API the toolkit uses, for tests with the real client.

kagglesdk's own test hook: with ``KAGGLE_API_ENVIRONMENT=TEST`` a ``KaggleClient`` POSTs every request to
``http://localhost:7777/api/v1/<Service>/<Method>``. The SDK fixes that address (``kagglesdk.kaggle_env``
has no setting for the host or port), so tests that run at once, in this checkout or another on the same
machine, take turns: the server holds an exclusive lock on a file in the temporary folder while it runs.

Requests are read and answers written with kagglesdk's own request and response types, so every field
name is the client's. The server binds 127.0.0.1 only, caps a request body at 64 MB and a connection's
idle time at 10 s, and runs in a daemon thread until :meth:`KaggleStandIn.stop`.

Methods answered (service ``competitions.CompetitionApiService``): ListSubmissionEpisodes,
GetEpisodeReplay, GetEpisodeAgentLogs, StartSubmissionUpload, CreateSubmission; the upload itself (a PUT
to the address StartSubmissionUpload gives, as Kaggle's storage takes it); and
``users.AccountService/GenerateAccessToken``, which turns the refresh token ``kaggle auth login`` saved
into an access token.
"""

from __future__ import annotations

import base64
import collections
import errno
import fcntl
import json
import os
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT = 7777  # kagglesdk.kaggle_env: KaggleEnv.TEST -> http://localhost:7777
SERVICE = "competitions.CompetitionApiService"
TOKENS = "users.AccountService/GenerateAccessToken"
LOCK = os.path.join(tempfile.gettempdir(), f"connectx-kaggle-stand-in-{PORT}.lock")
MAX_BODY = 64 * 1024 * 1024


class PortBusy(RuntimeError):
    """Another program (not a stand-in of these tests) holds the port."""


@dataclass
class ListedEpisode:
    """One episode of a submission's list: its agents as ``(index, submission_id, team_name, rating)``."""

    id: int
    agents: list[tuple[int, int, str, float | None]]
    replay: bytes | None  # None: Kaggle has none (a 404)
    logs: dict[int, bytes] = field(default_factory=dict)  # seat -> log; a seat without one answers 404
    state: str = "COMPLETED"
    type: str = "EPISODE_TYPE_PUBLIC"
    rewards: tuple[float | None, float | None] = (None, None)
    agent_states: tuple[str, str] = ("EPISODE_AGENT_STATE_COMPLETE", "EPISODE_AGENT_STATE_COMPLETE")


class KaggleStandIn:
    """The server and what it knows: submissions and their episodes, faults to inject, what it was asked."""

    def __init__(self) -> None:
        self.submissions: dict[int, list[ListedEpisode]] = {}
        self.accepted: set[str] = set()  # Authorization header values taken
        self.refresh_tokens: dict[str, str] = {}  # refresh token -> the access token it buys
        # method -> what to answer its next requests, in order: an HTTP status, or None for the true answer
        self.faults: dict[str, list[int | None]] = collections.defaultdict(list)
        self.retry_after = "0"  # the Retry-After header of a 429
        self.requests: list[tuple[str, dict]] = []  # (method, JSON body), in order
        self.served: collections.Counter = collections.Counter()  # (method, key) -> whole answers sent
        self.uploads: dict[str, bytes] = {}
        self.created: list[dict] = []
        self.errors: list[str] = []  # the stand-in's own failures (each answered 500): a test's bug, not the client's
        self.hold_at: tuple[str, int] | None = None  # (method, n): the n-th such answer stops halfway
        self.held = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._lock_file: Any = None

    # -- set-up -------------------------------------------------------------------------------------
    def accept_key(self, username: str, key: str) -> None:
        self.accepted.add("Basic " + base64.b64encode(f"{username}:{key}".encode()).decode())

    def accept_token(self, token: str) -> None:
        self.accepted.add(f"Bearer {token}")

    def reset(self) -> None:
        with self._lock:
            self.submissions.clear()
            self.accepted.clear()
            self.refresh_tokens.clear()
            self.faults.clear()
            self.requests.clear()
            self.served.clear()
            self.uploads.clear()
            self.created.clear()
            self.errors.clear()
            self.hold_at = None
            self.retry_after = "0"
            self.held.clear()
            self.release.clear()

    def count(self, method: str) -> int:
        return sum(1 for name, _ in self.requests if name == method)

    # -- life ---------------------------------------------------------------------------------------
    def start(self, lock_wait_s: float = 600.0) -> "KaggleStandIn":
        """Take the port's lock (waiting while another test run holds it), then serve."""
        self._lock_file = open(LOCK, "a")
        deadline = time.monotonic() + lock_wait_s
        while True:
            try:
                fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self._lock_file.close()
                    raise TimeoutError(f"another test run held {LOCK} for {lock_wait_s:g} s")
                time.sleep(0.2)
        try:
            self._server = _bind(self)
        except PortBusy:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            raise
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    # -- answers ------------------------------------------------------------------------------------
    def answer(self, method: str, body: dict, authorization: str) -> tuple[int, bytes, str]:
        """(status, body, content type) for one request."""
        with self._lock:
            self.requests.append((method, body))
            if authorization not in self.accepted:
                return _error(401, "Unauthenticated: no valid credentials")
            status = self.faults[method].pop(0) if self.faults.get(method) else None
            if status is not None:
                return _error(status, {403: "Forbidden", 429: "Too many requests"}.get(status, "Internal error"))
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return _error(404, f"no method {method}")
        try:
            return handler(body)
        except Exception as error:
            self.errors.append(f"{method}: {type(error).__name__}: {error}")
            return _error(500, f"stand-in error: {error}")

    def access_token(self, body: dict) -> tuple[int, bytes, str]:
        """GenerateAccessToken: needs no Authorization, only a refresh token this server knows."""
        from kagglesdk.users.types.account_service import GenerateAccessTokenRequest, GenerateAccessTokenResponse

        request = GenerateAccessTokenRequest.from_dict(body)
        with self._lock:
            self.requests.append(("GenerateAccessToken", body))
        token = self.refresh_tokens.get(request.refresh_token or "")
        if token is None:
            return _error(401, "Unknown refresh token")
        response = GenerateAccessTokenResponse()
        response.token, response.expires_in, response.user_name = token, 3600, "ada"
        return 200, response.to_json().encode(), "application/json"

    def _ListSubmissionEpisodes(self, body: dict) -> tuple[int, bytes, str]:
        from kagglesdk.competitions.types.competition_api_service import (
            ApiEpisode, ApiEpisodeAgent, ApiListSubmissionEpisodesRequest, ApiListSubmissionEpisodesResponse)
        from kagglesdk.competitions.types.episode import EpisodeAgentState, EpisodeState, EpisodeType

        request = ApiListSubmissionEpisodesRequest.from_dict(body)
        if request.submission_id not in self.submissions:
            return _error(404, f"Submission {request.submission_id} not found")
        response = ApiListSubmissionEpisodesResponse()
        ratings = {}
        for listed in self.submissions[request.submission_id]:
            episode = ApiEpisode()
            episode.id = listed.id
            episode.state = EpisodeState[listed.state]
            episode.type = EpisodeType[listed.type]
            agents = []
            for (index, submission, team, rating), reward, state in zip(listed.agents, listed.rewards,
                                                                        listed.agent_states):
                agent = ApiEpisodeAgent()
                agent.index, agent.submission_id, agent.team_name = index, submission, team
                agent.reward = None if reward is None else float(reward)
                agent.state = EpisodeAgentState[state]
                agents.append(agent)
                if rating is not None:
                    ratings[(listed.id, index)] = rating
            episode.agents = agents
            response.episodes = [*response.episodes, episode]
        document = response.to_dict()
        for item in document.get("episodes", []):  # the rating Kaggle's site lists, which the SDK type lacks
            for agent in item.get("agents", []):
                rating = ratings.get((item["id"], agent.get("index", 0)))
                if rating is not None:
                    agent["initialScore"] = rating
        self._count("ListSubmissionEpisodes", request.submission_id)
        return 200, json.dumps(document).encode(), "application/json"

    def _episode(self, episode_id: int) -> ListedEpisode | None:
        return next((e for episodes in self.submissions.values() for e in episodes if e.id == episode_id), None)

    def _GetEpisodeReplay(self, body: dict) -> tuple[int, bytes, str]:
        from kagglesdk.competitions.types.competition_api_service import ApiGetEpisodeReplayRequest

        request = ApiGetEpisodeReplayRequest.from_dict(body)
        episode = self._episode(request.episode_id)
        if episode is None or episode.replay is None:
            return _error(404, f"Episode {request.episode_id} has no replay")
        return 200, episode.replay, "application/json"

    def _GetEpisodeAgentLogs(self, body: dict) -> tuple[int, bytes, str]:
        from kagglesdk.competitions.types.competition_api_service import ApiGetEpisodeAgentLogsRequest

        request = ApiGetEpisodeAgentLogsRequest.from_dict(body)
        episode = self._episode(request.episode_id)
        if episode is None or request.agent_index not in episode.logs:
            return _error(404, f"No logs for agent {request.agent_index} of episode {request.episode_id}")
        return 200, episode.logs[request.agent_index], "application/json"

    def _StartSubmissionUpload(self, body: dict) -> tuple[int, bytes, str]:
        from kagglesdk.competitions.types.competition_api_service import (
            ApiStartSubmissionUploadRequest, ApiStartSubmissionUploadResponse)

        request = ApiStartSubmissionUploadRequest.from_dict(body)
        response = ApiStartSubmissionUploadResponse()
        response.token = f"blob-{len(self.uploads) + len(self.created) + 1}-{request.file_name}"
        response.create_url = f"http://localhost:{PORT}/upload/{response.token}"
        return 200, response.to_json().encode(), "application/json"

    def _CreateSubmission(self, body: dict) -> tuple[int, bytes, str]:
        from kagglesdk.competitions.types.competition_api_service import (
            ApiCreateSubmissionRequest, ApiCreateSubmissionResponse)

        request = ApiCreateSubmissionRequest.from_dict(body)
        if request.blob_file_tokens not in self.uploads:
            return _error(400, "No uploaded file for that token")
        with self._lock:
            self.created.append({"competition": request.competition_name, "description": request.submission_description,
                                 "file": self.uploads[request.blob_file_tokens]})
            number = 52000000 + len(self.created)
        response = ApiCreateSubmissionResponse()
        response.message, response.ref = "Successfully submitted to ConnectX", number
        return 200, response.to_json().encode(), "application/json"

    def _count(self, method: str, key: Any) -> None:
        with self._lock:
            self.served[(method, key)] += 1


def _error(status: int, message: str) -> tuple[int, bytes, str]:
    return status, json.dumps({"code": status, "message": message}).encode(), "application/json"


def _bind(stand_in: KaggleStandIn) -> ThreadingHTTPServer:
    class Server(ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

    deadline = time.monotonic() + 5.0
    while True:
        try:
            return Server(("127.0.0.1", PORT), _handler(stand_in))
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            if time.monotonic() > deadline:
                raise PortBusy(f"port {PORT} (kagglesdk's fixed TEST address) is held by another program") from None
            time.sleep(0.2)


def _handler(stand_in: KaggleStandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # an idle connection is dropped
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # the body must not wait for the headers' acknowledgement

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _body(self) -> bytes | None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(*_error(413, "too large"))
                return None
            return self.rfile.read(length) if length else b""

        def do_POST(self) -> None:
            body = self._body()
            if body is None:
                return
            prefix = f"/api/v1/{SERVICE}/"
            if not self.path.startswith(prefix) and self.path != f"/api/v1/{TOKENS}":
                self._send(*_error(404, f"no such path {self.path}"))
                return
            method = self.path[len(prefix):]
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                self._send(*_error(400, "not JSON"))
                return
            if self.path.endswith(TOKENS):
                self._send(*stand_in.access_token(request))
                return
            status, data, kind = stand_in.answer(method, request, self.headers.get("Authorization", ""))
            key = request.get("episodeId")
            hold = stand_in.hold_at
            if status == 200 and hold and hold[0] == method:
                with stand_in._lock:
                    stand_in.hold_at = (method, hold[1] - 1) if hold[1] > 1 else None
                if hold[1] == 1:
                    self._send_half_and_wait(data, kind)
                    return
            self._send(status, data, kind)
            if status == 200 and method in ("GetEpisodeReplay", "GetEpisodeAgentLogs"):
                stand_in._count(method, key)

        def do_PUT(self) -> None:
            body = self._body()
            if body is None:
                return
            token = self.path.rsplit("/", 1)[-1]
            if not self.path.startswith("/upload/"):
                self._send(*_error(404, "no such upload"))
                return
            with stand_in._lock:
                stand_in.requests.append(("upload", {"token": token, "bytes": len(body)}))
                stand_in.uploads[token] = body
            self._send(200, b"", "text/plain")

        def _send(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", stand_in.retry_after)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _send_half_and_wait(self, data: bytes, kind: str) -> None:
            """Start the answer, stop halfway (the client is mid-download), wait to be released, then hang up."""
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            stand_in.held.set()
            stand_in.release.wait(30)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    return Handler
