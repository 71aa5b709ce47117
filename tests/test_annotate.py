"""Control-failure annotation: the strict judge reply, the scripted judge on planted episodes, human labels
from CSV, and Tables 6-8 with Cohen's kappa checked against a hand computation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from asil.annotate import Judge, annotate, parse_reply
from asil.annotate.judge import MalformedReply
from asil.cli import main
from asil.llm.scripted import ScriptedProvider
from asil.runner.results import RunRecord, RunSettings, commit_task_folder, open_run
from asil.runner.trace import EpisodeResult
from tests.bench_helpers import schema
from tests.chat_server import ChatServer

SET_A1 = {"action_type": "set_value", "target": "Sheet1!A1", "params": {"value": 1}}
SET_B2 = {"action_type": "set_value", "target": "Sheet1!B2", "params": {"value": 2}}
BAD = {"action_type": "set_value", "target": "Nope!A1", "params": {"value": 1}}
LOOK = {"action_type": "navigate", "target": "A1"}
DONE = {"action_type": "done", "params": {}}


def _step(action: dict[str, Any], status: str = "ok", changed: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {"observation_digest": "sha256:0", "action": action, "channel": "api", "status": status,
                            "changed": ["Sheet1!A1"] if changed else [], "latency_ms": 1.0}
    if status != "ok":
        line["error"] = {"code": "invalid_target", "message": "No sheet named Nope.", "hint": "Use Sheet1."}
    return line


# Planted episodes: (task, success, termination, steps, LSTC metrics) and what the scripted judge's rules say.
EPISODES: list[tuple[str, bool, str, list[dict[str, Any]], dict[str, Any]]] = [
    ("e1", True, "done", [_step(SET_A1, changed=True), _step(DONE)], {}),  # clean success: None without a call
    ("e2", False, "done", [_step(SET_A1, changed=True), _step(DONE)], {}),  # premature done: Stop
    ("e3", False, "budget", [_step(LOOK)] * 3, {}),  # the same no-change action three times: Loop
    ("e4", False, "budget", [_step(BAD, "invalid"), _step(LOOK), _step(BAD, "invalid")], {}),  # Recover
    ("e5", False, "budget", [_step(BAD, "invalid")] * 3, {}),  # Loop and Recover
    ("e6", False, "budget", [_step(SET_A1, changed=True), _step(SET_B2, changed=True)], {}),  # Other
    ("e7", True, "done", [_step(BAD, "invalid"), _step(SET_A1, changed=True), _step(DONE)], {}),  # judged: None
    ("e8", False, "done", [_step(SET_A1, changed=True), _step(DONE)],  # Assess and Stop
     {"final_verification": [{"step": 2, "verdict": "reject", "reason": "B2 is empty", "infeasible": False}]}),
]
JUDGE = {"e1": ("None",), "e2": ("Stop",), "e3": ("Loop",), "e4": ("Recover",), "e5": ("Loop", "Recover"),
         "e6": ("Other",), "e7": ("None",), "e8": ("Assess", "Stop")}
A1_CSV = "task_id,labels\ne1,None\ne2,Stop\ne3,Loop\ne4,Loop;Recover\ne5,Loop\ne6,Other\ne7,None\ne8,Assess;Stop\n"
A2_CSV = ("task_id,labels,annotator\ne1,None,A2\ne2,Stage;Stop,A2\ne3,Loop,A2\ne4,Loop;Recover,A2\ne5,Loop,A2\n"
          "e6,Stop,A2\ne7,None,A2\ne8,Assess;Stop,A2\n")


def _planted_run(folder: Path) -> Path:
    open_run(folder, RunRecord(settings=RunSettings(agent="lstc", model="m")))
    for task_id, success, termination, steps, metrics in EPISODES:
        result = EpisodeResult(task_id=task_id, suite="core", apps=["calc"], agent="lstc", score=float(success),
                               success=success, checkpoints=[], steps=len(steps), budget=3, time_s=1.0,
                               termination=termination, metrics=metrics)  # type: ignore[arg-type]
        trace = "".join(json.dumps({"step": n, **line}) + "\n" for n, line in enumerate(steps, start=1))
        commit_task_folder(folder, task_id, {"traj.jsonl": trace.encode(), "result.json": result.model_dump_json().encode()})
    return folder


def _rows(text: str, title: str) -> dict[tuple[str, ...], list[str]]:
    """A printed table's rows keyed by their first two cells (text columns are single words here)."""
    block = text.split(title, 1)[1].split("\n\n", 1)[0].splitlines()[4:]
    rows = [line.split("  ") for line in block if line and not line.startswith("  note")]
    cells = [[c.strip() for c in row if c.strip()] for row in rows]
    return {tuple(c[:2]): c[2:] for c in cells}


def test_the_judge_reply_is_strict() -> None:
    assert parse_reply('{"labels": ["loop", "Recover"], "evidence": "steps 3-5"}').labels == ["Loop", "Recover"]
    assert parse_reply('<think>hmm</think>\n```json\n{"labels": ["None"], "evidence": "ok"}\n```').labels == ["None"]
    for bad, why in [('Sure! {"labels": ["Loop"], "evidence": "x"}', "not a single JSON object"),
                     ('{"labels": ["Loop"], "evidence": "x", "confidence": 0.9}', "Extra inputs"),
                     ('{"labels": [], "evidence": "x"}', "at least 1"),
                     ('{"labels": ["Loop", "None"], "evidence": "x"}', "cannot be combined"),
                     ('{"labels": ["Grounding"], "evidence": "x"}', "is not a label"),
                     ('{"labels": "Loop", "evidence": "x"}', "valid list"),
                     ('{"labels": ["Loop"]}', "evidence: Field required")]:
        with pytest.raises(MalformedReply, match=why):
            parse_reply(bad)


def test_annotate_prints_tables_6_to_8_and_kappa_matches_the_hand_computation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _planted_run(tmp_path / "run")
    (tmp_path / "a1.csv").write_text(A1_CSV)
    (tmp_path / "a2.csv").write_text(A2_CSV)
    code = main(["annotate", str(run), "--provider", "scripted", "--human", str(tmp_path / "a1.csv"),
                 "--human", str(tmp_path / "a2.csv")])
    out = capsys.readouterr().out
    assert code == 0, out
    record = json.loads((run / "annotations.json").read_text())
    jsonschema.validate(record, schema("annotations"))
    assert {a["task_id"]: tuple(a["labels"]) for a in record["annotations"]} == JUDGE
    assert [a["source"] for a in record["annotations"]].count("auto") == 1  # e1 was not sent to the judge

    # Table 7, judge against annotator a1 on "Loop", over the 8 episodes (e1..e8):
    #   a1:    0 0 1 1 1 0 0 0   (e3, e4, e5)      judge: 0 0 1 0 1 0 0 0   (e3, e5)
    #   observed agreement po = 7/8 (only e4 differs)
    #   chance agreement  pe = P(a1=1)P(j=1) + P(a1=0)P(j=0) = 3/8*2/8 + 5/8*6/8 = 6/64 + 30/64 = 36/64 = 9/16
    #   kappa = (po - pe) / (1 - pe) = (14/16 - 9/16) / (7/16) = 5/7 = 0.714
    #   precision = 2/2, recall = 2/3, F1 = 2PR/(P+R) = (4/3)/(5/3) = 0.8
    judge_rows = _rows(out, "Table 7 — judge against human annotators")
    assert judge_rows[("a1", "Loop")] == ["8", "37.5", "25.0", "87.5", "100.0", "66.7", "80.0", f"{5 / 7:.3f}"]
    # "Recover": a1 has e4, the judge e4 and e5: po = 7/8, pe = 1/8*2/8 + 7/8*6/8 = 44/64 = 11/16,
    #   kappa = (14/16 - 11/16) / (5/16) = 3/5
    assert judge_rows[("a1", "Recover")][-1] == "0.600"
    # "Stage" occurs in neither a1 nor the judge: chance agreement is 1, so kappa and F1 are undefined
    assert judge_rows[("a1", "Stage")][-4:] == ["–", "–", "–", "–"]

    # Table 6, a1 against A2 on "Stop": a1 has e2, e8; A2 has e2, e6, e8:
    #   po = 7/8, pe = 2/8*3/8 + 6/8*5/8 = 36/64, kappa = 5/7; F1 = 2*2/(2*2 + 1) = 0.8
    # and on "Other": a1 has e6, A2 none: po = 7/8, pe = 1/8*0 + 7/8*1 = 7/8, kappa = 0
    human_rows = _rows(out, "Table 6 — agreement between human annotators")
    assert human_rows[("a1 / A2", "Stop")] == ["8", "25.0", "37.5", "87.5", "80.0", f"{5 / 7:.3f}"]
    assert human_rows[("a1 / A2", "Other")][-1] == "0.000"

    # Table 8 from the judge's labels: share of the 8 tasks; None + Other + Any = 100
    incidence = _rows(out, "Table 8 — incidence of control-failure labels")
    (key, cells), = incidence.items()
    assert key == ("lstc m B3", "8")
    assert cells == ["8", "0.0", "12.5", "25.0", "25.0", "25.0", "25.0", "12.5", "62.5"]


def test_a_malformed_judge_reply_is_recorded_not_guessed(tmp_path: Path) -> None:
    run = _planted_run(tmp_path / "run")
    judge = Judge(ScriptedProvider(faults=["malformed"]), "scripted")  # the first judged episode (e2)
    result = annotate([run], judge)
    record = json.loads((run / "annotations.json").read_text())
    e2 = next(a for a in record["annotations"] if a["task_id"] == "e2")
    assert e2["status"] == "malformed" and e2["labels"] == [] and e2["reply"].startswith("```json")
    assert "not a single JSON object" in e2["problem"]
    (incidence,) = result.tables
    assert incidence.rows[0][1:3] == ["8", "7"]  # 8 tasks, 7 with usable labels
    assert any("1 episode(s) have no usable label" in note for note in incidence.notes)


def test_bad_human_labels_get_one_sentence_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _planted_run(tmp_path / "run")
    (tmp_path / "h.csv").write_text("task_id,labels\ne1,None\ne2,Loop;None\n")
    assert main(["annotate", str(run), "--provider", "scripted", "--human", str(tmp_path / "h.csv")]) == 2
    assert 'h.csv line 3: "None" cannot be combined' in capsys.readouterr().err
    assert main(["annotate", str(run)]) == 2
    assert "Name the judge model" in capsys.readouterr().err


def test_an_openai_compatible_judge_gets_the_rubric_and_the_trace_over_http(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _planted_run(tmp_path / "run")
    server = ChatServer()
    try:
        other = '{"labels": ["Other"], "evidence": "no control failure"}'
        server.behaviours += [{"text": '<think>e2</think>{"labels": ["Stop"], "evidence": "step 2 ends early"}'},
                              {"text": 'The episode loops. {"labels": ["Loop"], "evidence": "steps 1-3"}'}]
        server.behaviours += [{"text": other}] * 5  # e4 .. e8
        code = main(["annotate", str(run), "--model", "judge-x", "--base-url", server.url])
    finally:
        server.close()
    assert code == 0, capsys.readouterr().err
    assert len(server.requests) == 7  # e1 is a clean success: no call
    first = server.requests[0]["body"]
    assert first["model"] == "judge-x" and first["temperature"] == 0
    assert first["messages"][0]["content"].startswith("# Control-failure rubric")
    assert "STEPS:\n  step 1 [api]" in first["messages"][1]["content"]
    assert "ENDING: done after 2 of 3 steps; evaluator: failure" in first["messages"][1]["content"]
    record = json.loads((run / "annotations.json").read_text())
    assert record["judge"] == "judge-x"
    by_task = {a["task_id"]: a for a in record["annotations"]}
    assert by_task["e2"]["labels"] == ["Stop"]
    assert by_task["e3"]["status"] == "malformed" and by_task["e3"]["labels"] == []  # prose around the JSON
    assert by_task["e3"]["reply"].startswith("The episode loops.")
    assert "1 episode(s) have no usable label" in capsys.readouterr().out
