"""``connectx train --learner ntuple --runs R``: the runs train side by side (local processes, or Ray tasks), the
most accurate by its last curve point (critical positions, then all) becomes OUT's agent, every run's curve is in
the table, the CSV and the PNG; Ctrl-C keeps every run's checkpoint; bad input is one line and exit 2."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("numba")

from connectx_toolkit.agents import ntuple as ntuple_agent  # noqa: E402
from connectx_toolkit.cli import main as connectx  # noqa: E402
from connectx_toolkit.cli import train_runs  # noqa: E402
from connectx_toolkit.cli.train_runs import RunReport  # noqa: E402
from connectx_toolkit.training import ntuple  # noqa: E402

WEIGHTS = os.path.join("data", "ntuple_6x7.npz")


def read(path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def train(out, *args: str) -> int:
    return connectx.main(["train", "--learner", "ntuple", "--quiet", "--out", str(out), *args])


def expected_choice(out, names: list[str]) -> str:
    """The rule written out again: the highest (critical, all) at the last curve point, the first on a tie."""
    best, key = "", (-1.0, -1.0)
    for name in names:
        last = ntuple.load(str(out / name)).curve[-1]
        if (last["critical"], last["all"]) > key:
            best, key = name, (last["critical"], last["all"])
    return best


def check_runs_folder(out, names: list[str], episodes: int) -> str:
    """OUT holds each run (its checkpoint at ``episodes``, its agent, its curve), the chosen run's agent, and every
    curve in learning_curves.csv; returns the chosen run's name."""
    chosen = expected_choice(out, names)
    for name in names:
        state = ntuple.load(str(out / name))
        assert state.episodes == episodes
        assert read(out / name / WEIGHTS) == ntuple.weights_bytes(state)  # each run's own agent, as trained
        assert (out / name / "learning_curve.csv").exists() and (out / name / "main.py").exists()
    assert read(out / WEIGHTS) == read(out / chosen / WEIGHTS)
    assert f"{chosen} of {len(names)} runs" in (out / "main.py").read_text().splitlines()[0]
    with open(out / "learning_curves.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for name in names:
        curve = ntuple.load(str(out / name)).curve
        mine = [row for row in rows if row["run"] == name]
        assert [(int(r["episodes"]), float(r["all"]), float(r["critical"])) for r in mine] == \
            [(p["episodes"], p["all"], p["critical"]) for p in curve]
    assert (out / "learning_curves.png").stat().st_size > 10_000
    return chosen


def test_two_runs_on_processes_keep_the_most_accurate_as_outs_agent(tmp_path, capsys):
    out = tmp_path / "runs"
    assert train(out, "--runs", "2", "--alpha", "0.3,0.6", "--episodes", "3000", "--curve-every", "1500") == 0
    chosen = check_runs_folder(out, ["run1", "run2"], 3000)
    settings = [ntuple.load(str(out / name)).settings for name in ("run1", "run2")]
    assert [(s["seed"], s["alpha"]) for s in settings] == [(1, 0.3), (2, 0.6)]
    printed = capsys.readouterr().out
    table = printed[printed.index("  run "):].splitlines()
    assert table[0].split()[:3] == ["run", "seed", "alpha"]  # the setting that varies is shown
    assert [line.split()[0] for line in table[1:3]] == ["run1", "run2"]
    assert next(line for line in table[1:3] if line.split()[1] == "*").split()[0] == chosen
    assert "critical positions, then on all" in printed
    manifest = json.loads((out / "runs.json").read_text())
    assert [run["name"] for run in manifest["runs"]] == ["run1", "run2"]


def test_with_average_outs_agent_is_the_mean_of_the_runs_tables(tmp_path, capsys):
    out = tmp_path / "runs"
    assert train(out, "--runs", "2", "--average", "--episodes", "3000", "--curve-every", "1500") == 0
    states = [ntuple.load(str(out / name)) for name in ("run1", "run2")]
    network = ntuple_agent.read_network(read(out / WEIGHTS))
    mean = ((states[0].weights + states[1].weights) / 2).astype(np.float16).astype(np.float32)
    tuples = network.tables.size  # the tuples' tables, then the threat tables
    assert np.array_equal(network.tables, mean[:tuples])
    assert network.threats is not None and np.array_equal(network.threats, mean[tuples:])
    assert network.threats.any()
    assert not np.array_equal(network.tables, states[0].weights[:tuples].astype(np.float16).astype(np.float32))
    assert [(r["name"], r["episodes"]) for r in network.training["averaged"]] == [("run1", 3000), ("run2", 3000)]
    printed = capsys.readouterr().out
    assert "* the mean of 2 runs' tables (run1, run2): accuracy" in printed
    assert "the mean of 2 runs' tables" in (out / "main.py").read_text().splitlines()[0]


def test_runs_laid_out_differently_cannot_be_averaged():
    one, two = ntuple.new_state(ntuple.NTupleSettings()), ntuple.new_state(ntuple.NTupleSettings(stages=2))
    with pytest.raises(ValueError, match="laid out differently"):
        ntuple.averaged_state([one, two])
    with pytest.raises(ValueError, match="laid out differently"):
        ntuple.averaged_state([one, ntuple.new_state(ntuple.NTupleSettings(threats=False))])


def report(name: str, *points: tuple[float, float], why: str = "episodes") -> RunReport:
    curve = [{"episodes": 1000 * i, "cpu_minutes": 0.1 * i, "all": a, "critical": c} for i, (a, c) in
             enumerate(points)]
    return RunReport(name, f"/x/{name}", why, curve=curve, weights=b"w" if curve else b"",
                     settings={"seed": int(name[-1]), "alpha": 0.5})


def test_the_most_accurate_is_by_the_last_point_critical_first_then_all_then_the_first():
    pick = train_runs.most_accurate
    # the last point counts, not the best one
    assert pick([report("run1", (0.9, 0.80), (0.9, 0.70)), report("run2", (0.9, 0.75))]).name == "run2"
    # critical before all
    assert pick([report("run1", (0.95, 0.80)), report("run2", (0.90, 0.81))]).name == "run2"
    # all breaks a tie on critical; a full tie keeps the first
    assert pick([report("run1", (0.90, 0.80)), report("run2", (0.91, 0.80))]).name == "run2"
    assert pick([report("run1", (0.90, 0.80)), report("run2", (0.90, 0.80))]).name == "run1"
    # a failed run or one without a point is never chosen
    assert pick([report("run1", (0.99, 0.99), why="failed"), report("run2", (0.5, 0.5))]).name == "run2"
    assert pick([report("run1")]) is None


def test_the_table_shows_the_settings_that_vary_and_marks_the_chosen_run():
    one, two = report("run1", (0.9, 0.8)), report("run2", (0.91, 0.81))
    two.settings["alpha"] = 0.3
    lines = train_runs.table([one, two], two)
    assert lines[0].split() == ["run", "seed", "alpha", "episodes", "CPU", "min", "all", "critical", "stopped"]
    assert lines[2].split()[:4] == ["run2", "*", "2", "0.3"]
    assert train_runs.combined_rows([one, two])[1] == {"run": "run2", "seed": 2, "alpha": 0.3, **two.curve[0]}


@pytest.mark.parametrize("args, message", [
    (["--runs", "0"], "--runs must be at least 1"),
    (["--runs", "3", "--alpha", "0.3,0.5"], "--alpha gives 2 values for 3 runs"),
    (["--alpha", "0.3,0.5"], "--alpha takes a list of values with --runs R"),
    (["--backend", "ray"], "--backend runs several runs (--runs R)"),
    (["--workers", "2"], "--workers runs several runs (--runs R)"),
    (["--average"], "--average writes the mean of several runs (--runs R)"),
    (["--runs", "2", "--untrained"], "--untrained writes one agent's starting weights: it takes no --runs"),
    (["--runs", "2", "--alpha", "0.3,x"], "'x' is not a number"),
    (["--runs", "2", "--alpha", "0.3,-1"], "n-tuple settings out of range: alpha"),
])
def test_bad_runs_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert connectx.main(["train", "--learner", "ntuple", "--out", "x", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "x").exists()


def test_without_ray_the_ray_backend_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as where it is not installed
    monkeypatch.delitem(sys.modules, "connectx_toolkit.evaluation.scheduling.ray_backend", raising=False)
    monkeypatch.chdir(tmp_path)
    assert connectx.main(["train", "--learner", "ntuple", "--runs", "2", "--backend", "ray", "--out", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install -r requirements-ray.txt" in err[0], err
    assert not (tmp_path / "x").exists()


def test_resuming_a_runs_folder_keeps_its_settings(tmp_path, capsys):
    out = tmp_path / "runs"
    out.mkdir()
    (out / "runs.json").write_text('{"runs": [{"name": "run1"}]}')
    assert connectx.main(["train", "--resume", str(out), "--episodes", "10"]) == 2
    assert "not a runs list written by connectx train --runs" in capsys.readouterr().err
    (out / "runs.json").write_text('{"runs": [{"name": "run1", "settings": {"seed": 1}}]}')
    assert connectx.main(["train", "--resume", str(out), "--seed", "3"]) == 2
    assert "its runs keep their settings; give no --seed" in capsys.readouterr().err


def checkpoint_episodes(folder) -> int:
    try:
        return ntuple.load(str(folder)).episodes
    except (FileNotFoundError, ValueError):
        return 0


def test_ctrl_c_to_the_command_alone_stops_every_run_and_keeps_its_checkpoint_to_resume_from(tmp_path):
    out = tmp_path / "runs"
    command = subprocess.Popen([sys.executable, "-m", "connectx_toolkit", "train", "--learner", "ntuple", "--quiet",
                                "--runs", "2", "--episodes", "100000000", "--checkpoint-minutes", "0",
                                "--curve-every", "100000000", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while (not all(checkpoint_episodes(out / name) for name in ("run1", "run2"))) and command.poll() is None:
            time.sleep(0.1)
        command.send_signal(signal.SIGINT)  # the command only, not its process group: it passes it on
        printed, errors = command.communicate(timeout=120)
    finally:
        if command.poll() is None:
            command.kill()
    assert command.returncode == 130, errors
    stopped = {name: checkpoint_episodes(out / name) for name in ("run1", "run2")}
    assert all(stopped.values())
    assert printed.count("interrupted") == 2
    assert read(out / WEIGHTS) in (read(out / "run1" / WEIGHTS), read(out / "run2" / WEIGHTS))
    for name, episodes in stopped.items():  # the run's agent is its checkpoint's
        assert read(out / name / WEIGHTS) == ntuple.weights_bytes(ntuple.load(str(out / name)))
        assert ntuple.load(str(out / name)).episodes == episodes


@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="Ray is optional: pip install -r requirements-ray.txt (CI installs it)")
def test_two_runs_on_a_local_ray_cluster_train_what_processes_train(tmp_path):
    import ray

    from connectx_toolkit.evaluation.scheduling import ray_backend

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": ray_backend.ROOT}})
    try:
        assert train(tmp_path / "ray", "--runs", "2", "--backend", "ray", "--episodes", "3000",
                     "--curve-every", "1500") == 0
    finally:
        ray.shutdown()
    chosen = check_runs_folder(tmp_path / "ray", ["run1", "run2"], 3000)
    assert train(tmp_path / "processes", "--runs", "2", "--episodes", "3000", "--curve-every", "1500") == 0
    for name in ("run1", "run2"):  # the same seeds, the same weights, wherever they trained
        assert read(tmp_path / "ray" / name / WEIGHTS) == read(tmp_path / "processes" / name / WEIGHTS)
    assert read(tmp_path / "ray" / WEIGHTS) == read(tmp_path / "processes" / chosen / WEIGHTS)


def fake_worker(order: train_runs.RunOrder) -> RunReport:
    """A run that crashes without a word, or reports a few MB of weights (more than a pipe holds)."""
    if order.name == "dies":
        os._exit(3)
    return RunReport(order.name, order.folder, "episodes", episodes=7, weights=b"w" * 5_000_000,
                     curve=[{"episodes": 7, "cpu_minutes": 0.0, "all": 0.9, "critical": 0.8}])


def test_local_processes_report_every_run_in_order_a_crash_as_failed_and_large_reports_whole():
    orders = [train_runs.RunOrder(name, f"/nowhere/{name}", None, 7, None) for name in ("big", "dies", "also")]
    reports = train_runs.run_on_processes(orders, fake_worker, workers=2)
    assert [r.name for r in reports] == ["big", "dies", "also"]
    assert [r.why for r in reports] == ["episodes", "failed", "episodes"]
    assert "exit code 3" in reports[1].error
    assert len(reports[0].weights) == len(reports[2].weights) == 5_000_000
    assert train_runs.most_accurate(reports) is reports[0]
