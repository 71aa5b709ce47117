"""The trajectory viewer: every task's steps (thought, action, result, evidence) and its renders."""

from __future__ import annotations

import base64
import json
import os
from html import escape
from pathlib import Path
from typing import Any

from asil.report.runs import Run
from asil.runner.trace import EpisodeResult


def read_trajectory(folder: Path) -> list[dict[str, Any]]:
    """The lines of ``traj.jsonl``; a line cut short by a kill is skipped."""
    lines = []
    try:
        text = (folder / "traj.jsonl").read_text(encoding="utf-8")
    except OSError:
        return []
    for raw in text.splitlines():
        try:
            lines.append(json.loads(raw))
        except json.JSONDecodeError:
            continue
    return lines


class ImageLinks:
    """How the page refers to step renders: relative to the report file, or embedded as data URIs."""

    def __init__(self, report_dir: Path, embed: bool):
        self.report_dir, self.embed = report_dir.resolve(), embed

    def src(self, path: Path) -> str:
        if self.embed:
            return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
        return Path(os.path.relpath(path.resolve(), self.report_dir)).as_posix()


def _render(folder: Path, step: int, links: ImageLinks, caption: str) -> str:
    path = folder / f"step_{step}.png"
    if not path.is_file():
        return ""
    return (f'<figure class="render"><img src="{escape(links.src(path))}" alt="{escape(caption)}" '
            f'data-step="{step}"><figcaption>{escape(caption)} <span class="size">'
            f"(loading…)</span></figcaption></figure>")


def _strip(folder: Path, links: ImageLinks) -> str:
    """Every step's picture in one row (a GUI episode's screenshots, or a rendered run's states), in step order."""
    shots = sorted((p for p in folder.glob("step_*.png") if p.stem.removeprefix("step_").isdigit()),
                   key=lambda p: int(p.stem.removeprefix("step_")))
    if len(shots) < 2:
        return ""
    items = "".join(f'<figure><img src="{escape(links.src(p))}" alt="{escape(p.stem)}" title="{escape(p.stem)}">'
                    f"<figcaption>{escape(p.stem.removeprefix('step_'))}</figcaption></figure>" for p in shots)
    return f'<div class="strip">{items}</div>'


def _evidence(line: dict[str, Any]) -> str:
    """What the step showed: changed elements, channel output, the error and its hint."""
    parts = []
    if line.get("changed"):
        parts.append("changed: " + ", ".join(str(c) for c in line["changed"]))
    if line.get("output"):
        parts.append("output: " + str(line["output"])[:2000])
    error = line.get("error")
    if error:
        parts.append(f"error [{error.get('code')}]: {error.get('message')}" + (f" — {error['hint']}" if error.get("hint")
                                                                              else ""))
    return "\n".join(parts) or "—"


def _step_row(line: dict[str, Any], folder: Path, links: ImageLinks) -> str:
    action = line.get("action")
    action_text = json.dumps(action, ensure_ascii=False, indent=1) if action is not None else "(no usable action)"
    status = str(line.get("status", "?"))
    tokens = line.get("tokens") or {}
    meta = f"{line.get('channel', 'api')} · {line.get('latency_ms', 0):.0f} ms" + (
        f" · {sum(tokens.values())} tokens" if tokens else "")
    image = _render(folder, int(line.get("step", 0)), links, f"after step {line.get('step')}")
    return (f'<tr class="step {escape(status)}"><td class="n">{escape(str(line.get("step")))}</td>'
            f'<td>{escape(str(line.get("thought") or ""))}</td><td><pre>{escape(action_text)}</pre></td>'
            f'<td><span class="status {escape(status)}">{escape(status)}</span><br><small>{escape(meta)}</small></td>'
            f'<td><pre>{escape(_evidence(line))}</pre></td><td>{image}</td></tr>')


def _checkpoints(result: EpisodeResult) -> str:
    items = "".join(f'<li class="{"pass" if v.passed else "fail"}">{"✓" if v.passed else "✗"} '
                    f"{escape(v.type)}{'' if v.target is None else ' ' + escape(str(v.target))}: {escape(repr(v.actual))}"
                    f"{' — ' + escape(v.detail) if v.detail else ''}</li>" for v in result.checkpoints)
    return f'<ul class="checkpoints">{items}</ul>' if items else ""


def task_view(run_index: int, run: Run, result: EpisodeResult, links: ImageLinks) -> str:
    folder = run.folder / result.task_id
    lines = read_trajectory(folder)
    verdict = "ok" if result.success else "fail"
    summary = (f'<span class="badge {verdict}">{"success" if result.success else "failure"}</span> '
               f"<b>{escape(result.task_id)}</b> score {result.score:.2f} · {result.steps} steps · "
               f"{escape(result.termination)} · {result.time_s:.1f} s")
    error = f'<p class="error">{escape(result.error.splitlines()[0])}</p>' if result.error else ""
    initial = _render(folder, 0, links, "initial state")
    rows = "".join(_step_row(line, folder, links) for line in lines)
    table = ('<table class="steps"><thead><tr><th>#</th><th>thought</th><th>action</th><th>result</th>'
             f"<th>evidence</th><th>render</th></tr></thead><tbody>{rows}</tbody></table>") if rows else \
        "<p>No steps were recorded.</p>"
    anchor = f"task-{run_index}-{result.task_id}"
    return (f'<details class="task {verdict}" id="{escape(anchor)}" data-app="{escape(result.apps[0])}">'
            f"<summary>{summary}</summary>{error}{_checkpoints(result)}{_strip(folder, links)}{initial}{table}</details>")


def viewer(runs: list[Run], links: ImageLinks) -> str:
    sections = []
    for index, run in enumerate(runs):
        tasks = "".join(task_view(index, run, result, links) for result in run.ordered)
        sections.append(f'<section class="run"><h3>{escape(run.label)}</h3>{tasks}</section>')
    return "".join(sections)
