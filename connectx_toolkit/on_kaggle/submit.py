"""Submit through the gate: ``connectx submit FILE -m MESSAGE [--baseline B] [--force]``.

The pre-upload gate (``evaluation.gate.run``) runs on FILE; only on PASS is FILE uploaded to the
``connectx`` competition (``--force`` uploads a file that failed, and says so). The upload is the
official client's own: ``kaggle`` 2.2.5's ``KaggleApi.competition_submit`` (start the upload, send the
file to the address Kaggle gives, create the submission), on a ``kagglesdk`` client built as
:mod:`connection` builds it, so that ``KAGGLE_API_ENVIRONMENT=TEST`` reaches the tests' local stand-in.
It is tried once: a submission is never created twice by a retry.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import asdict, dataclass
from typing import IO, Any

from connectx_toolkit.errors import UsageError
from connectx_toolkit.on_kaggle.connection import failure_line, new_client
from connectx_toolkit.on_kaggle.credentials import Credentials, find_credentials
from connectx_toolkit.on_kaggle.download import COMPETITION
from connectx_toolkit.on_kaggle.errors import KaggleError
from connectx_toolkit.outcomes import Verdict

__all__ = ["DEFAULT_BASELINE", "Submitted", "check_file", "submit", "upload"]

DEFAULT_BASELINE = "greedy"  # the project's one-ply agent: win now, else block, else the centre
KAGGLE_TAKES = (".py", ".tar.gz")


@dataclass(frozen=True)
class Submitted:
    """An upload Kaggle took: its submission id (None if its answer carried none) and Kaggle's message."""

    id: int | None
    file: str
    description: str
    kaggle_message: str
    url: str


def check_file(path: str) -> None:
    """KaggleError unless ``path`` is a file Kaggle takes as a ConnectX submission."""
    if not os.path.exists(path):
        raise KaggleError(f"--submit {path}: no such file")
    if not os.path.isfile(path):
        raise KaggleError(f"--submit {path}: not a file (build one first: connectx build {path})")
    if not path.endswith(KAGGLE_TAKES):
        raise KaggleError(f"--submit {path}: Kaggle takes a .py file or a .tar.gz bundle")


def upload(credentials: Credentials, path: str, description: str) -> Submitted:
    """Upload ``path`` to the connectx competition with the official client; KaggleError (one line) if it fails."""
    import requests
    from kagglesdk.kaggle_env import get_endpoint, get_env, get_web_endpoint

    with contextlib.redirect_stdout(sys.stderr):  # importing kaggle signs in and may print: keep stdout clean
        from kaggle.api.kaggle_api_extended import KaggleApi

    class Api(KaggleApi):
        def build_kaggle_client(self) -> Any:  # kagglesdk's environment, the credentials found here
            return new_client(credentials)

    what = f"the upload of {path} to {COMPETITION}"
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the client prints an upload's errors
            response = Api().competition_submit(path, description, COMPETITION, quiet=True)
    except requests.RequestException as error:
        raise KaggleError(failure_line(error, what, credentials, get_endpoint(get_env()))) from None
    if response.message == KaggleApi.COMPETITION_SUBMIT_UPLOAD_FAILED_MESSAGE:
        raise KaggleError(f"{what} failed: the upload address Kaggle gave did not take the file")
    number = str(response.ref or "")  # an int64: a JSON string in proto3 JSON, passed on as sent
    return Submitted(int(number) if number.isdigit() and int(number) else None, path, description, response.message,
                     f"{get_web_endpoint(get_env())}/competitions/{COMPETITION}/submissions")


def submit(settings: Any, path: str, description: str | None, force: bool, out: IO[str], as_json: bool,
           progress: bool = True) -> int:
    """Gate (``settings``: a ``GateSettings`` whose candidate is ``path``), then upload on PASS (or with
    ``force``), writing the running commentary and the outcome (or one JSON object) to ``out`` (``progress``: a
bar of the gate's games on stderr). Returns 0
    uploaded, 1 the gate failed (not uploaded); raises ``UsageError`` or ``KaggleError`` (one line) for bad
    input or a failed upload."""
    from connectx_toolkit.evaluation.gate import render_verdict, run as run_gate

    description = (description or "").strip()
    if not description:
        raise UsageError("--submit needs -m MESSAGE (the submission's description on Kaggle)")
    check_file(path)
    credentials = find_credentials()  # before minutes of games, not after
    log = None if as_json else (lambda line: print(line, file=out, flush=True))
    report = run_gate(settings, log, progress=progress)
    passed = report["verdict"] == Verdict.PASS
    if not as_json:
        out.write(render_verdict(report) + "\n")
    rebuild = next((check["needs_its_modules"] for check in report["checks"] if check.get("needs_its_modules")), None)
    if rebuild:  # uploaded alone it cannot load on Kaggle, whatever --force says
        _finish(out, as_json, report, None, forced=False,
                text=f"not uploaded, even with --force: {path} imports modules of its own, which Kaggle would not "
                     f"have; build it first: {rebuild}")
        return 1
    if not passed and not force:
        _finish(out, as_json, report, None, forced=False,
                text="not uploaded: the gate failed (--force uploads anyway)")
        return 1
    if not as_json:
        out.write(f"{'the gate FAILED; uploading anyway (--force)' if not passed else 'uploading'} {path} to "
                  f"Kaggle's {COMPETITION} competition...\n")
        out.flush()
    submitted = upload(credentials, path, description)
    number = f"submission {submitted.id}" if submitted.id else "a submission (Kaggle's answer gave no id)"
    text = (f"submitted {path} as {number} ({description!r}); Kaggle: {submitted.kaggle_message or 'ok'}\n"
            f"  see it: {submitted.url}")
    if submitted.id:
        text += f"\n  its ladder games, once played: connectx ladder {submitted.id}"
    _finish(out, as_json, report, submitted, forced=not passed, text=text)
    return 0


def _finish(out: IO[str], as_json: bool, report: dict[str, Any], submitted: Submitted | None, forced: bool,
            text: str) -> None:
    if as_json:
        out.write(json.dumps({"gate": report, "uploaded": submitted is not None, "forced": forced,
                              "submission": asdict(submitted) if submitted else None}) + "\n")
    else:
        out.write(text + "\n")
    out.flush()
