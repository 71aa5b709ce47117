"""The JSON Schemas of the contract models, committed in schemas/ (regenerate: python -m asil.contracts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import BaseModel

from asil.annotate.run import AnnotationRecord
from asil.protocol import Action, ActionResult, ActionSchema, Element, Observation
from asil.runner.results import RunRecord
from asil.runner.summary import BenchSummary
from asil.runner.trace import EpisodeResult, ModelCall, TraceLine
from asil.tasks.model import Task

MODELS: dict[str, type[BaseModel]] = {
    "observation": Observation,
    "element": Element,
    "action": Action,
    "action_result": ActionResult,
    "action_schema": ActionSchema,
    "task": Task,
    "trace_line": TraceLine,
    "model_call": ModelCall,
    "result": EpisodeResult,
    "summary": BenchSummary,
    "run": RunRecord,
    "annotations": AnnotationRecord,
}


def render() -> dict[str, str]:
    return {f"{name}.schema.json": json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
            for name, model in MODELS.items()}


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "schemas"
    folder.mkdir(exist_ok=True)
    for name, text in render().items():
        (folder / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(MODELS)} schemas to {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
