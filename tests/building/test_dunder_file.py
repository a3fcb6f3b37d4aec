"""``__file__`` in an agent from outside the project, judged as Kaggle judges it.

Kaggle's loader executes the file's text (``exec(code, {})``): there is no ``__file__``. Read at load and not
caught, it is the loader's NameError and Kaggle refuses the agent: the build refuses it at the agent's own
line. Caught, branched around, or read only in a function the agent calls inside a catch-all (a public torch
agent's shape: ``get_agent()`` finds its weights beside ``__file__``, called in ``agent``'s ``try/except
Exception``), Kaggle plays it: the build notes it, and the validation, evaluation and the gate's load, smoke and validation
checks pass it.
"""

from __future__ import annotations

import ast
import json
import os
import textwrap
from pathlib import Path

import pytest

from connectx_toolkit.building.data import OUTSIDE_WAY_OUT, OWN_WAY_OUT, own_path_uses, way_out
from connectx_toolkit.building.sources import ROOT, Module
from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.cli import evaluate as evaluate_cli
from tests.helpers import gate_first_checks

# The public agent's shape, standard library only: __file__ read in a function whose NameError the entry's
# catch-all swallows on the first move; the engine it had already made plays the later ones.
LIKE_PUBLIC = '''\
import os

_engine = None


class Engine:
    def __init__(self):
        self.weights = None

    def move(self, board, columns):
        return [c for c in range(columns) if board[c] == 0][0]


def get_engine():
    global _engine
    if _engine is None:
        _engine = Engine()
        base_path = os.path.dirname(os.path.abspath(__file__))
        for path in (os.path.join(base_path, "weights.bin"), "/kaggle_simulations/agent/weights.bin"):
            try:
                with open(path, "rb") as handle:
                    _engine.weights = handle.read()
                break
            except:
                continue
    return _engine


def agent(observation, configuration):
    try:
        return get_engine().move(observation.board, configuration.columns)
    except Exception:
        return [c for c in range(configuration.columns) if observation.board[c] == 0][0]
'''
LIKE_PUBLIC_LINE = 18

AT_LOAD = '''\
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def agent(observation, configuration):
    return [c for c in range(configuration.columns) if observation.board[c] == 0][0]
'''


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    assert not str(tmp_path).startswith(ROOT)
    (tmp_path / "like_public.py").write_text(LIKE_PUBLIC)
    (tmp_path / "at_load.py").write_text(AT_LOAD)
    return tmp_path


def kaggle_statuses(path: Path) -> list[list[str]]:
    """Kaggle's own verdict: ``env.run`` as each seat and against itself (not debug: errors are recorded)."""
    from kaggle_environments import make

    verdicts = []
    for pair in ([str(path), "random"], ["random", str(path)], [str(path), str(path)]):
        env = make("connectx")
        env.run(pair)
        verdicts.append([state.status for state in env.steps[-1]])
    return verdicts


def test_kaggle_plays_the_guarded_shape_and_fails_the_one_read_at_load(agents):
    assert all("ERROR" not in statuses and "INVALID" not in statuses for statuses in kaggle_statuses(agents / "like_public.py"))
    assert kaggle_statuses(agents / "at_load.py")[0][0] == "ERROR"  # Invalid raw Python: NameError at load


def uses(source: str) -> list[tuple[int, bool, str]]:
    return [(use.line, use.guarded, use.function) for use in own_path_uses(ast.parse(textwrap.dedent(source)))]


@pytest.mark.parametrize("handler", ["except:", "except Exception:", "except BaseException:", "except NameError:",
                                     "except (OSError, NameError):", "except builtins.NameError as error:"])
def test_a_handler_catching_name_error_guards_the_try_body(handler):
    assert uses(f"try:\n    HERE = __file__\n{handler}\n    HERE = '.'\n") == [(2, True, "")]


@pytest.mark.parametrize("handler", ["except OSError:", "except (ImportError, KeyError):", "except AttributeError:"])
def test_a_handler_missing_name_error_does_not(handler):
    assert uses(f"try:\n    HERE = __file__\n{handler}\n    HERE = '.'\n") == [(2, False, "")]


def test_what_runs_where_and_what_guards_it():
    assert uses("""
        try:
            pass
        except Exception:
            HERE = __file__
        if os.path.isdir("/kaggle_simulations/agent"):
            BASE = "/kaggle_simulations/agent"
        else:
            BASE = os.path.dirname(__file__)
        BASE = __file__ if "__file__" in globals() else "."

        def load(path=__file__):
            return os.path.join(os.path.dirname(__file__), path)

        if __name__ == "__main__":
            print(__file__)
    """) == [(5, False, ""), (9, True, ""), (10, True, ""), (12, False, ""), (13, False, "load")]


def build_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = builder.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_guarded_shape_builds_with_a_note_at_its_own_line(agents, capsys):
    out = agents / "submission.py"
    code, printed, err = build_cli(capsys, str(agents / "like_public.py"), "-o", str(out))
    assert code == 0, err
    assert out.exists() and "passed" in printed
    notes = [line.strip() for line in printed.splitlines() if line.strip().startswith("note")]
    assert notes == [f"note      {agents}/like_public.py:{LIKE_PUBLIC_LINE}: `__file__` in get_engine() raises NameError on "
                     f"Kaggle when it runs (a submission has no file of its own); {OUTSIDE_WAY_OUT}"]


def test_a_read_at_load_is_refused_at_its_own_line_with_the_advice_that_works_outside(agents, capsys):
    out = agents / "submission.py"
    code, printed, err = build_cli(capsys, str(agents / "at_load.py"), "-o", str(out))
    assert (code, printed) == (2, "") and not out.exists()
    assert err == (f"build_submission.py: error: {agents}/at_load.py:3: `__file__` in module at_load: a submission has "
                   f"no file of its own (Kaggle's loader raises NameError at load); ship the file in a bundle "
                   f"(-o submission.tar.gz) and open it at /kaggle_simulations/agent/NAME\n")
    assert "load_resource" not in err


def test_load_resource_is_the_advice_only_for_the_projects_own_agents(agents):
    assert way_out(Module("agents.x", os.path.join(ROOT, "agents", "x.py"), False, "")) == OWN_WAY_OUT
    assert way_out(Module("at_load", str(agents / "at_load.py"), False, "")) == OUTSIDE_WAY_OUT


def run_evaluate(capfd, *arguments: str) -> tuple[int, dict]:
    """``evaluate.py --json ...``: the command's ``main`` in this process (it has imported Kaggle's environment
    already), in the current folder."""
    capfd.readouterr()
    code = evaluate_cli.main(["--json", "--workers", "2", *arguments])
    out, err = capfd.readouterr()
    return code, json.loads(out) if out.strip() else {"stderr": err}


def test_the_guarded_shape_evaluates_without_errors_and_passes_the_gate(agents, capfd, monkeypatch):
    # The gate's load, smoke and validation checks: its strength checks play the file as its smoke games do
    # (loaded afresh each game, as on Kaggle), and test_gate.py has a whole gate PASS a file.
    monkeypatch.chdir(agents)  # the agent named as a user beside it names it
    code, report = run_evaluate(capfd, "like_public.py", "random", "-n", "4")
    assert code == 0, report
    candidate = report["agents"][0]
    assert (candidate["name"], candidate["errors"], candidate["invalid"], candidate["timeouts"]) == ("like_public.py", 0, 0, 0)
    checks = gate_first_checks("like_public.py")
    assert [check.passed for check in checks] == [True, True, True], [check.reasons for check in checks]
