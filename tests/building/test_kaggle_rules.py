"""Kaggle's loading rules in one place (``building/kaggle_rules.py``): the builder's validation, the gate's
clean-room load check and the evaluator's load check tell a file's load failure in the same words, and the
module runs by path where the project cannot be imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from connectx_toolkit.building import kaggle_rules
from connectx_toolkit.building.validation import validate
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
from connectx_toolkit.evaluation.seats.clean_room import KAGGLE_RULES, clean_room_load

FILES = {
    # its own IndexError at load, which Kaggle's loader wraps like its own "no callable" IndexError
    "own_index_error.py": ("ROWS = []\nFIRST = ROWS[0]\n\n\ndef agent(obs, config):\n    return 3\n",
                           "own_index_error.py:2 in <module>: IndexError: list index out of range"),
    "library_error.py": ('import json\n\nTABLE = json.loads("")\n\n\ndef agent(obs, config):\n    return 3\n',
                         "library_error.py:3 in <module>: JSONDecodeError: Expecting value: line 1 column 1 (char 0) "
                         "(raised in json/decoder.py:355)"),
    "no_callable.py": ("BOARD = 42\n", kaggle_rules.NO_CALLABLE),
}


def evaluator_answer(path: str) -> str:
    with pytest.raises(AgentSpecError) as refused:
        resolve_agent(path)
    return str(refused.value)


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_three_load_checks_tell_a_failure_alike(tmp_path, name):
    text, expected = FILES[name]
    path = tmp_path / name
    path.write_text(text)
    if name == "no_callable.py":  # the evaluator reads the file's shape first, and says so before loading it
        assert f"{path} defines no callable" in evaluator_answer(str(path))
    else:
        assert evaluator_answer(str(path)).endswith(f"cannot be loaded as a Kaggle submission: {expected}")
    assert clean_room_load(str(path)) == (expected, None)
    # the validation loads the text as its own file, submission.py: the same words at that file's line
    reason = validate(text)["reason"]
    assert reason == "Kaggle's loader failed: " + expected.replace(name, "submission.py")


def test_the_rules_run_by_path_where_the_project_is_not_importable(tmp_path):
    agent = tmp_path / "bot.py"
    agent.write_text("import random\n\n\nclass Agent:\n    def __call__(self, obs, config):\n        return 3\n\n\n"
                     "play = Agent()\n")
    script = ("import importlib.util, sys\n"
              "spec = importlib.util.spec_from_file_location('rules', sys.argv[1])\n"
              "rules = importlib.util.module_from_spec(spec); sys.modules['rules'] = rules\n"
              "spec.loader.exec_module(rules)\n"
              "rules.forget_editable_installs()\n"
              "assert importlib.util.find_spec('connectx_toolkit') is None\n"
              "entry, seconds = rules.load_file(sys.argv[2])\n"
              "print(rules.describe_callable(entry), rules.call(entry, {'board': []}, {}))\n")
    done = subprocess.run([sys.executable, "-I", "-c", script, KAGGLE_RULES, str(agent)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "an object, an instance of Agent 3"


def test_last_callable_is_kaggles_rule():
    namespace: dict = {}
    exec("import math\nfrom functools import partial\n\ndef agent(obs, config):\n    return 0\n\n"
         "LIMIT = 3\nhelper = partial(max, 1)\n", namespace)
    assert kaggle_rules.last_callable(namespace) is namespace["helper"]  # not agent: the last callable bound
    assert kaggle_rules.last_callable({"a": 1}) is None
