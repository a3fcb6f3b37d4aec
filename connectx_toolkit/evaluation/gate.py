"""The pre-upload gate: is CANDIDATE safe to submit and not weaker than BASELINE?

    connectx gate submissions/submission.py --baseline greedy [--json] [-n 100]

Checks, in order; the gate stops at the first check that fails (a cheap failure is reported in seconds,
and strength means nothing for an agent that cannot play a legal game in time):

1. load        CANDIDATE loads like a Kaggle submission (a file through Kaggle's own loader, in a clean
               room: ``python -I`` in an empty folder, the project off the path, as the builder checks).
2. smoke       one game pair against ``random`` from the empty board, one game in each seat, every answer of
               CANDIDATE played, as in every Kaggle episode, on Kaggle's clock: each move may
               take the act timeout, the excess drawn from an overage bank that starts full every game
               (Kaggle loads the file inside move 1, so the load is paid there too); every move must be
               legal (a numpy integer, a float, a raised exception all forfeit the game).
3. validation  Kaggle's validation episode: CANDIDATE against itself from the empty board with Kaggle's
               limits (``--act-timeout``, ``--overage``), refereed by kaggle_environments' own
               ``Environment`` whatever ``--referee`` says; both seats must end DONE. Then the one
               projection: a game that fills the board, priced ply by ply from what CANDIDATE's moves cost
               at each ply of these games (the self-play episode is a long one; ``bank.full_game_need``),
               must not need more than the bank: a spender that keeps spending to its last move loses on
               time in Kaggle's long games, so it fails here, with the figures; one that thinks long in the
               opening and gets cheap as columns fill does not.
4. baseline    up to ``-n`` games (pairs over the opening suite ``--openings``, Kaggle's clock) against BASELINE with
               a game-pair SPRT of H0: Elo = ELO0 against H1: Elo = ELO1 (default -50 and 0, ``--sprt``
               overrides; ``--alpha``/``--beta`` default 0.05; ``evaluation.reports.stats``' GSPRT; it may
               stop from 20 games on). FAIL when it accepts H0 (weaker); PASS when it
               accepts H1; still undecided after ``-n`` games: FAIL only when the 95 % interval of
               CANDIDATE's pair score lies entirely below 1/2 (significantly weaker).
5. builtins    CANDIDATE and BASELINE each play the same games (same openings, seats and seeds) against
               ``random`` and ``negamax`` (``max(4, n/20)`` games each, rounded to pairs). FAIL when,
               against either built-in, CANDIDATE scores significantly less than BASELINE: the 95 %
               interval of the per-game score differences lies entirely below 0.

Load, smoke and validation judge as Kaggle judges: every game from the empty board with CANDIDATE's own answers.
The strength checks (4, 5) start their games from the opening suite, where diversity matters: each seat is called
at its opening plies and the opening's column is played instead of its answer (``referees.native``).

Checks 2-5 play on Kaggle's clock and no other (``--act-timeout``, default 2 s, and ``--overage``, default
60 s, a bank per game: ``evaluation.referees.bank``). In every game of checks 2 to 5 any invalid move, error or
timeout of CANDIDATE is a FAIL, and so is a move it answered with None (Kaggle plays column 0 for it: a bug
that happens to be legal); one exception: a forfeit in a strength check's game whose forced opening had played
another column than CANDIDATE's own answer (``GameRecord.forfeited_under_forced_opening``: no Kaggle episode
can be that game; an agent keeping its own moves in globals, an MCTS tree, may assume its answer was played) is
one ``WARN`` line, never a FAIL, and those games (in the baseline check, their pairs) are left out of the scores,
unless it repeats: the position is first asked again as Kaggle could ask it (``runner.ask_again``: a fresh
process, the game's own positions from the call after its last overridden answer), and a forfeit that repeats
there (the same error at the same file:line) is the agent's own, a FAIL like any other, at its line.
Risks Kaggle tolerates never change the verdict: they are ``WARN`` lines under the checks and ``"warnings"`` in
``--json`` (the most bank one game spent, the slowest move, the load time, the file size, the peak memory;
``risk_figures``).
Exit 0 PASS, 1 FAIL, 2 bad input. ``--json`` prints exactly one JSON object on stdout. ``--replays DIR``
saves an HTML replay of every game CANDIDATE lost or forfeited under ``DIR/<check>/``. From Python:
``connectx_toolkit.run_gate(CANDIDATE, BASELINE, ...)`` returns the ``--json`` report (``run``, below it,
the plain dict; ``run_checks`` the checks in order once the candidate has loaded or not).
"""

from __future__ import annotations

import math
import os
import shlex
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.bank import FullGameNeed, full_game_need, move_shares, ply_profile
from connectx_toolkit.evaluation.referees.played import KAGGLE, Status
from connectx_toolkit.evaluation.settings import (
    DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_GAMES, PlaySettings, UsageError, check_games, check_sprt,
)
from connectx_toolkit.evaluation.referees.record import DRAW, ERROR, FORFEITS, INVALID, TIMEOUT, WIN
from connectx_toolkit.evaluation.reports.stats import Z95
from connectx_toolkit.evaluation.reports.summary import told_how_to_ship
from connectx_toolkit.outcomes import Verdict
from connectx_toolkit.evaluation.seats.agent_kinds import BUILT, BUNDLE, FILE, LOADED_FROM_FILE

DEFAULT_SPRT = (-50.0, 0.0)
MIN_SPRT_GAMES = 20  # no verdict from a handful of pairs, whatever their LLR
BUILTINS = ("random", "negamax")
# Risks, warned about above these (the verdict never depends on them)
BANK_WARN_SHARE = 0.5  # of the bank spent in one game
SLOWEST_WARN_SHARE = 0.5  # of what the clock allowed the move (act timeout + the bank left): a machine twice as slow loses it
LOAD_WARN_SECONDS = 1.0
SIZE_WARN_BYTES = 5_000_000  # participants report uploads much over 5-10 MB failing (as the builder warns)
MEMORY_WARN_MB = 1024  # Kaggle publishes no memory limit for agents: half of the evaluator's default cap


GateUsage = UsageError  # bad input for the gate (the name the Python API has always exported)


@dataclass(frozen=True)
class GateSettings(PlaySettings):
    """What the gate is asked to check: ``evaluate.py --gate CANDIDATE --baseline BASELINE`` and its options.

    Every field is the command-line option of the same name (``sprt``: ``--sprt ELO0 ELO1``, default
    ``DEFAULT_SPRT``), with the same default; how the games are played is :class:`PlaySettings`.
    ``candidate`` and ``baseline`` are anything ``evaluate.py`` takes as an agent.
    """

    candidate: str
    baseline: str
    games: int = DEFAULT_GAMES
    sprt: tuple[float, float] = DEFAULT_SPRT
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA

    def __post_init__(self) -> None:
        """The gate's rules on top of :class:`PlaySettings`'; raises ``GateUsage``."""
        super().__post_init__()
        check_games(self.games)
        check_sprt(self.sprt, self.alpha, self.beta)


@dataclass
class Check:
    name: str
    passed: bool | None = None  # None: not run
    detail: str = ""
    reasons: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail, **self.data}


@dataclass
class GateContext:
    """What every check needs: the settings, the resolved agents and the board."""

    settings: GateSettings
    candidate: Any
    baseline: Any
    config: Config
    played: int = 0
    check: str = ""  # the check being run: replays go to a subdirectory of that name
    load_s: float | None = None  # the clean room's load time of a candidate file
    size_bytes: int | None = None  # of what would be uploaded (a file or a bundle)
    seats: list[tuple[str, int, Any]] = field(default_factory=list)  # (check, candidate's index, record) per game seat
    forced_forfeits: list[tuple[str, Any]] = field(default_factory=list)  # (check, record): forfeits under a forced opening
    # a forfeit under a forced opening asked again (``runner.ask_again``), once per kind and place of error
    asked: dict[tuple[Any, str | None], Any] = field(default_factory=dict)
    full_game_s: float | None = None  # the bank a full board needs, as the validation check judged it
    progress: Any = None  # a bar (tqdm's interface) counting every game played
    warnings: list[str] = field(default_factory=list)  # WARN lines of the checks handed in (``extra_checks``)

    def observe(self, records: Sequence[Any], indices: Sequence[int] = (0,)) -> None:
        """Keep the candidate's games (``indices``: which of each record's agents is the candidate) for the
        bank projection and the risk figures."""
        self.seats += [(self.check, index, record) for record in records for index in indices]

    def match(self, spec_a: Any, spec_b: Any, games: Any, *, overage: float | None = None,
              stop: Callable[[list], bool] | None = None, replay: Callable[[Any], bool] = lambda record: True,
              referee: str | None = None) -> list:
        """Games of A against B (A is agent 0 of every record); with ``--replays`` the games A did not win
        or draw (among those ``replay`` selects) are saved."""
        from connectx_toolkit.evaluation.scheduling.match import run_match

        settings = self.settings

        def on_game(record: Any) -> None:
            self.played += 1
            if self.progress is not None:
                self.progress.update(1)
            if settings.replays and replay(record) and record.outcome_of(0) not in (WIN, DRAW):
                from connectx_toolkit.evaluation.reports.replays import save_replay

                save_replay(record, os.path.join(settings.replays, self.check))

        played_as = replace(settings, overage=settings.overage if overage is None else overage,
                            referee=referee or settings.referee)
        return run_match(spec_a, spec_b, games, played_as, on_game=on_game, stop=stop)

    def asked_again(self, record: Any, index: int) -> Any:
        """The candidate's forfeit under a forced opening in ``record`` (it is the match's agent ``index``) asked
        again as Kaggle could ask it (``runner.ask_again``): once per kind of forfeit and place of its error
        (file:line and exception), since the same bug at the same line is one question."""
        from connectx_toolkit.evaluation.scheduling.runner import ask_again, error_site

        outcome = record.outcome_of(index)
        key = (outcome, error_site(record.error_of(index)) if outcome == ERROR else None)
        if key not in self.asked:
            self.asked[key] = ask_again(record, index, self.candidate, sandbox=self.settings.sandbox,
                                        memory_mb=self.settings.memory_mb)
        return self.asked[key]


ExtraCheck = tuple[str, Callable[["GateContext", Check], None], int]  # (name, runner, games it plays at most)


def run(settings: GateSettings, log: Callable[[str], None] | None = None, progress: bool = False,
        extra_checks: Sequence[ExtraCheck] = ()) -> dict[str, Any]:
    """The gate's report (``verdict``, ``reasons``, ``checks`` ..., ``elapsed_s``): what ``--json`` prints.

    ``log`` receives each line of the running commentary; ``progress`` shows a bar of the games played
    (``evaluation.reports.progress``), named after the check being run. ``extra_checks`` run after the
    built-in checks, in order, as they do: a check of a room above the evaluator (the accuracy check of
    ``measuring.gate_check``), handed in by the command or the API that was asked for it. Raises ``GateUsage``
    (one line) for bad input; a candidate that fails to load is a FAIL, not bad input.
    """
    from connectx_toolkit.evaluation.reports.progress import end_early, progress_bar

    context, load = prepare(settings)
    started = time.monotonic()
    if context is not None and progress:
        context.progress = progress_bar(most_games(settings) + sum(games for _, _, games in extra_checks),
                                        unit="game", desc="gate")
    try:
        report = run_checks(context, load, log=log, settings=settings, extra_checks=extra_checks)
        end_early(context.progress if context else None)  # the SPRT or a failed check may stop before the most
    finally:
        if context is not None and context.progress is not None:
            context.progress.close()
    report["elapsed_s"] = round(time.monotonic() - started, 1)
    return report


def most_games(settings: GateSettings) -> int:
    """The games the gate plays when no check stops it early: smoke, validation, baseline, built-ins."""
    return 2 + 1 + settings.games + 2 * len(BUILTINS) * builtin_games(settings.games)


def prepare(settings: GateSettings) -> tuple[GateContext | None, Check]:
    """Resolve both agents (the settings checked their own fields when they were made); a candidate that
    fails to load is a FAIL, not bad input."""
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    config = settings.config
    try:
        baseline = resolve_agent(settings.baseline, sandbox=settings.sandbox, paths=tuple(settings.path))
    except AgentSpecError as error:
        raise GateUsage(f"baseline: {error}") from None
    load = Check("load")
    try:
        candidate = resolve_agent(settings.candidate, sandbox=settings.sandbox, paths=tuple(settings.path))
    except AgentSpecError as error:
        named = settings.candidate.rpartition(":")[0] or settings.candidate  # FILE:FUNCTION names a file too
        if not os.path.exists(named):
            raise GateUsage(f"candidate: {error}") from None
        load.passed, load.detail = False, str(error)
        load.reasons.append(f"load: {error}")
        return None, load
    if candidate.kind in (FILE, BUILT) and settings.candidate.endswith(".py") and os.path.isfile(settings.candidate):
        # The file itself is what would be uploaded, even where the evaluator runs it built (its own modules
        # inlined): it must load on Kaggle as it is.
        from connectx_toolkit.evaluation.seats.clean_room import clean_room_load

        problem, load_s = clean_room_load(os.path.abspath(settings.candidate), sandbox=settings.sandbox)
        if problem:
            rebuild = build_command(settings.candidate, settings.path)
            load.passed, load.detail = False, f"{settings.candidate}: {problem}"
            if candidate.kind == BUILT:  # it imports modules of its own: beside it here, not on Kaggle
                load.data["needs_its_modules"] = rebuild  # --submit never uploads it, even with --force
                from connectx_toolkit.building.modules import file_cannot_upload_alone

                why = file_cannot_upload_alone(settings.candidate)  # a relative import: Kaggle's reason, said
                load.reasons.append(
                    f"load: {settings.candidate} needs modules of its own ({why or problem}), which Kaggle does not have "
                    f"when it is uploaded alone (clean room: python -I, alone in an empty folder, no project): upload what "
                    f"`{rebuild}` writes, which inlines them")
            else:
                load.reasons.append(f"load: {settings.candidate} cannot be loaded as a Kaggle submission "
                                    f"(clean room: python -I, alone in an empty folder, no project): {problem}; "
                                    f"upload what `{rebuild}` writes instead")
            return None, load
    else:
        load_s = candidate.load_s if candidate.kind == BUNDLE else None  # its main.py at /kaggle_simulations/agent
    load.passed = True
    load.detail = f"{candidate.kind} {settings.candidate}" + (
        " (loaded by Kaggle's loader in a clean room)" if candidate.kind == FILE else
        " (loaded as Kaggle loads a submission)" if candidate.kind == BUILT else
        " (a Kaggle bundle, unpacked at /kaggle_simulations/agent)" if candidate.kind == BUNDLE else "")
    if load_s is not None:
        load.detail += f" in {load_s:.3f} s"
        load.data["load_s"] = round(load_s, 4)
    if candidate.note:
        load.detail += f"; {candidate.note}"
        load.data["note"] = candidate.note
    _check_suite(settings.openings, config, settings.seed)
    return GateContext(settings, candidate, baseline, config, load_s=load_s, size_bytes=upload_size(settings.candidate,
                                                                                                    candidate)), load


def build_command(candidate: str, paths: Any = ()) -> str:
    """The command that builds ``candidate`` into one uploadable file, with the import roots the run used."""
    return " ".join(["connectx build", shlex.quote(candidate),
                     *(f"--path {shlex.quote(path)}" for path in paths or ()), "-o submission.py"])


def _check_suite(openings: str | None, config: Config, seed: int) -> None:
    from connectx_toolkit.evaluation.scheduling.openings import OpeningError, load_suite

    try:
        load_suite(openings, config, seed)
    except OpeningError as error:
        raise GateUsage(str(error)) from None


def run_checks(context: GateContext | None, load: Check, log: Callable[[str], None] | None = None,
               settings: GateSettings | None = None, extra_checks: Sequence[ExtraCheck] = ()) -> dict[str, Any]:
    """Every check in order, ``extra_checks`` last; returns the report (``verdict``, ``reasons``, ``checks`` ...).
    Without a context (the candidate failed to load) the header names the agents as ``settings`` gives them."""
    checks = [load, Check("smoke"), Check("validation"), Check("baseline"), Check("builtins"),
              *(Check(name) for name, _, _ in extra_checks)]
    runners = {"smoke": check_smoke, "validation": check_validation, "baseline": check_baseline,
               "builtins": check_builtins, **{name: runner for name, runner, _ in extra_checks}}
    settings = context.settings if context else settings
    names = ((context.candidate.name, context.baseline.name) if context
             else (settings.candidate, settings.baseline) if settings else (None, None))
    config = context.config.as_dict() if context else settings.config.as_dict() if settings else None
    if log and names[0] is not None and settings is not None and config is not None:
        log(_header(names[0], names[1], settings.act_timeout, config))
    if log:
        log(_line(load.to_json()))
    stop = not load.passed
    for check in checks[1:]:
        if stop or context is None:  # no context only where the load failed
            check.detail = "not run (an earlier check failed)"
        else:
            started = time.monotonic()
            context.check = check.name
            if context.progress is not None:
                context.progress.set_description(f"gate: {check.name}")
            runners[check.name](context, check)
            check.data["seconds"] = round(time.monotonic() - started, 1)
            stop = not check.passed
        if log:
            log(_line(check.to_json()))
    reasons = [reason for check in checks for reason in check.reasons]
    figures, warnings = risk(context) if context else ({}, [])
    warnings = [*forced_opening_warnings(context), *context.warnings, *warnings] if context else warnings
    if log and figures:
        log(_risk_line(figures))
    if log:
        for warning in warnings:
            log(f"  WARN        {warning}")
    return {
        "verdict": Verdict.PASS if not reasons else Verdict.FAIL,
        "reasons": reasons,
        "warnings": warnings,
        "risk_figures": figures,
        "candidate": names[0],
        "baseline": names[1],
        "act_timeout": settings.act_timeout if settings else None,
        "config": config,
        "games": context.played if context else 0,
        "checks": [check.to_json() for check in checks],
    }


def upload_size(argument: str, candidate: Any) -> int | None:
    """Bytes of what would be uploaded: the candidate ``.py`` or ``.tar.gz`` as given; a bundle folder (or a
    notebook run as one) as the .tar.gz its files, as the evaluator unpacked them, pack to; anything else
    built (a folder, FILE:FUNCTION, a notebook) as the file the builder writes of it."""
    given = os.path.isfile(argument) and argument.endswith((".py", ".tar.gz"))
    if candidate.kind == BUNDLE and not given and candidate.folder and os.path.isdir(candidate.folder):
        from connectx_toolkit.building.bundle import packed_size

        return packed_size(candidate.folder)
    if candidate.kind == BUILT and not given and os.path.isfile(candidate.target):
        return os.path.getsize(candidate.target)
    if candidate.kind in LOADED_FROM_FILE and os.path.isfile(argument):
        return os.path.getsize(argument)
    return None


def risk(context: GateContext) -> tuple[dict[str, Any], list[str]]:
    """The risk figures of the candidate's games (``risk_figures`` in ``--json``) and a warning for each one
    past its threshold. None of them changes the verdict: Kaggle tolerates them all."""
    settings = context.settings
    act, bank = settings.act_timeout, settings.overage
    figures: dict[str, Any] = {}
    warnings: list[str] = []
    if context.seats:
        spent = [(record.bank_used_of(index), check, record) for check, index, record in context.seats]
        most, check, record = max(spent, key=lambda item: item[0])
        figures["max_bank_used_s"] = round(most, 3)
        figures["max_bank_used_share"] = round(most / bank, 4) if bank else None
        if bank and most > BANK_WARN_SHARE * bank:
            warnings.append(f"one game spent {most:.1f} s of the {bank:g} s bank ({most / bank:.0%}; {check} game "
                            f"{record.game_id}): a machine slower than this one may run out")
        slowest, tightest = 0.0, (0.0, 0.0, "", None)  # (share of what the clock allowed, seconds, check, record)
        for check, index, record in context.seats:
            for seconds, share in move_shares(record.times_of(index), act, bank):
                slowest = max(slowest, seconds)
                if share > tightest[0]:
                    tightest = (share, seconds, check, record)
        figures["max_move_s"] = round(slowest, 4)
        figures["tightest_move_share"] = round(tightest[0], 4)
        profile = ply_profile(((record.seats[index], record.times_of(index)) for _, index, record in context.seats), act)
        need = full_game_need(profile, context.config.rows, context.config.columns).seconds
        figures["full_game_bank_s"] = round(need, 3)
        judged = context.full_game_s is not None and context.full_game_s > bank  # the validation check FAILed it
        if bank and BANK_WARN_SHARE * bank < need and not judged:
            warnings.append(f"a game that fills the board would need {need:.1f} s of the {bank:g} s bank ({need / bank:.0%}; "
                            f"priced ply by ply from what its moves cost in all its games): "
                            + ("a machine slower than this one may run out" if need <= bank else
                               "its long games on Kaggle may run out"))
        if tightest[0] > SLOWEST_WARN_SHARE and tightest[3] is not None:
            warnings.append(f"a move took {tightest[1]:.1f} s, {tightest[0]:.0%} of what the clock allowed it (act "
                            f"timeout + the bank left; {tightest[2]} game {tightest[3].game_id}): a machine half as "
                            f"fast would time out")
        peaks = [peak for _, index, record in context.seats if (peak := record.peak_memory_of(index)) is not None]
        if peaks:
            figures["peak_memory_mb"] = max(peaks)
            if max(peaks) > MEMORY_WARN_MB:
                warnings.append(f"its process peaked at {max(peaks):,.0f} MB of memory (warned above "
                                f"{MEMORY_WARN_MB:,} MB; Kaggle publishes no limit)")
    if context.load_s is not None:
        figures["load_s"] = round(context.load_s, 4)
        if context.load_s > LOAD_WARN_SECONDS:
            warnings.append(f"loading takes {context.load_s:.2f} s (Kaggle loads the file inside move 1 and pays "
                            f"it from the bank; warned above {LOAD_WARN_SECONDS:g} s)")
    if context.size_bytes is not None:
        figures["size_bytes"] = context.size_bytes
        if context.size_bytes > SIZE_WARN_BYTES:
            warnings.append(f"the upload is {context.size_bytes / 1e6:.1f} MB: uploads much over 5-10 MB have "
                            f"been reported to fail")
    return figures, warnings


def _risk_line(figures: dict[str, Any]) -> str:
    parts = []
    if "max_bank_used_s" in figures:
        share = figures["max_bank_used_share"]
        parts.append(f"most bank one game spent {figures['max_bank_used_s']:.1f} s"
                     + (f" ({share:.0%})" if share is not None else ""))
        parts.append(f"slowest move {figures['max_move_s']:.2f} s")
        parts.append(f"a full board {figures['full_game_bank_s']:.1f} s")
    if "load_s" in figures:
        parts.append(f"load {figures['load_s']:.3f} s")
    if "size_bytes" in figures:
        parts.append(f"size {figures['size_bytes']:,} bytes")
    if "peak_memory_mb" in figures:
        parts.append(f"peak memory {figures['peak_memory_mb']:.0f} MB")
    return f"  {'risk':<11} {'--':<5} " + "; ".join(parts)


def check_smoke(context: GateContext, check: Check) -> None:
    """One game in each seat against ``random`` from the empty board, every answer played, as Kaggle plays: an
    agent that keeps its own moves in globals (an MCTS tree) meets only positions its answers led to."""
    from connectx_toolkit.evaluation.scheduling.match import schedule
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

    settings = context.settings
    records = context.match(context.candidate, resolve_agent("random"),
                            schedule(context.candidate, resolve_agent("random"), 2, [[]], settings))
    context.observe(records)
    _forfeits(records, check, "smoke (vs random)")
    slowest = _slowest(records)
    check.passed = not check.reasons
    check.data = {"games": len(records), "max_move_s": slowest, "max_bank_used_s": _most_bank(records)}
    check.detail = (f"{len(records)} games vs random from the empty board on Kaggle's clock ({settings.act_timeout:g} s a move, "
                    f"{settings.overage:g} s bank a game): "
                    + (f"no forfeit, slowest move {slowest:.3f} s" if check.passed else "failed"))


def _full_game(context: GateContext, check: Check) -> FullGameNeed:
    """The one projection that fails: priced ply by ply from what the candidate's moves cost at each ply of the
    games it has played (``bank.ply_profile``: the smoke games and the self-play episode, a long game), a game that
    fills the board would draw more than the bank. A few long moves, or a long opening that gets cheap as columns
    fill, stay within it as they do on Kaggle; a seat that keeps spending to its last move does not."""
    settings, config = context.settings, context.config
    profile = ply_profile(((record.seats[index], record.times_of(index)) for _, index, record in context.seats),
                          settings.act_timeout)
    need = full_game_need(profile, config.rows, config.columns)
    context.full_game_s = need.seconds
    if need.seconds > settings.overage:
        check.reasons.append(
            f"a full {config.rows}x{config.columns} game needs {_seconds(need.seconds)} s of the {settings.overage:g} s "
            f"bank: the {'first' if need.seat == 0 else 'second'} seat's {need.moves} moves, each priced at what its "
            f"moves cost at that ply in these games ({len(profile)} plies reached)"
            + (f"; the {need.past} past the last ply reached at {_seconds(need.tail_s)} s each, what its last moves "
               f"cost" if need.past else "") + f" (act timeout {settings.act_timeout:g} s): Kaggle times it out in its long games")
    return need


def check_validation(context: GateContext, check: Check) -> None:
    from connectx_toolkit.evaluation.referees.record import GameTask

    shape = tuple(context.config.as_dict().items())
    task = GameTask(0, context.candidate, context.candidate, False, (), shape, context.settings.act_timeout,
                    context.settings.overage, context.settings.seed)
    # Kaggle's own Environment referees the validation episode, whatever --referee says
    (record,) = context.match(context.candidate, context.candidate, [task], overage=context.settings.overage,
                              referee=KAGGLE)
    context.observe([record], (0, 1))
    check.passed = record.statuses == [Status.DONE, Status.DONE]
    _forfeits([record], check, "validation episode", forfeits=False)
    check.passed = check.passed and not check.reasons
    check.data = {"statuses": record.statuses, "moves": len(record.moves), "max_move_s": _slowest([record])}
    statuses = [str(status) for status in record.statuses]  # the text as the JSON spells them: ['DONE', 'DONE']
    check.detail = (f"candidate vs itself from the empty board, overage {context.settings.overage:g} s: "
                    f"statuses {statuses}, {len(record.moves)} moves")
    if not check.passed:
        note = f" ({record.note})" if record.note else ""
        # what the agent raised, at its own line: the statuses alone do not say what to fix
        errors = [f"player {seat + 1}: {error}" for seat, error in enumerate(record.error or []) if error]
        said = f": {'; '.join(errors)}" if errors else ""
        check.reasons.append(f"validation episode: Kaggle would mark the submission as Error: statuses "
                             f"{statuses}{said}{note}")
        return
    need = _full_game(context, check)  # the self-play episode is the long game the projection needs
    check.passed = not check.reasons
    check.data["full_game_bank_s"] = round(need.seconds, 3)
    check.detail += f"; a full board would need {_seconds(need.seconds)} s of bank"


def check_baseline(context: GateContext, check: Check) -> None:
    from connectx_toolkit.evaluation.reports import stats
    from connectx_toolkit.evaluation.reports.summary import pair_counts, score_model

    settings = context.settings
    elo0, elo1 = settings.sprt

    def decided(records: list) -> bool:
        scored = _scored_pairs(records)
        return len(scored) >= MIN_SPRT_GAMES and sprt_result(scored).verdict is not None

    def sprt_result(records: list) -> stats.SprtResult:
        return stats.sprt(stats.PAIR_SCORES, pair_counts(records), elo0, elo1, settings.alpha, settings.beta)

    records = context.match(context.candidate, context.baseline, settings.games, stop=decided)
    context.observe(records)
    forced = _forfeits(records, check, "vs baseline", context=context)
    context.forced_forfeits += [("baseline", record) for record in forced]
    all_records, records = records, _scored_pairs(records, forced)  # the scores leave out the pairs of those games
    result = sprt_result(records)
    model, score = score_model(records)
    elo = stats.elo_interval(score)
    baseline_forfeits = sum(1 for r in all_records if r.outcome_of(1) in FORFEITS)
    verdict = {"H1": "accepts H1 (not weaker)", "H0": "accepts H0 (weaker)", None: "undecided"}[result.verdict]
    check.data = {
        "games": len(all_records), "score": round(score.value, 4), "score_ci": [round(score.low, 4), round(score.high, 4)],
        "score_model": model, "elo": _finite(elo.value), "elo_ci": [_finite(elo.low), _finite(elo.high)],
        "sprt": {"elo0": elo0, "elo1": elo1, "alpha": settings.alpha, "beta": settings.beta,
                 "llr": round(result.llr, 3), "lower": round(result.lower, 3), "upper": round(result.upper, 3),
                 "verdict": result.verdict},
        "baseline_forfeits": baseline_forfeits, "max_move_s": _slowest(all_records),
        "forced_opening_forfeits": len(forced), "scored_games": len(records),
    }
    left_out = (f" ({len(all_records) - len(records)} of {len(all_records)} left out: forfeits under a forced opening "
                f"and their pairs)") if forced else ""
    check.detail = (f"{len(records)} games{left_out}: score {score.value:.3f} [{score.low:.3f}, {score.high:.3f}], "
                    f"Elo {_elo_text(elo.value)} [{_elo_text(elo.low)}, {_elo_text(elo.high)}]; "
                    f"SPRT({elo0:g}, {elo1:g}) {verdict}, LLR {result.llr:.2f} in [{result.lower:.2f}, {result.upper:.2f}]")
    if result.verdict == "H0":
        check.reasons.append(f"weaker than the baseline: SPRT accepts Elo <= {elo0:g} after {len(records)} games "
                             f"(score {score.value:.3f})")
    elif result.verdict is None and score.high < 0.5:
        check.reasons.append(f"weaker than the baseline: score {score.value:.3f}, 95 % interval "
                             f"[{score.low:.3f}, {score.high:.3f}] entirely below 0.5 after {len(records)} games")
    if baseline_forfeits:
        check.detail += f"; note: the baseline forfeited {baseline_forfeits} games"
    check.passed = not check.reasons


def check_builtins(context: GateContext, check: Check) -> None:
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import match_suite, schedule
    from connectx_toolkit.evaluation.referees.record import score_of

    settings = context.settings
    games = builtin_games(settings.games)
    suite = match_suite(settings, games)
    # All four matches share one schedule (same openings, seats and seeds, so candidate and baseline are
    # compared game by game) and one worker pool: game ids are offset per match, seeds stay the same.
    matches = [(agent, name) for name in BUILTINS for agent in (context.candidate, context.baseline)]
    tasks = []
    for index, (agent, name) in enumerate(matches):
        for task in schedule(agent, resolve_agent(name), games, suite, settings):
            tasks.append(replace(task, game_id=index * games + task.game_id))
    candidate_games = {task.game_id for task in tasks if task.spec_a is context.candidate}
    records = context.match(context.candidate, context.candidate, tasks,
                            replay=lambda record: record.game_id in candidate_games)
    context.observe([record for record in records if record.game_id in candidate_games])
    by_match: list[dict[int, Any]] = [{} for _ in matches]
    for record in records:
        by_match[record.game_id // games][record.game_id % games] = record
    parts = []
    for number, name in enumerate(BUILTINS):
        mine, theirs = by_match[2 * number], by_match[2 * number + 1]
        forced = _forfeits(list(mine.values()), check, f"vs {name}", context=context)
        context.forced_forfeits += [("builtins", record) for record in forced]
        # the same games of both, those whose forfeit under a forced opening was excused left out
        scored = [i for i in mine if i in theirs and all(mine[i] is not record for record in forced)]
        differences = [score_of(mine[i].outcome_of(0)) - score_of(theirs[i].outcome_of(0)) for i in scored]
        low, high = paired_interval(differences)
        own = sum(score_of(mine[i].outcome_of(0)) for i in scored) / max(1, len(scored))
        base = sum(score_of(theirs[i].outcome_of(0)) for i in scored) / max(1, len(scored))
        check.data[name] = {"games": len(mine), "score": round(own, 4), "baseline_score": round(base, 4),
                            "difference_ci": [round(low, 4), round(high, 4)], "max_move_s": _slowest(list(mine.values())),
                            "forced_opening_forfeits": len(forced), "scored_games": len(scored)}
        parts.append(f"vs {name} {own:.2f} (baseline {base:.2f})" if scored else
                     f"vs {name}: none scored (forfeits under a forced opening)")
        if high < 0:
            check.reasons.append(f"worse than the baseline against {name}: score {own:.3f} vs {base:.3f} on the "
                                 f"same {len(scored)} games, difference interval [{low:.3f}, {high:.3f}] below 0")
    check.passed = not check.reasons
    check.detail = f"{games} games each: " + "; ".join(parts)


def builtin_games(games: int) -> int:
    """Games per built-in for each agent: a twentieth of ``-n``, at least 4, always whole pairs."""
    count = max(4, games // 20)
    return count + count % 2


def paired_interval(differences: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """95 % normal interval of the mean of paired differences; (0, 0) without data."""
    n = len(differences)
    if n == 0:
        return 0.0, 0.0
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(variance / n)
    return mean - half, mean + half


def render_report(report: dict[str, Any]) -> str:
    """Everything ``evaluate.py --gate`` prints, from the report: the commentary, then the verdict."""
    lines = []
    if report["candidate"] is not None:
        lines.append(_header(report["candidate"], report["baseline"], report["act_timeout"], report["config"]))
    lines += [_line(check) for check in report["checks"]]
    if report["risk_figures"]:
        lines.append(_risk_line(report["risk_figures"]))
    lines += [f"  WARN        {warning}" for warning in report["warnings"]]
    return "\n".join([*lines, render_verdict(report)])


def render_verdict(report: dict[str, Any]) -> str:
    if report["verdict"] == Verdict.PASS:
        return f"PASS ({report['games']} games, {report.get('elapsed_s', 0):g} s)"
    return "FAIL\n" + "\n".join(f"  - {reason}" for reason in report["reasons"])


def _scored_pairs(records: Sequence[Any], excused: Sequence[Any] | None = None) -> list:
    """The baseline check's records without the pairs (games 2p and 2p + 1) in which the candidate's forfeit was
    excused (``excused``; by default every forfeit under a forced opening, as the match's SPRT stops on them before
    any is asked again): a pair scores both seats of one opening, so both games go."""
    voided = {record.game_id // 2 for record in records
              if (record.forfeited_under_forced_opening(0) if excused is None else any(record is r for r in excused))}
    return [record for record in records if record.game_id // 2 not in voided]


def forced_opening_warnings(context: GateContext) -> list[str]:
    """The one ``WARN`` line for the candidate's excused forfeits under a forced opening in the strength checks (see
    ``GameRecord.forfeited_under_forced_opening`` and ``_excused``), with its first such error, or none."""
    if not context.forced_forfeits:
        return []
    check, first = context.forced_forfeits[0]
    seat = first.seats[0]
    error = first.error[seat] if first.error and first.error[seat] else first.note or str(first.outcome_of(0))
    count = len(context.forced_forfeits)
    return [f"strength checks: {count} game{'s' if count != 1 else ''} forfeited only under a forced opening, after the "
            f"opening had played another column than its own answer ({error}; first in {check} game {first.game_id}): "
            f"asked again in a fresh process from its first call after the last overridden answer, it did not forfeit "
            f"there; Kaggle's games start from the empty board and play every answer, as the smoke and validation games "
            f"did, cleanly; an agent that keeps its own moves in globals may assume its answer was played. Left out "
            f"of the scores; not a failure (--openings 0 plays the strength checks from the empty board too)"]


def _excused(context: GateContext, records: Sequence[Any]) -> tuple[list, dict[int, Any]]:
    """The candidate's forfeits under a forced opening among ``records``, split: those excused (the forfeit did not
    repeat when the position was asked again as Kaggle could ask it, ``runner.ask_again``), and those it repeated
    (by ``id`` of the record, what the replay gave): the agent's own, whatever the opening
    (``GateContext.asked_again``)."""
    excused, own = [], {}
    for record in records:
        if not record.forfeited_under_forced_opening(0):
            continue
        asked = context.asked_again(record, 0)
        if asked.repeated:
            own[id(record)] = asked
        else:
            excused.append(record)
    return excused, own


def _forfeits(records: Sequence[Any], check: Check, where: str, forfeits: bool = True,
              context: GateContext | None = None) -> list:
    """Add a reason for every kind of forfeit the candidate (agent 0) committed, and for a None it returned.
    With ``context``, a strength check's games: its forfeits under a forced opening that do not repeat when asked
    again are returned (for one warning) instead of failing it (``_excused``); one that repeats fails it as the
    agent's own."""
    forced, own = _excused(context, records) if context is not None else ([], {})
    total, records = len(records), [r for r in records if all(r is not other for other in forced)]
    for record in records:
        plies = record.none_plies[record.seats[0]] if record.none_plies else []
        if plies:
            check.reasons.append(f"{where}: returned None at ply {plies[0]}: Kaggle plays column 0; return an int "
                                 f"(game {record.game_id})")
            break
    for outcome in FORFEITS if forfeits else ():
        bad = [r for r in records if r.outcome_of(0) == outcome]
        if bad:
            example = next((r for r in bad if id(r) in own), bad[0])  # a repeated one says most
            seat = example.seats[0]
            error = example.error[seat] if example.error and example.error[seat] else ""
            error = told_how_to_ship(error, example.agents[seat]) if error else ""
            note = f": {error}" if error else f": {example.note}" if example.note else ""
            ply = example.opening_forfeit_ply(0)
            if id(example) in own:  # its answers had been overridden, and still
                asked = own[id(example)]
                note += (f" (in a game whose forced opening had overridden its answers; asked again in a fresh "
                         f"process, called from ply {asked.start} with the game's own positions, it forfeited the same "
                         f"way at ply {asked.ply}: its own {outcome}, whatever the opening)")
            elif ply is not None:  # a call Kaggle makes too: none of its answers had been overridden yet
                note += (f" (at ply {ply} of its {len(example.opening)}-ply opening, before any forced ply had "
                         f"overridden its answers: called with the real observation, as Kaggle would call it there)")
            what = {INVALID: "invalid move (e.g. a numpy integer, a float, a full column)",
                    ERROR: "error (an exception or a crashed process)",
                    TIMEOUT: "timeout (a move over the act timeout)"}[outcome]
            check.reasons.append(f"{where}: {len(bad)} of {total} games lost by {what}, "
                                 f"first in game {example.game_id}{note}")
    return forced


def _slowest(records: Sequence[Any]) -> float:
    return round(max((t for r in records for t in r.times_of(0)), default=0.0), 4)


def _seconds(value: float) -> str:
    """Seconds as a message shows them: ``63``, ``3.0``, ``0.15`` (two figures below one second)."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}" if value >= 1 else f"{value:.2g}"


def _most_bank(records: Sequence[Any]) -> float:
    return round(max((r.bank_used_of(0) for r in records), default=0.0), 3)


def _header(candidate: str, baseline: str, act_timeout: float, config: dict[str, int]) -> str:
    from connectx_toolkit.building.agent_names import resolved  # a folder given as . by its real name

    return (f"gate: {resolved(candidate)} against baseline {resolved(baseline)} (act timeout {act_timeout:g} s, "
            f"{config['rows']}x{config['columns']} in a row {config['inarow']})")


def _line(check: dict[str, Any]) -> str:
    """A check's line, from its report entry (``Check.to_json``)."""
    state = {True: "ok", False: "FAIL", None: "--"}[check["passed"]]
    took = f" ({check['seconds']:g} s)" if "seconds" in check else ""
    return f"  {check['name']:<11} {state:<5} {check['detail']}{took}"


def _finite(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def _elo_text(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")
