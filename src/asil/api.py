"""The small public Python API: open a document, find tasks, run an episode, judge a state.

Every function imports what it needs when called, so ``import asil`` stays light (no
application, no UNO, no optional extra is imported). The examples run as doctests in CI.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from asil.adapters.base import Adapter
    from asil.agents.base import Agent
    from asil.evaluate.evaluator import Evaluation
    from asil.runner.trace import EpisodeResult
    from asil.tasks.model import Task
    from asil.workspace import Workspace

PathLike = str | os.PathLike[str]


# ``open`` shadows the builtin in this module only (which never uses it): ``asil.open`` reads well.
def open(path: PathLike, app: str | None = None, **options: Any) -> Adapter:
    """Open a document with the adapter for its file type; the document's folder is the workspace.

    Args:
        path: The document, e.g. ``"budget.ods"``.
        app: Adapter name; chosen by the file's extension when omitted.
        **options: Adapter options (for Calc: ``rows``/``cols`` of the observed window).

    Returns:
        The adapter: ``observe()``, ``execute(action)``, ``save()``, ``render(png_path)``. As a
        context manager it closes the document on exit; it does not save, call ``save()`` for that.

    Raises:
        asil.adapters.UnknownApp: No adapter handles the file type (or ``app`` is unknown).
        asil.protocol.DocumentError: The file is missing or not a readable document.

    Example:
        >>> import asil, pathlib, tempfile
        >>> from asil.adapters.calc.adapter import create_spreadsheet
        >>> budget = pathlib.Path(tempfile.mkdtemp()) / "budget.ods"
        >>> create_spreadsheet(budget, [{"name": "Sheet1", "rows": [["Item", "Cost"], ["Pens", 3], ["Ink", 4]]}])
        >>> with asil.open(budget) as calc:
        ...     result = calc.execute(asil.parse_action(
        ...         {"action_type": "set_value", "target": "Sheet1!B4", "params": {"formula": "=SUM(B2:B3)"}}))
        ...     calc.save()
        >>> result.status, result.changed
        ('ok', ['Sheet1!B4'])
        >>> with asil.open(budget) as calc:
        ...     [(e.id, e.value) for e in calc.observe().elements if e.id == "Sheet1!B4"]
        [('Sheet1!B4', 7)]
    """
    from asil.plugins import adapter_class, app_for_path
    from asil.protocol import DocumentError
    from asil.workspace import Workspace

    file = Path(path)
    if not file.is_file():
        raise DocumentError(f"The document {str(path)!r} does not exist.", hint="Give the path of an existing file.")
    adapter: Adapter = adapter_class(app or app_for_path(file))(Workspace(file.resolve().parent), file.name,
                                                                    **options)
    return adapter


def load_tasks(suite: str | None = None, app: str | None = None, root: PathLike | None = None) -> list[Task]:
    """The tasks of the built-in suites (or of the folder ``root``), filtered by suite and app, sorted by id.

    Example:
        >>> import asil
        >>> tasks = asil.load_tasks(suite="core", app="calc")
        >>> len(tasks) >= 20, tasks[0].apps
        (True, ['calc'])
    """
    from asil.tasks.loader import load_tasks as load

    return load(suite=suite, app=app, root=Path(root) if root is not None else None)


def get_task(task_id: str, root: PathLike | None = None) -> Task:
    """One task by id.

    Example:
        >>> import asil
        >>> task = asil.get_task("calc-total-column")
        >>> task.apps, task.budget
        (['calc'], 15)
    """
    from asil.tasks.loader import get_task as find

    return find(task_id, root=Path(root) if root is not None else None)


def run_episode(task: Task | str, agent: Agent | str = "oracle", out_dir: PathLike = "asil-results",
                budget: int | None = None, **agent_options: Any) -> EpisodeResult:
    """Run one task with an agent and write ``out_dir/<task_id>/`` (traj.jsonl, result.json, result.txt).

    Args:
        task: A Task or a task id.
        agent: An Agent, or the name of a registered one (``"oracle"`` replays the reference solution).
        out_dir: Folder for the result directory.
        budget: Step budget; the task's own when omitted.
        **agent_options: Options for a named agent.

    Example:
        >>> import asil, tempfile
        >>> result = asil.run_episode("calc-total-column", agent="oracle", out_dir=tempfile.mkdtemp())
        >>> result.success, result.score, result.termination
        (True, 1.0, 'done')
    """
    from asil.agents.base import make_agent
    from asil.runner.episode import run_episode as run

    chosen = get_task(task) if isinstance(task, str) else task
    player = make_agent(agent, **agent_options) if isinstance(agent, str) else agent
    return run(chosen, player, Path(out_dir), budget=budget)


def evaluate(task: Task | str, workspace: Workspace | PathLike, outcome: str | None = None,
             answer: str | None = None) -> Evaluation:
    """Judge a workspace's current files against a task's success paths.

    Args:
        task: A Task or a task id.
        workspace: The folder holding the task's documents (or a Workspace).
        outcome: How the episode ended: ``"done"``, ``"infeasible"`` or None.
        answer: The agent's text answer, for tasks that check one.

    Example:
        >>> import asil
        >>> from asil.tasks import prepare_workspace
        >>> task = asil.get_task("calc-total-column")
        >>> folder = prepare_workspace(task).root
        >>> asil.evaluate(task, folder).success  # the untouched state fails
        False
        >>> with asil.open(folder / "sales.ods") as calc:
        ...     results = [calc.execute(action) for action in task.reference]
        ...     calc.save()
        >>> verdict = asil.evaluate(task, folder, outcome="done")
        >>> verdict.success, verdict.score
        (True, 1.0)
    """
    from asil.evaluate.evaluator import evaluate_paths
    from asil.protocol import DocumentError
    from asil.workspace import Workspace

    chosen = get_task(task) if isinstance(task, str) else task
    if not isinstance(workspace, Workspace) and not Path(workspace).is_dir():
        raise DocumentError(f"The workspace {str(workspace)!r} is not an existing folder.",
                            hint="Give the folder that holds the task's documents.")
    place = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    return evaluate_paths(chosen.evaluator.paths, place, outcome, answer)
