"""bench/training_envs.py: every row measured (briefly)."""

from __future__ import annotations

import os

import pytest

from bench import training_envs


@pytest.fixture
def cores():
    """The bench pins its process to one core: the test's process gets its cores back."""
    before = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, before)


@pytest.mark.bench
def test_every_row_prints_a_rate(capsys, cores):
    assert training_envs.main(["--seconds", "0.2", "--sizes", "256"]) == 0
    out = capsys.readouterr().out
    print(out)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| env")]
    assert [(env.split()[0], opponent) for env, opponent, *_ in rows] == [
        ("course", "random"), ("course", "negamax"), ("pettingzoo", "random (both seats)"),
        ("training.self_play", "random (both seats)"), ("training.self_play", "random (both seats)"),
        ("training.single_env.ConnectXEnv", "random"), ("training.single_env.ConnectXEnv", "greedy"),
        ("training.batched.BatchedConnectX", "random"), ("training.batched.BatchedConnectX", "greedy"),
        ("training.batched.BatchedSelfPlay", "(caller, both seats)")]
    for env, _, _, rate, _ in rows:
        assert float(rate.replace(",", "")) > 0, (env, rate)


def test_bad_arguments_exit_2(capsys):
    assert training_envs.main(["--seconds", "0"]) == 2
    assert "must be positive" in capsys.readouterr().err
