"""Kaggle credentials, found where Kaggle's official client (``kaggle`` 2.2.5) looks for them, in its order.

1. An access token: ``KAGGLE_API_TOKEN`` (the token, or the path of a file holding it), else
   ``~/.kaggle/access_token`` (``kagglesdk.get_access_token_from_env``, the client's own lookup).
2. A legacy API key: ``kaggle.json`` (``{"username": ..., "key": ...}``) in ``KAGGLE_CONFIG_DIR``, else
   ``~/.kaggle``, else ``$XDG_CONFIG_HOME/kaggle``; ``KAGGLE_USERNAME`` and ``KAGGLE_KEY`` override its
   fields, as the client's ``read_config_environment`` does.
3. The OAuth credentials ``kaggle auth login`` saves (``~/.kaggle/credentials.json``); the access token
   is taken (and refreshed when stale) by ``kagglesdk.KaggleCredentials`` when the client is built.

Nothing is sent anywhere here: a missing credential is found before any request.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

from connectx_toolkit.on_kaggle.errors import KaggleError

__all__ = ["Credentials", "config_file", "find_credentials"]

OAUTH_FILE = "~/.kaggle/credentials.json"  # kagglesdk.KaggleCredentials.DEFAULT_CREDENTIALS_FILE
HOW_TO = ("create an API token at https://www.kaggle.com/settings/api and export KAGGLE_API_TOKEN=..., or save "
          "~/.kaggle/kaggle.json, or set KAGGLE_USERNAME and KAGGLE_KEY")


@dataclass(frozen=True)
class Credentials:
    """What to authenticate with; ``source`` names where it came from, for messages."""

    source: str
    token: str | None = None
    username: str | None = None
    key: str | None = None
    oauth_file: str | None = None  # the saved OAuth credentials (the token comes from them)


def config_file() -> str:
    """The official client's ``kaggle.json``: its config folder as ``KaggleApi.config_dir`` finds it."""
    folder = os.environ.get("KAGGLE_CONFIG_DIR") or ""
    if not folder:
        folder = os.path.join(os.path.expanduser("~"), ".kaggle")
        if sys.platform.startswith("linux") and not os.path.exists(folder):
            folder = os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config"),
                                  "kaggle")
    return os.path.join(folder, "kaggle.json")


def find_credentials() -> Credentials:
    """The credentials the official client would use; KaggleError (one line) when there are none."""
    from kagglesdk import get_access_token_from_env

    token, source = get_access_token_from_env()
    if token:
        return Credentials(source="KAGGLE_API_TOKEN" if source == "KAGGLE_API_TOKEN" else f"~/.kaggle/{source}",
                           token=token)
    path = config_file()
    values, problem = _read_key_file(path)
    sources = [_home_relative(path)] if values else []
    for field in ("username", "key"):
        given = os.environ.get(f"KAGGLE_{field.upper()}")
        if given:
            values[field] = given
            sources.append(f"KAGGLE_{field.upper()}")
    if values.get("username") and values.get("key"):
        return Credentials(source=" and ".join(dict.fromkeys(sources)), username=values["username"], key=values["key"])
    oauth = os.path.expanduser(OAUTH_FILE)
    if _has_refresh_token(oauth):
        return Credentials(source=f"{OAUTH_FILE} (kaggle auth login)", oauth_file=oauth)
    if problem:
        raise KaggleError(f"no Kaggle credentials: {problem}; {HOW_TO}")
    if values:
        missing = [f for f in ("username", "key") if not values.get(f)]
        verb = "gives" if len(sources) == 1 else "give"
        raise KaggleError(f"no Kaggle credentials: {' and '.join(sources)} {verb} no {' or '.join(missing)}; {HOW_TO}")
    raise KaggleError(f"no Kaggle credentials found (KAGGLE_API_TOKEN, ~/.kaggle/access_token, "
                      f"{_home_relative(path)}, KAGGLE_USERNAME/KAGGLE_KEY, {OAUTH_FILE}): {HOW_TO}")


def _read_key_file(path: str) -> tuple[dict[str, str], str | None]:
    """The fields of a ``kaggle.json`` (empty when absent) and why it cannot be used, if it cannot."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        return {}, f"cannot read {_home_relative(path)}: {error.strerror}"
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}, f"{_home_relative(path)} is not JSON"
    if not isinstance(data, dict):
        return {}, f"{_home_relative(path)} is not a JSON object"
    return {k: str(data[k]) for k in ("username", "key") if data.get(k)}, None


def _has_refresh_token(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as handle:
            return bool(json.load(handle).get("refresh_token"))
    except (OSError, ValueError, AttributeError):
        return False


def _home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home and path.startswith(home + os.sep) else path
