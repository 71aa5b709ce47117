"""The paper's Tables 6-8: agreement between human annotators, the judge against each, and incidence."""

from __future__ import annotations

from itertools import combinations

from asil.annotate.agreement import LabelAgreement, label_agreement
from asil.annotate.human import HumanLabels, for_run
from asil.annotate.labels import CONTROL_LABELS, LABELS, has_control_failure
from asil.annotate.run import RunAnnotations
from asil.report.runs import RunSet
from asil.report.tables import SPREAD_NOTE, Table, count, num, pct, spread_row

Items = dict[str, tuple[str, ...]]  # "run/task" -> labels


def _kappa(value: float | None) -> str:
    return num(value, 3)


def human_items(humans: HumanLabels, annotated: list[RunAnnotations]) -> dict[str, Items]:
    """Each annotator's labels keyed like the judge's: ``run folder/task id``, for the annotated runs' tasks."""
    items: dict[str, Items] = {}
    for annotator, labels in humans.items():
        items[annotator] = {f"{a.run.folder.name}/{task}": value for a in annotated
                            for task, value in for_run(labels, a.run.folder.name).items() if task in a.run.results}
    return items


def judge_items(annotated: list[RunAnnotations]) -> Items:
    return {f"{a.run.folder.name}/{task}": value for a in annotated for task, value in a.labels.items()}


def inter_annotator_table(humans: dict[str, Items]) -> Table:
    """Table 6: every pair of human annotators (in the order given), per label."""
    columns = ["pair", "label", "items", "A prev. (%)", "B prev. (%)", "agreement (%)", "F1 (%)", "kappa"]
    rows = []
    for first, second in combinations(list(humans), 2):
        for row in label_agreement(humans[first], humans[second]):
            rows.append([f"{first} / {second}", row.label, str(row.items), pct(row.prevalence_a), pct(row.prevalence_b),
                         pct(row.agreement), pct(row.f1), _kappa(row.kappa)])
    notes = ["Each label is scored as its own yes/no question over the episodes both annotators labelled; "
             "Cohen's kappa and F1 from scikit-learn. – : undefined (the label never occurs in either labelling).",
             "Needs two or more annotators (--human FILE per annotator, or an annotator column)."]
    return Table("annotation-humans", "Table 6 — agreement between human annotators", columns, rows, notes)


def judge_agreement_table(judge: Items, humans: dict[str, Items], judge_name: str) -> Table:
    """Table 7: the judge against each human annotator as the reference, per label."""
    columns = ["reference", "label", "items", "ref. prev. (%)", "judge prev. (%)", "agreement (%)", "P (%)", "R (%)",
               "F1 (%)", "kappa"]
    rows = []
    for annotator in humans:
        found: list[LabelAgreement] = label_agreement(humans[annotator], judge)
        for row in found:
            rows.append([annotator, row.label, str(row.items), pct(row.prevalence_a), pct(row.prevalence_b),
                         pct(row.agreement), pct(row.precision), pct(row.recall), pct(row.f1), _kappa(row.kappa)])
    notes = [f"Judge: {judge_name}. Precision, recall, F1 and Cohen's kappa with the annotator as the reference, "
             "over the episodes both labelled (malformed judge replies are left out, not guessed)."]
    return Table("annotation-judge", "Table 7 — judge against human annotators", columns, rows, notes)


def _incidence(annotated: RunAnnotations) -> list[float | None]:
    labels = list(annotated.labels.values())
    if not labels:
        return [None] * (len(LABELS) + 1)
    shares: list[float | None] = [sum(name in item for item in labels) / len(labels)
                                  for name in CONTROL_LABELS + ("None", "Other")]
    return shares + [sum(has_control_failure(item) for item in labels) / len(labels)]


def incidence_table(sets: list[RunSet], annotated: dict[str, RunAnnotations]) -> Table:
    """Table 8: the share of tasks given each label, per method (run set: mean ± SD over its repeats)."""
    columns = ["method", "tasks", "labelled"] + list(CONTROL_LABELS) + ["None", "Other", "Any"]
    rows = []
    for item in sets:
        runs = [annotated[str(run.folder)] for run in item.runs if str(run.folder) in annotated]
        if not runs:
            continue
        per_run: list[list[float | None]] = [[float(len(a.labels)), *_incidence(a)] for a in runs]
        rows.append([item.label, count(len(item.runs[0].results))]
                    + spread_row(per_run, [count] + [pct] * (len(LABELS) + 1)))
    unusable = sum(len(a.unusable) for a in annotated.values())
    notes = ["Percent of labelled tasks given each label, from the judge's labels; a clean success is labelled None "
             "without a call. Any: at least one control label (Stage, Assess, Loop, Recover, Stop); None, Other and "
             "Any partition the tasks.",
             f"{unusable} episode(s) have no usable label (malformed judge reply or model error; see annotations.json)"
             " and are left out of 'labelled'.", SPREAD_NOTE]
    return Table("annotation-incidence", "Table 8 — incidence of control-failure labels", columns, rows, notes)


def annotation_tables(sets: list[RunSet], annotated: dict[str, RunAnnotations], humans: HumanLabels,
                      judge_name: str) -> list[Table]:
    runs = list(annotated.values())
    human = human_items(humans, runs)
    tables = []
    if human:
        tables += [inter_annotator_table(human), judge_agreement_table(judge_items(runs), human, judge_name)]
    return tables + [incidence_table(sets, annotated)]
