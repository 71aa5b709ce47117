"""The ASIL paper's Table 2 layout: success by task band (GUI / 50max, GUI / 15max, ASIL) on top, and the
native baselines (LibreOffice UNO, draw.io MCP) beside ASIL on identical tasks below.

The paper's bands are the full benchmark and *easy60* (its single-application band, kept in
``asil/tasks/selections/easy60.json``). Here "full" means every task the shown runs hold, since a run
folder may hold any subset; the head says how many.
"""

from __future__ import annotations

from collections.abc import Callable

from asil.report.runs import Run, RunSet
from asil.report.tables import DASH, SPREAD_NOTE, Table, pct, spread, truncated_success
from asil.runner.trace import EpisodeResult
from asil.tasks.bands import read_band

BAND = "easy60"
GUI_AGENT = "gui"
SHORT_BUDGET = 15  # the paper's GUI / 15max row re-scores the 50-step GUI run
MATCHED = "same budget, hints off"  # what the paper matches besides the model and evaluator
NATIVE_LABELS = {"uno": "native UNO", "drawio-mcp": "native draw.io MCP"}  # agent -> how Table 2 names it

Success = Callable[[EpisodeResult], bool]


def agent_of(item: RunSet) -> str:
    """The participant that made the set's runs: the recorded --agent, else the results' own."""
    run = item.runs[0]
    if run.record is not None:
        return run.record.settings.agent
    return next(iter(run.results.values())).agent


def is_native(item: RunSet) -> bool:
    return agent_of(item) in NATIVE_LABELS


def mode_of(item: RunSet) -> str:
    """The paper's mode label: ``GUI / 50max`` for the GUI participant, ``ASIL / 15max`` for ASIL agents."""
    interface = "GUI" if agent_of(item) == GUI_AGENT else "ASIL"
    return f"{interface} / {item.budget}max" if item.budget is not None else f"{interface} / {item.runs[0].budget_label}"


def band_ids() -> set[str]:
    return set(read_band(BAND).selected)


def _strict(result: EpisodeResult) -> bool:
    return result.success


def rate_cell(runs: list[Run], tasks: set[str], success: Success = _strict) -> str:
    """Strict success in % with the count, over ``tasks`` in each run: ``50.0 (1/2)``; repeats show mean ± SD."""
    picked = [[r for r in run.ordered if r.task_id in tasks] for run in runs]
    if not picked[0]:
        return DASH
    rates = [sum(success(r) for r in group) / len(group) for group in picked]
    counts = " ".join(f"{sum(success(r) for r in group)}/{len(group)}" for group in picked)
    return f"{spread(rates, pct)} ({counts})"


def _band_row(label: str, mode: str, runs: list[Run], bands: list[set[str]], success: Success = _strict) -> list[str]:
    return [label, mode] + [rate_cell(runs, tasks, success) for tasks in bands]


def band_table(sets: list[RunSet]) -> Table:
    """Top panel: every GUI and ASIL run set by band; a GUI run longer than 15 steps also gives GUI / 15max."""
    shown = [item for item in sets if not is_native(item)]
    full = {task for item in shown for run in item.runs for task in run.results}
    easy = full & band_ids()
    rows = []
    for item in shown:
        rows.append(_band_row(item.label, mode_of(item), item.runs, [full, easy]))
        if agent_of(item) == GUI_AGENT and item.budget is not None and item.budget > SHORT_BUDGET:
            rows.append(_band_row(item.label, f"GUI / {SHORT_BUDGET}max (truncated from B{item.budget})", item.runs,
                                  [full, easy], lambda r: truncated_success(r, SHORT_BUDGET)))
    notes = [f"Cells: strict success rate in % (successes/tasks of that run in the band). 'all' is every task the "
             f"shown runs hold; '{BAND}' is the part of them in the paper's single-application band "
             f"(asil/tasks/selections/{BAND}.json). A run that did not run a band's tasks shows {DASH}.",
             f"GUI / {SHORT_BUDGET}max re-scores the GUI run: a task counts only if its episode ended successfully "
             f"within {SHORT_BUDGET} steps (the SR-K rule of the budgets table).", SPREAD_NOTE]
    columns = ["run", "mode", f"all ({len(full)})", f"{BAND} ({len(easy)})"]
    return Table("table2-bands", "Success by task band (ASIL paper Table 2, top)", columns, rows, notes)


def _setting_gap(native: RunSet, asil: RunSet) -> str:
    """How the pair departs from the paper's matched setting (same budget, hint off); empty when it does not."""
    gaps = []
    if native.budget != asil.budget:
        gaps.append(f"budgets {native.runs[0].budget_label} vs {asil.runs[0].budget_label}")
    if native.hints or asil.hints:
        gaps.append("hints on")
    return "; ".join(gaps)


def native_table(sets: list[RunSet]) -> Table:
    """Bottom panel: each native baseline beside each ASIL run set, scored only on the tasks both ran."""
    natives = [item for item in sets if is_native(item)]
    asil_sets = [item for item in sets if not is_native(item) and agent_of(item) != GUI_AGENT]
    rows = []
    for native in natives:
        for asil in asil_sets:
            shared = set(native.runs[0].results) & set(asil.runs[0].results)
            if not shared:
                continue
            base = [sum(r.success for r in run.ordered if r.task_id in shared) / len(shared) for run in native.runs]
            ours = [sum(r.success for r in run.ordered if r.task_id in shared) / len(shared) for run in asil.runs]
            gap = _setting_gap(native, asil)
            rows.append([f"{NATIVE_LABELS[agent_of(native)]} ({native.label})", asil.label, str(len(shared)),
                         rate_cell(native.runs, shared), rate_cell(asil.runs, shared),
                         f"{100 * (sum(ours) / len(ours) - sum(base) / len(base)):+.1f}", gap or MATCHED])
    notes = ["Each row compares a native baseline and an ASIL run only on the identical tasks both ran (the count "
             "is in 'tasks'); same evaluator. Difference: ASIL minus native, in points of strict success.",
             "The paper's matched setting is the same model, a 15-step budget and no success hint; 'setting' names "
             "any way a row departs from it (runs with an oracle or a scripted demonstration have no model)."]
    columns = ["baseline", "ASIL run", "tasks", "native SR (%)", "ASIL SR (%)", "ASIL − native", "setting"]
    return Table("table2-native", "Native baselines beside ASIL on identical tasks (ASIL paper Table 2, bottom)",
                 columns, rows, notes)


def table2(sets: list[RunSet]) -> list[Table]:
    return [band_table(sets), native_table(sets)]


def has_table2_arms(sets: list[RunSet]) -> bool:
    """Whether Table 2 says more than Table 1: a GUI or native participant is among the runs."""
    return any(agent_of(item) == GUI_AGENT or is_native(item) for item in sets)
