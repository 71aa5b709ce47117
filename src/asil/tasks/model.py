"""The task format (contract): instruction, setup, budget, evaluator paths, reference actions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action
from asil.tasks.reference import ReferenceStep


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SetupFile(_Strict):
    """A file placed in the workspace before the episode. ``kind`` picks a registered builder:
    ``text`` (``content`` is the text), ``asset`` (``source`` is a file beside the task JSON),
    ``spreadsheet`` (``content`` is a list of sheets ``{"name", "rows", "bold_rows"}``, built by LibreOffice).
    """

    path: str
    kind: str = "text"
    content: Any = None
    source: str | None = None


class Setup(_Strict):
    files: list[SetupFile] = Field(default_factory=list)
    open: dict[str, str] = Field(default_factory=dict, description="app -> document to open; derived when omitted")
    services: list[dict[str, Any]] = Field(default_factory=list)
    options: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description='app -> adapter options for this task, e.g. {"blender": {"allow_code": true}}')


class EvaluatorSpec(_Strict):
    paths: list[list[Checkpoint]] = Field(min_length=1)


DEFAULT_BUDGET = 15  # the ASIL paper's step budget for every main-benchmark task (Appendix A)


class Task(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    suite: str
    apps: list[str] = Field(min_length=1)
    domain: str
    instruction: str
    setup: Setup = Field(default_factory=Setup)
    budget: int = Field(DEFAULT_BUDGET, ge=1, le=1000)
    budget_reason: str | None = Field(None, description="why the task needs more than the default 15 steps")
    hint: str | None = None
    feasible: bool = True
    evaluator: EvaluatorSpec
    reference: list[ReferenceStep] = Field(
        min_length=1, description='ASIL actions, and bash steps written {"channel": "bash", "command": "..."}')
    source_dir: Path | None = Field(None, exclude=True, description="Folder the task JSON was loaded from.")

    @model_validator(mode="after")
    def _infeasible_tasks_say_so(self) -> Task:
        ends_infeasible = self.reference[-1].action_type == "infeasible"
        if ends_infeasible == self.feasible:
            raise ValueError("a task is infeasible exactly when its reference ends with an 'infeasible' action")
        return self

    @property
    def region(self) -> str:
        """The benchmark region (the ASIL paper's Table 1 columns), from the app records: Multi-App for several apps."""
        from asil.plugins import region_of

        return region_of(self.apps)

    def success_hint(self) -> str:
        """What the evaluator will check, in words and without expected values (shown with ``--hints on``)."""
        from asil.tasks.hints import success_hint

        return success_hint(self)

    def for_agent(self, hints: bool) -> Task:
        """The task as the agent is told it: with ``hints`` the instruction ends with the success hint."""
        if not hints:
            return self
        told = self.model_copy(update={"instruction": f"{self.instruction}\n\nSuccess hint: {self.success_hint()}"})
        told.source_dir = self.source_dir
        return told

    def step_budget(self, budget: int | None = None) -> int:
        """The step budget of an episode of this task: the run's ``budget`` when given, else the task's own.

        The one place a run-wide budget (``--budget``) and a task's budget are resolved.
        """
        return budget or self.budget

    def reference_steps(self) -> list[Action]:
        """The reference solution as it is played: it ends with ``done`` when it ends without a control action."""
        actions = list(self.reference)
        if not actions[-1].is_control:
            actions.append(Action(action_type="done"))
        return actions

    def options_for(self, app: str) -> dict[str, Any]:
        """Adapter options the task grants ``app`` (e.g. allow_code); none by default."""
        return dict(self.setup.options.get(app, {}))

    def document_for(self, app: str) -> str | None:
        """The workspace file the app's adapter opens: ``setup.open`` or the first file it handles."""
        if app in self.setup.open:
            return self.setup.open[app]
        from asil.plugins import adapter_class

        extensions = adapter_class(app).extensions
        for item in self.setup.files:
            if Path(item.path).suffix.lower() in extensions:
                return item.path
        return None
