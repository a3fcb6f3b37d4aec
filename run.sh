#!/usr/bin/env bash
# One entry point on a fresh machine with Python 3.11: sets up .venv (once), then runs a job.
#   bash run.sh            build + validate the default submission (the main job)
#   bash run.sh test       the test suite
#   bash run.sh <cmd...>   any command inside the environment, e.g. bash run.sh python evaluate.py greedy random
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setting up .venv (one time, about a minute)..." >&2
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e . >&2  # the checkout (pyproject.toml)
  echo "$want" > "$stamp"
fi
export PATH="$PWD/.venv/bin:$PATH"
case "${1:-build}" in
  build) shift || true; exec python build_submission.py "$@" ;;
  test) shift; exec python -m pytest "$@" ;;
  *) exec "$@" ;;
esac
