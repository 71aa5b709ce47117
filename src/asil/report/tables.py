"""The report's tables as data: each a title, columns, rows of formatted cells, and notes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from asil.report.runs import Run
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


def _groups(results: list[EpisodeResult], key: Callable[[EpisodeResult], str]) -> dict[str, list[EpisodeResult]]:
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for result in results:
        groups[key(result)].append(result)
    return dict(sorted(groups.items()))


# ----------------------------------------------------------------------------- (a) success
def success_table(runs: list[Run], by: str) -> Table:
    """Success and mean score with counts, per app or per domain, for every run."""
    key: Callable[[EpisodeResult], str] = app_of if by == "app" else (lambda r: r.domain or "-")
    rows = []
    for run in runs:
        results = run.ordered
        for name, group in list(_groups(results, key).items()) + [("all", results)]:
            successes = sum(r.success for r in group)
            rows.append([run.label, name, str(len(group)), str(successes), pct(successes / len(group)),
                         num(_mean([r.score for r in group]), 3), num(_mean([r.steps for r in group]))])
    return Table(f"success-{by}", f"Success by {by}", ["run", by, "tasks", "success", "SR (%)", "mean score", "steps"],
                 rows)


# ----------------------------------------------------------------------------- (b) LocalLSTC Table 2
def _lstc(results: list[EpisodeResult]) -> list[dict[str, Any]]:
    return [r.metrics for r in results if "verification_class" in r.metrics]


def runtime_table(run: Run) -> Table:
    """Domain-level runtime behaviour in the layout of LocalLSTC's Table 2."""
    columns = ["domain", "tasks", "SR (%)", "steps", "subgoals/task", "actions/subgoal", "actions/step", "API (%)",
               "Bash (%)", "control (%)", "context refines", "Pass (%)", "Fail (%)", "Bypass (%)"]
    rows = []
    results = run.ordered
    for name, group in list(_groups(results, lambda r: r.domain or "-").items()) + [("all", results)]:
        metrics = _lstc(group)
        row = [name, str(len(group)), pct(sum(r.success for r in group) / len(group)),
               num(_mean([r.steps for r in group]))]
        if metrics:
            classes = [m["verification_class"] for m in metrics]
            row += [num(_mean([m["subgoals"] for m in metrics])), num(_mean([m["actions_per_subgoal"] for m in metrics])),
                    num(_mean([m["actions_per_step"] for m in metrics]))]
            row += [pct(_mean([m["channel_shares"].get(c, 0.0) for m in metrics])) for c in ("api", "bash", "control")]
            row += [num(_mean([m["context_refinements"] for m in metrics]))]
            row += [pct(classes.count(c) / len(classes)) for c in ("Pass", "Fail", "Bypass")]
        else:
            row += [DASH] * 10
        rows.append(row)
    notes = ["Per-task means. Channel columns are action shares (API = ASIL semantic actions, Bash = the confined "
             "shell, control = done/infeasible). Pass / Fail / Bypass follow the paper's Table 2: Bypass for stall "
             "or step-budget cutoffs without an explicit INFEASIBLE; otherwise Fail if any Final Verification was "
             "rejected, else Pass.",
             "– : the run's agent keeps no LocalLSTC metrics (oracle, react)."]
    return Table(f"runtime-{run.label}", f"Runtime behaviour by domain — {run.label}", columns, rows, notes)


# ----------------------------------------------------------------------------- (c) LocalLSTC Table 4
EVENTS = (("stall_repetition", "stall / repetition", "stall_loop"), ("recovery", "recovery entry", "routing"),
          ("rejected_termination", "rejected termination", "final_verification"))


def _event_available(config: dict[str, Any], switch: str) -> bool:
    if switch == "final_verification":
        return bool(config.get("final_verification", True) and config.get("routing", True))
    return bool(config.get(switch, True))


def events_table(runs: list[Run]) -> Table:
    """Rate of tasks entering each runtime event, and mean score conditional on entry (Table 4)."""
    columns = ["run", "tasks"] + [f"{label} {part}" for _, label, _ in EVENTS for part in ("rate (%)", "score (%)")]
    rows = []
    for run in runs:
        with_metrics = [r for r in run.ordered if "events" in r.metrics]
        if not with_metrics:
            continue
        row = [run.label, str(len(with_metrics))]
        config = with_metrics[0].metrics.get("config", {})
        for event, _, switch in EVENTS:
            if not _event_available(config, switch):
                row += [DASH, DASH]
                continue
            entered = [r for r in with_metrics if r.metrics["events"]["entered"].get(event)]
            row += [pct(len(entered) / len(with_metrics)), pct(_mean([r.score for r in entered]))]
        rows.append(row)
    notes = ["Rate: share of tasks that entered the event at least once; score: mean evaluator score over those "
             "tasks. – : the mechanism is switched off by an ablation, or no task entered the event."]
    return Table("events", "Runtime-event diagnostics", columns, rows, notes)


# ----------------------------------------------------------------------------- (d) LocalLSTC Table 3
def _tokens(result: EpisodeResult) -> dict[str, int]:
    totals = result.metrics.get("tokens")
    return dict(totals) if isinstance(totals, dict) else dict(result.tokens)


def resources_table(runs: list[Run]) -> Table:
    columns = ["run", "tasks", "SR (%)", "tokens (k)", "prompt (k)", "completion (k)", "steps", "time (s)"]
    rows = []
    for run in runs:
        results = run.ordered
        tokens = [_tokens(r) for r in results]
        prompt = _mean([t.get("prompt", 0) / 1000 for t in tokens])
        completion = _mean([t.get("completion", 0) / 1000 for t in tokens])
        total = None if prompt is None or completion is None else prompt + completion
        rows.append([run.label, str(len(results)), pct(sum(r.success for r in results) / len(results)), num(total),
                     num(prompt), num(completion), num(_mean([r.steps for r in results])),
                     num(_mean([r.time_s for r in results]))])
    return Table("resources", "Tokens, steps and time per task", columns, rows,
                 ["Per-task means. Tokens are the model's prompt + completion tokens as the server reported them."])


# ----------------------------------------------------------------------------- budgets
def truncated_success(result: EpisodeResult, limit: int) -> bool:
    """Would the episode have succeeded with ``limit`` steps? Only if it ended successfully within them.

    The agent must have ended the episode itself (done / infeasible) by step ``limit`` and the final state
    must pass; an episode cut off by its own budget counts only when that budget is within the limit.
    """
    if not result.success or result.steps > limit:
        return False
    return result.termination in AGENT_ENDINGS or result.budget <= limit


def budget_rates(runs: list[Run]) -> list[tuple[str, str, dict[int, tuple[float, int] | None]]]:
    """(configuration, source, {K: (SR, tasks) or None}) rows: separate runs, then truncations."""
    by_config: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_config[run.config_key].append(run)
    rows: list[tuple[str, str, dict[int, tuple[float, int] | None]]] = []
    for config, group in by_config.items():
        separate: dict[int, tuple[float, int] | None] = {k: None for k in BUDGETS}
        for run in group:
            if run.budget in separate:
                results = run.ordered
                separate[run.budget] = (sum(r.success for r in results) / len(results), len(results))
        if any(separate.values()):
            rows.append((config, "separate runs", separate))
        for run in group:
            if run.budget is None or run.budget <= BUDGETS[0]:
                continue  # nothing shorter to truncate to
            results = run.ordered
            truncated: dict[int, tuple[float, int] | None] = {
                k: (sum(truncated_success(r, k) for r in results) / len(results), len(results))
                if k <= run.budget else None for k in BUDGETS}
            rows.append((config, f"truncated from the B{run.budget} run", truncated))
    return rows


def budget_table(runs: list[Run]) -> Table:
    rows = [[config, source] + [DASH if cell is None else f"{pct(cell[0])} (n={cell[1]})" for cell in rates.values()]
            for config, source, rates in budget_rates(runs)]
    notes = ["SR-K: success rate with a K-step budget. 'separate runs' come from runs made with --budget K. "
             "'truncated' rows re-score one longer run (as the ASIL paper's GUI / 15max row does): a task counts "
             "as a success at K only if its episode ended successfully within K steps — the agent said done "
             "(or infeasible, for infeasible tasks) at step K or earlier and the final state passed. Truncation "
             "cannot see a state that was right at step K but later broken, nor how an agent would have "
             "planned knowing the shorter budget, so it can differ from a separate run."]
    return Table("budgets", "Success by step budget (SR-15 / SR-50 / SR-100)", ["configuration", "source"] +
                 [f"SR-{k} (%)" for k in BUDGETS], rows, notes)


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


def comparison_table(runs: list[Run]) -> Table:
    """Runs side by side; every cell after the first run shows its difference from the first."""
    metrics = [_comparison_metrics(run) for run in runs]
    names = list(dict.fromkeys(name for values in metrics for name in values))
    rows = []
    for name in names:
        base = metrics[0].get(name)
        row = [name]
        for index, values in enumerate(metrics):
            value = values.get(name)
            cell = DASH if value is None else _fmt(name, value)
            if index and value is not None and base is not None:
                cell += f" ({'+' if value - base >= 0 else ''}{_fmt(name, value - base)})"
            row.append(cell)
        rows.append(row)
    return Table("comparison", "Runs side by side", ["metric"] + [run.label for run in runs], rows,
                 [f"Differences in parentheses are against the first run ({runs[0].label})."])


def _fmt(name: str, value: float) -> str:
    return f"{value:.0f}" if name == "tasks" else f"{value:.3f}" if name == "mean score" else f"{value:.1f}"


def all_tables(runs: list[Run]) -> list[Table]:
    tables = [success_table(runs, "app"), success_table(runs, "domain")]
    with_lstc = [run for run in runs if any(_lstc(run.ordered))]
    tables += [runtime_table(run) for run in with_lstc or runs[:1]]
    tables += [events_table(runs), resources_table(runs), budget_table(runs)]
    if len(runs) > 1:
        tables.append(comparison_table(runs))
    return tables
