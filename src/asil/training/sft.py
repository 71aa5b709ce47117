"""``asil export sft``: step-level chat rows for supervised fine-tuning (ASIL paper, Appendix C.1).

* **SFT-v0**: each task's reference actions are replayed in the real apps; every step becomes a row whose
  prompt is exactly what the ReAct agent sends (its system prompt, the task, the history, the observation) and
  whose assistant target is a ReAct reply (thought + action JSON). Thoughts come from a teacher model (any
  OpenAI-compatible server) or, without one, from a deterministic template; each row says which. A task whose
  replay does not end in evaluator-verified success gives no rows.
* **agentic-guided**: from bench run folders (recorded with ``--full-observations``), the steps of
  evaluator-verified episodes whose action is valid JSON that executed with no error.
* **merge**: both, exactly deduplicated (same messages).

Rows are JSON lines in the conversational format of Hugging Face ``datasets`` / TRL: a ``messages`` list of
``{"role", "content"}`` plus metadata columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from asil.agents.prompting import observation_text
from asil.agents.react import history_entry, reply_text, system_prompt, user_prompt
from asil.llm.base import LLMError, Message, Provider, estimate_tokens
from asil.protocol import Action, Observation
from asil.tasks.model import Task
from asil.tasks.reference import reference_channel

V0, GUIDED = "sft-v0", "agentic-guided"


def template_thought(task: Task, action: Action, step: int) -> str:
    """A deterministic thought for a reference action (used when no teacher model is given)."""
    if action.action_type == "done":
        return "Everything the task asks for is now in place, so I finish."
    if action.action_type == "infeasible":
        return "The available actions cannot do what the task asks, so I report it as infeasible."
    where = f" on {action.target}" if action.target and action.action_type != "invoke_function" else ""
    if action.action_type == "invoke_function":
        what = f"call {action.target}"
    elif action.action_type == "batch":
        what = f"apply {len(action.params.get('actions', []))} changes together in one batch"
    else:
        what = action.action_type.replace("_", " ")
    opening = "To start on the task" if step == 1 else "Next"
    return f"{opening}, I {what}{where}, as the instruction and the current state require."


TEACHER_SYSTEM = ("You annotate an agent's trajectory. Given the task, the current observation and the action the "
                  "agent takes next, write the agent's thought before that action: one or two sentences, first "
                  "person, saying what it sees and why it acts. Reply with the thought only.")


def teacher_thought(teacher: Provider, task: Task, observation: str, action: Action) -> str:
    """The teacher's thought for a predetermined action; LLMError or ValueError (an empty reply) if none."""
    shown = action.model_dump_json(exclude_defaults=True)
    messages: list[Message] = [
        {"role": "system", "content": TEACHER_SYSTEM},
        {"role": "user", "content": f"Task: {task.instruction}\nObservation: {observation[:6000]}\nAction: {shown}"}]
    text = teacher.complete(messages, "teacher", {"task_id": task.id}).text
    thought = " ".join(text.split())[:600]
    if not thought:
        raise ValueError("the teacher's reply was empty")
    return thought


def row(messages: list[Message], reply: str, task: Task, step: int, source: str, thought_source: str) -> dict[str, Any]:
    return {"messages": [*messages, {"role": "assistant", "content": reply}], "task_id": task.id,
            "apps": list(task.apps), "step": step, "source": source, "thought_source": thought_source}


def replay_rows(task: Task, teacher: Provider | None = None, teacher_name: str = "") -> tuple[list[dict[str, Any]], str]:
    """SFT-v0 rows of one task, and '' or why the task gave none (its replay failed or was not verified)."""
    from asil.runner.check import reference_env

    env = reference_env(task)
    rows: list[dict[str, Any]] = []
    try:
        observation = env.reset()
        system = system_prompt(env.schemas())
        history: list[str] = []
        for step, action in enumerate(task.reference_steps(), start=1):
            shown = observation_text(observation)
            messages: list[Message] = [{"role": "system", "content": system},
                                       {"role": "user", "content": user_prompt(task.instruction, history, shown)}]
            if reference_channel(action) == "api":  # bash steps are history, as in guided rows: replies are api actions
                thought, source = _thought(task, shown, action, step, teacher, teacher_name)
                if thought is not None:
                    rows.append(row(messages, reply_text(thought, action), task, step, V0, source))
            outcome = env.play(action)
            if not outcome.result.ok:
                return [], f"reference step {step} was {outcome.result.status}"
            history.append(history_entry(step, action, outcome.result.status))
            observation = outcome.result.observation or observation
        if not env.evaluate().success:
            return [], "the replayed reference does not pass the evaluator"
        return rows, ""
    finally:
        env.close()


def _thought(task: Task, observation: str, action: Action, step: int, teacher: Provider | None,
             teacher_name: str) -> tuple[str | None, str]:
    if teacher is None:
        return template_thought(task, action, step), "template"
    try:
        return teacher_thought(teacher, task, observation, action), f"teacher:{teacher_name}"
    except (LLMError, ValueError):
        return None, "teacher-failed"  # an annotation error: the row is dropped, as in the paper


def guided_rows(run_dirs: Iterable[Path], tasks: dict[str, Task]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Rows from bench runs: verified episodes' valid, error-free steps. Also counts why episodes were skipped."""
    from asil.plugins import adapter_class

    rows: list[dict[str, Any]] = []
    skipped: dict[str, int] = {}
    for folder in _episode_folders(run_dirs):
        result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
        reason = _skip_reason(result, folder, tasks)
        if reason:
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        task = tasks[result["task_id"]]
        system = system_prompt({app: adapter_class(app).action_schema() for app in task.apps})
        rows += list(_episode_rows(folder, task, system))
    return rows, skipped


def _episode_folders(run_dirs: Iterable[Path]) -> Iterator[Path]:
    for run in run_dirs:
        for result in sorted(run.rglob("result.json")):
            if (result.parent / "traj.jsonl").is_file():
                yield result.parent


def _skip_reason(result: dict[str, Any], folder: Path, tasks: dict[str, Task]) -> str:
    if not result.get("success"):
        return "not verified by the evaluator"
    if result.get("agent") == "oracle":
        return "oracle replay (that is SFT-v0)"
    if result.get("task_id") not in tasks:
        return "task not found"
    first = (folder / "traj.jsonl").read_text(encoding="utf-8").splitlines()[:1]
    if not first or "observation" not in json.loads(first[0]):
        return "no full observations (run bench with --full-observations)"
    return ""


def _episode_rows(folder: Path, task: Task, system: str) -> Iterator[dict[str, Any]]:
    history: list[str] = []
    for line in (folder / "traj.jsonl").read_text(encoding="utf-8").splitlines():
        step = json.loads(line)
        raw_action = step.get("action")
        if raw_action is None:  # an unusable reply: the agent saw it as a history entry
            history.append(f"{len(history) + 1}. {step.get('thought', '')[:200]} -> invalid")
            continue
        action = Action.model_validate(raw_action)
        if step.get("channel", "api") != "api":
            history.append(history_entry(len(history) + 1, action, step["status"]))
            continue
        observation = observation_text(Observation.model_validate(step["observation"]))
        messages: list[Message] = [{"role": "system", "content": system},
                                   {"role": "user", "content": user_prompt(task.instruction, history, observation)}]
        error = (step.get("error") or {}).get("message")
        if step["status"] == "ok" and not error and step.get("thought", "").strip():
            yield row(messages, reply_text(step["thought"], action), task, step["step"], GUIDED, "agent")
        history.append(history_entry(len(history) + 1, action, step["status"], error))


def merge(*sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """All rows, exactly deduplicated by their messages (the first occurrence is kept)."""
    seen: set[str] = set()
    merged = []
    for rows in sources:
        for item in rows:
            key = json.dumps(item["messages"], sort_keys=True, ensure_ascii=False)
            if key not in seen:
                seen.add(key)
                merged.append(item)
    return merged


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for item in rows:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")


def table7(splits: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """The paper's Table 7: rows, tasks, apps, mean turns (rows per task) and tokens per split.

    Tokens are estimated at four characters a token (``asil.llm.base.estimate_tokens``): no tokenizer is assumed.
    """
    lines = ["Table 7: SFT data construction (tokens estimated at 4 characters a token)",
             f"{'split':<16} {'rows':>7} {'tasks':>6} {'apps':>5} {'mean turns':>11} {'tokens':>11} {'tokens/row':>11}"]
    for name, rows in splits:
        tasks = {r["task_id"] for r in rows}
        apps = {a for r in rows for a in r["apps"]}
        tokens = sum(estimate_tokens(m["content"]) for r in rows for m in r["messages"])
        mean_turns = len(rows) / len(tasks) if tasks else 0.0
        per_row = tokens / len(rows) if rows else 0.0
        lines.append(f"{name:<16} {len(rows):>7} {len(tasks):>6} {len(apps):>5} {mean_turns:>11.2f} {tokens:>11} "
                     f"{per_row:>11.0f}")
    return "\n".join(lines)
