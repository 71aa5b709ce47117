"""The report's tables as data: each a title, columns, rows of formatted cells, and notes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from statistics import mean, stdev
from typing import Any

from asil.plugins import region_of, region_order
from asil.report.runs import Run, RunSet
from asil.report.viewer import read_trajectory
from asil.runner.summary import app_of
from asil.runner.trace import EpisodeResult

DASH = "–"
BUDGETS = (15, 50, 100)
AGENT_ENDINGS = ("done", "infeasible")


@dataclass
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}"


def num(value: float | None, digits: int = 1) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _mean(values: Sequence[float]) -> float | None:
    return mean(values) if values else None


Format = Callable[[float | None], str]


def spread(values: Sequence[float | None], fmt: Format) -> str:
    """One cell over a set's runs: the value of a lone run, else ``mean ± SD`` (sample SD) of the runs
    that have one; – when none has."""
    present = [v for v in values if v is not None]
    if not present:
        return DASH
    if len(present) == 1:
        return fmt(present[0])
    return f"{fmt(mean(present))} ± {fmt(stdev(present))}"


def spread_row(per_run: Sequence[Sequence[float | None]], formats: Sequence[Format]) -> list[str]:
    """Cells of one row: ``per_run[i][j]`` is run i's value in column j. Counts equal in every run (the
    number of tasks) are shown once."""
    cells = []
    for j, fmt in enumerate(formats):
        column = [values[j] for values in per_run]
        cells.append(fmt(column[0]) if fmt is count and len(set(column)) == 1 else spread(column, fmt))
    return cells


def count(value: float | None) -> str:
    return DASH if value is None else f"{value:g}" if value == int(value) else f"{value:.1f}"


def _rate(results: list[EpisodeResult]) -> float | None:
    return sum(r.success for r in results) / len(results) if results else None


def _groups(results: list[EpisodeResult], key: Callable[[EpisodeResult], str]) -> dict[str, list[EpisodeResult]]:
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for result in results:
        groups[key(result)].append(result)
    return dict(sorted(groups.items()))


# ----------------------------------------------------------------------------- (a) Table 1: regions
def region_table(sets: list[RunSet]) -> Table:
    """The ASIL paper's Table 1 layout: one row per run set, regions as columns (task counts in the heads), Overall.

    A cell is the strict success rate (mean score in parentheses) over the region's tasks in that run; a run
    whose region holds a different number of tasks than the head says so (n=...).
    """
    tasks: dict[str, set[str]] = defaultdict(set)
    for item in sets:
        for run in item.runs:
            for result in run.ordered:
                tasks[region_of(result.apps)].add(result.task_id)
    regions = region_order(set(tasks))
    total = len({task for members in tasks.values() for task in members})
    columns = ["run"] + [f"{region} ({len(tasks[region])})" for region in regions] + [f"Overall ({total})"]
    rows = []
    for item in sets:
        row = [item.label]
        for region, size in [(r, len(tasks[r])) for r in regions] + [(None, total)]:
            per_run = [[r for r in run.ordered if region is None or region_of(r.apps) == region] for run in item.runs]
            if not per_run[0]:
                row.append(DASH)
                continue
            cell = (f"{spread([_rate(g) for g in per_run], pct)} "
                    f"({spread([_mean([r.score for r in g]) for g in per_run], lambda v: num(v, 3))})")
            row.append(cell + (f" n={len(per_run[0])}" if len(per_run[0]) != size else ""))
        rows.append(row)
    notes = ["Cells: strict success rate in % (mean score in parentheses). Regions follow the ASIL paper's Table 1 "
             "and Appendix A: each app's record names its region; tasks over several apps are Multi-App; an app "
             "whose record names no region is under Other. Column heads count the distinct tasks of all runs shown; "
             "n=... marks a run with another number.", SPREAD_NOTE]
    return Table("regions", "Success by region (ASIL paper Table 1 layout)", columns, rows, notes)


# ----------------------------------------------------------------------------- hint effect
def hint_table(sets: list[RunSet]) -> Table | None:
    """Hint-on against hint-off runs of the same configuration, budget and tasks (the paper's hint effect)."""
    pairs: dict[tuple[str, int | None, frozenset[str]], dict[bool, RunSet]] = defaultdict(dict)
    for item in sets:
        pairs[(item.base_config_key, item.budget, frozenset(item.runs[0].results))][item.hints] = item
    rows = []
    for (config, _, members), arms in pairs.items():
        if len(arms) < 2:
            continue
        off, on = ([_rate(run.ordered) or 0.0 for run in arms[hints].runs] for hints in (False, True))
        passed = [sum(r.success for r in arms[hints].runs[0].ordered) for hints in (False, True)]
        rows.append([config + f" {arms[False].runs[0].budget_label}", count(len(members)), spread(off, pct),
                     spread(on, pct), f"{100 * (mean(on) - mean(off)):+.1f}", f"{passed[1]}/{len(members)} vs "
                     f"{passed[0]}/{len(members)}"])
    if not rows:
        return None
    notes = ["Hint on: the agent read the task's success hint, derived from its evaluator (asil bench --hints on); "
             "hint off is the default and the arm of every matched comparison. The difference is in points, "
             "between means over repeats; the last column counts strict successes (first repeat).", SPREAD_NOTE]
    return Table("hints", "Success-hint effect (hint on vs off)", ["configuration", "tasks", "SR hint off (%)",
                 "SR hint on (%)", "difference", "passed on vs off"], rows, notes)


# ----------------------------------------------------------------------------- success by app
def success_table(sets: list[RunSet], by: str) -> Table:
    """Success and mean score with counts, per app or per domain, for every run set."""
    key: Callable[[EpisodeResult], str] = app_of if by == "app" else (lambda r: r.domain or "-")
    rows = []
    for item in sets:
        names = list(_groups(item.runs[0].ordered, key)) + ["all"]
        for name in names:
            per_run = []
            for run in item.runs:
                group = [r for r in run.ordered if name == "all" or key(r) == name]
                per_run.append([len(group), sum(r.success for r in group), _rate(group),
                                _mean([r.score for r in group]), _mean([r.steps for r in group])])
            rows.append([item.label, name] + spread_row(per_run, (count, count, pct, lambda v: num(v, 3), num)))
    return Table(f"success-{by}", f"Success by {by}", ["run", by, "tasks", "success", "SR (%)", "mean score", "steps"],
                 rows, [SPREAD_NOTE])


SPREAD_NOTE = ("A run set of repeats (asil bench --repeats N, or runs with the same settings and tasks) shows "
               "mean ± SD over its runs (sample SD); a single run shows its value.")


# ----------------------------------------------------------------------------- (b) LocalLSTC Table 2
def _lstc(results: list[EpisodeResult]) -> list[dict[str, Any]]:
    return [r.metrics for r in results if "verification_class" in r.metrics]


BASE_CHANNELS = ("api", "bash")
CONTROL = "control"


def trace_channels(run: Run, result: EpisodeResult) -> dict[str, int]:
    """Actions per execution channel in the episode's trace; done / infeasible count as control."""
    counts: dict[str, int] = defaultdict(int)
    for line in read_trajectory(run.folder / result.task_id):
        action = line.get("action")
        if action is None:
            continue
        counts[CONTROL if action.get("action_type") in AGENT_ENDINGS else str(line.get("channel", "api"))] += 1
    return dict(counts)


def _shares(counts: dict[str, int], channels: Sequence[str]) -> list[float | None]:
    total = sum(counts.values())
    return [counts.get(c, 0) / total if total else None for c in channels]


def _runtime_values(run: Run, group: list[EpisodeResult], channels: Sequence[str]) -> list[float | None]:
    metrics = _lstc(group)
    shares = [_shares(trace_channels(run, r), channels) for r in group]
    values: list[float | None] = [len(group), _rate(group), _mean([r.steps for r in group])]
    if metrics:
        values += [_mean([m["subgoals"] for m in metrics]), _mean([m["actions_per_subgoal"] for m in metrics]),
                   _mean([m["actions_per_step"] for m in metrics])]
    else:
        values += [None] * 3
    values += [_mean([v for s in shares if (v := s[i]) is not None]) for i in range(len(channels))]
    if metrics:
        # episodes that never verified nor hit a cutoff (llm_error, timeout, ...) have no class
        classes = [c for m in metrics if (c := m.get("verification_class")) is not None]
        values += [_mean([m["context_refinements"] for m in metrics])]
        values += [classes.count(c) / len(classes) if classes else None for c in ("Pass", "Fail", "Bypass")]
    else:
        values += [None] * 4
    return values


def runtime_table(item: RunSet) -> Table:
    """Runtime behaviour by application and execution channel, in the layout of LocalLSTC's Table 2.

    Channel columns are API and Bash, then every other channel the traces used (GUI once it exists),
    then control; each is a share of the episode's actions, averaged over tasks.
    """
    seen = {c for run in item.runs for r in run.ordered for c in trace_channels(run, r)}
    channels = list(BASE_CHANNELS) + sorted(seen - set(BASE_CHANNELS) - {CONTROL}) + [CONTROL]
    columns = (["app", "tasks", "SR (%)", "steps", "subgoals/task", "actions/subgoal", "actions/step"]
               + [f"{'API' if c == 'api' else c.capitalize() if c != 'gui' else 'GUI'} (%)" for c in channels]
               + ["context refines", "Pass (%)", "Fail (%)", "Bypass (%)"])
    formats: list[Format] = [count, pct, num, num, num, num]
    formats += [pct] * len(channels) + [num, pct, pct, pct]
    rows = []
    for name in list(_groups(item.runs[0].ordered, app_of)) + ["all"]:
        per_run = [_runtime_values(run, [r for r in run.ordered if name == "all" or app_of(r) == name], channels)
                   for run in item.runs]
        rows.append([name] + spread_row(per_run, formats))
    seeds = ", ".join("–" if s is None else str(s) for s in item.seeds)
    notes = ["Per-task means by application (tasks with several apps under 'multi'). Channel columns are shares of "
             "the actions in each trace: API = ASIL semantic actions, Bash = the confined shell, a GUI column appears "
             "when a run used a GUI channel, control = done/infeasible. Pass / Fail / Bypass follow the paper's "
             "Table 2: Bypass for stall or step-budget cutoffs without an explicit INFEASIBLE; otherwise Fail if any "
             "Final Verification was rejected, else Pass. Shares are over the episodes that have a class: one "
             "that never verified and hit no cutoff (llm_error, agent_error, timeout) has none.",
             "– : the run's agent keeps no LocalLSTC metrics (oracle, react).",
             f"{len(item.runs)} run(s); seeds: {seeds}. " + SPREAD_NOTE]
    return Table(f"runtime-{item.label}", f"Runtime behaviour by app and channel — {item.label}", columns, rows, notes)


# ----------------------------------------------------------------------------- (c) LocalLSTC Table 4
# The LoopGuard logs stalls and loops in every configuration (its switch only decides whether they are
# acted on), so that event is always measured; the others exist only where their mechanism is on.
EVENTS = (("stall_repetition", "stall / repetition", ""), ("recovery", "recovery entry", "routing"),
          ("rejected_termination", "rejected termination", "final_verification"))


def _event_available(config: dict[str, Any], switch: str) -> bool:
    if not switch:
        return True
    if switch == "final_verification":
        return bool(config.get("final_verification", True) and config.get("routing", True))
    return bool(config.get(switch, True))


def _event_values(run: Run) -> list[float | None] | None:
    with_metrics = [r for r in run.ordered if "events" in r.metrics]
    if not with_metrics:
        return None
    config = with_metrics[0].metrics.get("config", {})
    values: list[float | None] = [len(with_metrics)]
    for event, _, switch in EVENTS:
        if not _event_available(config, switch):
            values += [None, None]
            continue
        entered = [r for r in with_metrics if r.metrics["events"]["entered"].get(event)]
        values += [len(entered) / len(with_metrics), _mean([r.score for r in entered])]
    return values


def events_table(sets: list[RunSet]) -> Table:
    """Rate of tasks entering each runtime event, and mean score conditional on entry (Table 4)."""
    columns = ["run", "tasks"] + [f"{label} {part}" for _, label, _ in EVENTS for part in ("rate (%)", "score (%)")]
    rows = []
    for item in sets:
        per_run = [values for run in item.runs if (values := _event_values(run)) is not None]
        if per_run:
            rows.append([item.label] + spread_row(per_run, [count] + [pct] * (2 * len(EVENTS))))
    notes = ["Rate: share of tasks that entered the event at least once; score: mean evaluator score over those "
             "tasks. – : the mechanism is switched off by an ablation, or no task entered the event.", SPREAD_NOTE]
    return Table("events", "Runtime-event diagnostics", columns, rows, notes)


# ----------------------------------------------------------------------------- (d) LocalLSTC Table 3
def _tokens(result: EpisodeResult) -> dict[str, int]:
    totals = result.metrics.get("tokens")
    return dict(totals) if isinstance(totals, dict) else dict(result.tokens)


def _resource_values(run: Run) -> list[float | None]:
    results = run.ordered
    tokens = [_tokens(r) for r in results]
    prompt = _mean([t.get("prompt", 0) / 1000 for t in tokens])
    completion = _mean([t.get("completion", 0) / 1000 for t in tokens])
    total = None if prompt is None or completion is None else prompt + completion
    return [len(results), _rate(results), total, prompt, completion, _mean([r.steps for r in results]),
            _mean([r.time_s for r in results])]


def resources_table(sets: list[RunSet]) -> Table:
    columns = ["run", "tasks", "SR (%)", "tokens (k)", "prompt (k)", "completion (k)", "steps", "time (s)"]
    rows = [[item.label] + spread_row([_resource_values(run) for run in item.runs], [count, pct] + [num] * 5)
            for item in sets]
    return Table("resources", "Tokens, steps and time per task", columns, rows,
                 ["Per-task means. Tokens are the model's prompt + completion tokens as the server reported them.",
                  SPREAD_NOTE])


# ----------------------------------------------------------------------------- budgets
def truncated_success(result: EpisodeResult, limit: int) -> bool:
    """Would the episode have succeeded with ``limit`` steps? Only if it ended successfully within them.

    The agent must have ended the episode itself (done / infeasible) by step ``limit`` and the final state
    must pass; an episode cut off by its own budget counts only when that budget is within the limit.
    """
    if not result.success or result.steps > limit:
        return False
    return result.termination in AGENT_ENDINGS or result.budget <= limit


Rates = dict[int, tuple[list[float], int] | None]  # K -> (SR of each repeat, tasks) or None


def budget_rates(sets: list[RunSet]) -> list[tuple[str, str, Rates]]:
    """(configuration, source, {K: (SR per repeat, tasks) or None}) rows: separate runs, then truncations."""
    by_config: dict[str, list[RunSet]] = defaultdict(list)
    for item in sets:
        by_config[item.config_key].append(item)
    rows: list[tuple[str, str, Rates]] = []
    for config, group in by_config.items():
        separate: Rates = {k: None for k in BUDGETS}
        for item in group:
            if item.budget in separate:
                separate[item.budget] = ([_rate(run.ordered) or 0.0 for run in item.runs], len(item.runs[0].results))
        if any(separate.values()):
            rows.append((config, "separate runs", separate))
        for item in group:
            if item.budget is None or item.budget <= BUDGETS[0]:
                continue  # nothing shorter to truncate to
            truncated: Rates = {
                k: ([sum(truncated_success(r, k) for r in run.ordered) / len(run.results) for run in item.runs],
                    len(item.runs[0].results)) if k <= item.budget else None for k in BUDGETS}
            source = f"truncated from the B{item.budget} run" + ("s" if len(item.runs) > 1 else "")
            rows.append((config, source, truncated))
    return rows


def budget_table(sets: list[RunSet]) -> Table:
    rows = [[config, source] + [DASH if cell is None else f"{spread(list(cell[0]), pct)} (n={cell[1]})"
                                for cell in rates.values()]
            for config, source, rates in budget_rates(sets)]
    notes = ["SR-K: success rate with a K-step budget. 'separate runs' come from runs made with --budget K. "
             "'truncated' rows re-score one longer run (as the ASIL paper's GUI / 15max row does): a task counts "
             "as a success at K only if its episode ended successfully within K steps — the agent said done "
             "(or infeasible, for infeasible tasks) at step K or earlier and the final state passed. Truncation "
             "cannot see a state that was right at step K but later broken, nor how an agent would have "
             "planned knowing the shorter budget, so it can differ from a separate run."]
    return Table("budgets", "Success by step budget (SR-15 / SR-50 / SR-100)", ["configuration", "source"] +
                 [f"SR-{k} (%)" for k in BUDGETS], rows, notes + [SPREAD_NOTE])


# ----------------------------------------------------------------------------- (e) comparison
def _comparison_metrics(run: Run) -> dict[str, float | None]:
    results = run.ordered
    tokens = [_tokens(r) for r in results]
    values: dict[str, float | None] = {
        "tasks": len(results),
        "SR (%)": 100 * sum(r.success for r in results) / len(results),
        "mean score": _mean([r.score for r in results]),
        "steps / task": _mean([r.steps for r in results]),
        "tokens (k) / task": _mean([(t.get("prompt", 0) + t.get("completion", 0)) / 1000 for t in tokens]),
        "time (s) / task": _mean([r.time_s for r in results]),
    }
    for app, group in _groups(results, app_of).items():
        values[f"SR {app} (%)"] = 100 * sum(r.success for r in group) / len(group)
    return values


def comparison_table(sets: list[RunSet]) -> Table:
    """Run sets side by side; every cell after the first set shows its difference (of means) from the first."""
    metrics = [[_comparison_metrics(run) for run in item.runs] for item in sets]
    names = list(dict.fromkeys(name for per_run in metrics for values in per_run for name in values))
    rows = []
    for name in names:
        means = [_mean([v for values in per_run if (v := values.get(name)) is not None]) for per_run in metrics]
        row = [name]
        for index, per_run in enumerate(metrics):
            cell = spread([values.get(name) for values in per_run], partial(_cell, name))
            value, base = means[index], means[0]
            if index and value is not None and base is not None:
                cell += f" ({'+' if value - base >= 0 else ''}{_fmt(name, value - base)})"
            row.append(cell)
        rows.append(row)
    return Table("comparison", "Runs side by side", ["metric"] + [item.label for item in sets], rows,
                 [f"Differences in parentheses are between means, against the first run ({sets[0].label}).",
                  SPREAD_NOTE])


def _cell(name: str, value: float | None) -> str:
    return DASH if value is None else _fmt(name, value)


def _fmt(name: str, value: float) -> str:
    return f"{value:.0f}" if name == "tasks" else f"{value:.3f}" if name == "mean score" else f"{value:.1f}"


def all_tables(sets: list[RunSet]) -> list[Table]:
    tables = [region_table(sets)]
    hints = hint_table(sets)
    tables += ([hints] if hints is not None else []) + [success_table(sets, "app")]
    with_lstc = [item for item in sets if any(_lstc(run.ordered) for run in item.runs)]
    tables += [runtime_table(item) for item in with_lstc or sets[:1]]
    tables += [events_table(sets), resources_table(sets), budget_table(sets)]
    if len(sets) > 1:
        tables.append(comparison_table(sets))
    return tables
