#!/usr/bin/env bash
# One entry point on a fresh machine with Python 3.11: sets up .venv in the repository (once), then runs a job
# in the folder you call it from, so relative paths are yours: bash ~/connectx/run.sh connectx match ./my_bot.py random
#   bash run.sh            build + validate the default submission into ./submissions/submission.py (the main job)
#   bash run.sh test       the repository's test suite (adds the test and development packages first)
#   bash run.sh <cmd...>   any command inside the environment, e.g. bash run.sh connectx match greedy random
#                          (the console script connectx is on the PATH, with its old names connectx-evaluate,
#                          connectx-build and connectx-train; python evaluate.py and python build_submission.py
#                          are found in the repository when not in your folder)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")" && pwd)"
VENV="$ROOT/.venv"
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
# --no-warn-conflicts: kaggle-environments is installed without the dependencies it declares (see
# requirements-kaggle.txt), so every later install would list them all as missing.
pip_install() { "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-warn-conflicts "$@" >&2; }

# set_up NAME FILES... : (re)install when the files changed since the last set-up, and say how long it took.
set_up() {
  local name=$1; shift
  local stamp="$VENV/.$name.sha256" want
  want=$(cd "$ROOT" && cat "$@" | sha256sum | cut -d' ' -f1)
  [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  local started=$SECONDS
  echo "setting up .venv: $name packages..." >&2
  (
    cd "$ROOT"
    if [ "$name" = main ]; then
      rm -f "$VENV"/.*.sha256
      if [ -L "$VENV" ]; then  # a link to an environment this checkout shares: install on top, never wipe it
        "$PYTHON" -m venv "$VENV"
      else  # a fresh environment: nothing left from older requirements
        "$PYTHON" -m venv --clear "$VENV"
      fi
      pip_install --upgrade pip
      pip_install -r requirements.txt
      pip_install --no-deps -r requirements-kaggle.txt  # the referee without the other games' stacks
      pip_install --no-deps -e .  # the checkout (pyproject.toml): its packages and console scripts
    else
      pip_install -r requirements-dev.txt
    fi
  )
  echo "$want" > "$stamp"
  echo "set up .venv ($name) in $((SECONDS - started)) s; .venv is now $(du -sm "$VENV/" | cut -f1) MB" >&2
}

set_up main requirements.txt requirements-kaggle.txt pyproject.toml
export PATH="$VENV/bin:$PATH"
# A script of the repository named on the command line (python evaluate.py ...) is found there when the
# caller's folder has no file of that name.
if [ "${1:-}" = python ] && [ $# -ge 2 ] && [ ! -e "$2" ] && [ -f "$ROOT/$2" ]; then
  set -- python "$ROOT/$2" "${@:3}"
fi
case "${1:-build}" in
  build) shift || true; exec python "$ROOT/build_submission.py" "$@" ;;
  # The suite writes bytecode (an environment may say not to): without it every test worker and each of the
  # hundreds of agent processes the tests start compiles the package's sources again (docs/testing.md).
  test) shift; set_up dev requirements-dev.txt; cd "$ROOT"; unset PYTHONDONTWRITEBYTECODE; exec python -m pytest "$@" ;;
  *) exec "$@" ;;
esac
