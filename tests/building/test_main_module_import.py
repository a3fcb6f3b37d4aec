"""``import __main__`` (the running program's module: torch imports it, and so do agents that look for the
notebook's globals) works in Kaggle's agent process as in any Python. It is not in ``sys.stdlib_module_names``,
and ``importlib.util.find_spec("__main__")`` raises in a process run from ``-c``: the builder took it for a
package Kaggle lacks, and, in the clean interpreter, died with ``ValueError: __main__.__spec__ is None``."""

import subprocess
import sys

from kaggle_environments.agent import get_last_callable
from kaggle_environments.utils import Struct

from connectx_toolkit import build

AGENT = '''import __main__


def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
'''


def test_kaggles_loader_takes_a_file_that_imports_main():
    agent = get_last_callable(AGENT)
    assert agent(Struct(board=[0] * 42, mark=1), Struct(columns=7)) == 0


def test_it_builds_and_plays(tmp_path):
    (tmp_path / "bot.py").write_text(AGENT)
    report = build(str(tmp_path / "bot.py"), tmp_path / "submission.py")
    assert report.validation["ok"] and (tmp_path / "submission.py").exists()


def test_a_builder_run_from_stdin_builds_it_too(tmp_path):
    """A process whose ``__main__`` has no spec (``python -c``, a kernel, stdin) asks the same question."""
    (tmp_path / "bot.py").write_text(AGENT)
    code = (f"from connectx_toolkit.cli import build_submission as b; "
            f"raise SystemExit(b.main([{str(tmp_path / 'bot.py')!r}, '-o', {str(tmp_path / 'out.py')!r}]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
