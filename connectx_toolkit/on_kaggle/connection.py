"""One session with Kaggle's API through ``kagglesdk``: paced requests, retries with back-off on HTTP 429
and 5xx, and every failure told in one line.

The client is ``kagglesdk.KaggleClient`` with the official client's credentials (:mod:`credentials`). Its
environment is kagglesdk's own choice: ``KAGGLE_API_ENVIRONMENT`` unset means Kaggle itself
(https://api.kaggle.com); ``TEST`` sends every request to http://localhost:7777, which is how the tests
reach a local stand-in for Kaggle's API.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any, Callable, TypeVar

from connectx_toolkit.on_kaggle.credentials import Credentials
from connectx_toolkit.on_kaggle.errors import KaggleError

__all__ = ["ATTEMPTS", "BACKOFF_S", "Connection", "PACE_S", "RequestFailed", "failure_line", "new_client"]

PACE_S = 0.25  # at least this long between two requests: at most four a second
ATTEMPTS = 5  # tries of one request answered 429, 5xx or not at all
BACKOFF_S = 1.0  # the wait before the second try; doubled before each later one
MAX_WAIT_S = 60.0  # the longest wait, whatever a Retry-After header asks
TIMEOUT_S = 60.0  # connecting or waiting for data; the SDK itself sends without a timeout
RETRIED = {429: "too many requests"}

T = TypeVar("T")


class RequestFailed(KaggleError):
    """A request that failed for good; ``status`` is the HTTP status (None: no answer)."""

    def __init__(self, line: str, status: int | None) -> None:
        super().__init__(line)
        self.status = status


def new_client(credentials: Credentials, response_processor: Callable[[Any], None] | None = None) -> Any:
    """A ``kagglesdk.KaggleClient`` for kagglesdk's environment, authenticated with ``credentials``."""
    from kagglesdk import KaggleClient
    from kagglesdk.kaggle_env import get_env

    try:
        env = get_env()
    except Exception as error:  # kagglesdk raises a bare Exception for an unknown name
        raise KaggleError(f"KAGGLE_API_ENVIRONMENT: {error}") from None
    token = credentials.token
    if credentials.oauth_file:
        token = _oauth_token(credentials, env)
    return KaggleClient(env=env, username=credentials.username, password=credentials.key, api_token=token,  # pyright: ignore[reportArgumentType]  kagglesdk declares these `str = None`: None is its own default
                        response_processor=response_processor)


def _oauth_token(credentials: Credentials, env: Any) -> str:
    from kagglesdk import KaggleClient, KaggleCredentials

    with KaggleClient(env=env) as client:
        try:
            saved = KaggleCredentials.load(client, credentials.oauth_file)  # pyright: ignore[reportArgumentType]  kagglesdk declares `file_path: str = None`: None is its own default
            token = saved.get_access_token() if saved else None
        except Exception as error:
            raise KaggleError(failure_line(error, "a fresh access token for the saved OAuth credentials",
                                           credentials)) from None
    if not token:
        raise KaggleError(f"no Kaggle credentials: {credentials.source} gives no access token (kaggle auth login)")
    return token


class Connection:
    """A client kept open for many requests; :meth:`call` paces, retries and turns failures into one line."""

    def __init__(self, credentials: Credentials, notify: Callable[[str], None] | None = None) -> None:
        from kagglesdk.kaggle_env import get_endpoint, get_env

        self.credentials = credentials
        self.notify = notify or (lambda line: print(line, file=sys.stderr))
        self.raw: dict[str, Any] = {}  # the last JSON body of each method, as Kaggle sent it (extra fields kept)
        self.client = new_client(credentials, response_processor=self._keep_raw)
        self.endpoint = get_endpoint(get_env())  # new_client has checked the name
        self.client.__enter__()
        _add_timeout(self.client)
        self._last = 0.0

    def close(self) -> None:
        self.client.__exit__(None, None, None)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def call(self, what: str, method: Callable[[Any], T], request: Any) -> T:
        """``method(request)``; a 429, a 5xx or no (whole) answer is retried up to ``ATTEMPTS`` times with
        growing waits (a Retry-After header is honoured up to ``MAX_WAIT_S``). Raises RequestFailed (one
        line naming ``what``) when it fails for good. ``method`` should read the whole body (a download's
        ``.content``), so that a body cut short is retried too."""
        import requests

        for attempt in range(1, ATTEMPTS + 1):
            self._pace()
            try:
                return method(request)
            except requests.RequestException as error:
                status = _status(error)
                retried = status is None or status in RETRIED or status >= 500
                if not retried or attempt == ATTEMPTS:
                    line = failure_line(error, what, self.credentials, self.endpoint, attempt if retried else 1)
                    raise RequestFailed(line, status) from None
                wait = min(MAX_WAIT_S, max(_retry_after(error), BACKOFF_S * 2 ** (attempt - 1)))
                self.notify(f"Kaggle's API: {_answer(error)} for {what}; trying again in {wait:g} s "
                            f"({attempt + 1} of {ATTEMPTS})")
                _wait(wait)
        raise AssertionError("unreachable")

    def _pace(self) -> None:
        wait = self._last + PACE_S - time.monotonic()
        if wait > 0:
            _wait(wait)
        self._last = time.monotonic()

    def _keep_raw(self, response: Any) -> None:
        method = response.url.rsplit("/", 1)[-1]
        if method.startswith("List") and "application/json" in response.headers.get("Content-Type", ""):
            self.raw[method] = response.json()


def _wait(seconds: float) -> None:
    time.sleep(seconds)


def _add_timeout(client: Any) -> None:
    """Give the SDK's session a timeout: it sends without one, and a stalled connection would hang forever."""
    from requests.adapters import HTTPAdapter

    class TimeoutAdapter(HTTPAdapter):
        def send(self, request: Any, **kwargs: Any) -> Any:
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = TIMEOUT_S
            return super().send(request, **kwargs)

    session = getattr(client.http_client(), "_session", None)
    if session is not None:
        for prefix in ("http://", "https://"):
            session.mount(prefix, TimeoutAdapter())


def _status(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)


def _retry_after(error: BaseException) -> float:
    response = getattr(error, "response", None)
    value = response.headers.get("Retry-After", "") if response is not None else ""
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0  # an HTTP date: the back-off decides


def _answer(error: BaseException) -> str:
    status = _status(error)
    if status is None:
        return f"no answer ({_reason(error)})"
    return f"HTTP {status}" + (f" ({RETRIED[status]})" if status in RETRIED else "")


def _reason(error: BaseException) -> str:
    """The innermost cause of a failed connection, e.g. 'Connection refused', 'Name or service not known'."""
    text = str(error)
    found = re.findall(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if found:
        return found[-1].strip()
    if "timed out" in text.lower():
        return "timed out"
    quoted = re.findall(r"'([^']{4,})'", text)  # e.g. RemoteDisconnected('Remote end closed connection ...')
    return quoted[-1] if quoted else type(error).__name__


def _message(error: BaseException) -> str:
    """Kaggle's own message: the SDK puts the JSON body's "message" in the exception's text."""
    text = " ".join(str(error).split())
    return text if text and not re.match(r"^\d{3} (Client|Server) Error", text) else ""


def failure_line(error: BaseException, what: str, credentials: Credentials | None = None, endpoint: str = "",
                 attempts: int = 1) -> str:
    """One line for a failed request for ``what``."""
    status = _status(error)
    where = f" at {endpoint}" if endpoint else ""
    tries = f" {attempts} times" if attempts > 1 else ""
    if status is None:
        return (f"cannot reach Kaggle's API{where} for {what}: {_reason(error)}{tries} "
                "(no network? files already downloaded are kept)")
    message = _message(error)
    said = f": {message}" if message else ""
    if status == 401:
        source = f" from {credentials.source}" if credentials else ""
        return f"Kaggle refused the credentials{source} (HTTP 401{said}) for {what}"
    if status == 429 or status >= 500:
        return (f"Kaggle's API answered {_answer(error)}{said}{tries} for {what}; giving up (try again later: "
                "files already downloaded are kept)")
    return f"Kaggle's API refused {what}: HTTP {status}{said}"
