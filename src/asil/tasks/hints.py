"""Success hints: what a task's evaluator will check, in words, derived from its checkpoints.

The ASIL paper's main prompts carried evaluator-derived success hints; its matched comparisons ran
hint-off. A hint names each required checkpoint's kind, where it looks and how it compares — never
the expected value, which the instruction states when the agent needs it. How the episode should end
is named without saying whether done or infeasible is right.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asil.evaluate.checkpoints import Checkpoint

if TYPE_CHECKING:
    from asil.tasks.model import Task

# Generic checkpoint types read as sentences; an app's own types read as "<type words> of <target>".
GENERIC_WORDS = {
    "outcome": "how you end the episode (done, or infeasible when the task cannot be done)",
    "answer": "the answer you give when you finish",
    "file_exists": "that the file {target} exists",
    "file_absent": "that {target} no longer exists",
    "text_regex": "the text of {target}",
}
COMPARE_WORDS = {
    "exact": "exactly", "approx": "within a small tolerance", "normalized": "ignoring case and spacing",
    "regex": "against a pattern", "contains": "for the wanted content", "range": "within a range",
    "set": "as a set, in any order",
}


def describe(checkpoint: Checkpoint, app: str) -> str:
    """One checkpoint in words: its kind, where it looks, how it compares; no expected value."""
    if checkpoint.type in GENERIC_WORDS:
        return GENERIC_WORDS[checkpoint.type].format(target=checkpoint.target)
    words = checkpoint.type.replace("_", " ")
    where = f" of {checkpoint.target}" if checkpoint.target else ""
    document = f" in {checkpoint.document}" if checkpoint.document else ""
    compared = f", compared {COMPARE_WORDS[checkpoint.compare]}" if checkpoint.compare in COMPARE_WORDS else ""
    return f"the {words}{where}{document} ({checkpoint.app or app}){compared}"


def success_hint(task: Task) -> str:
    """The task's success hint: the required checkpoints of each success path, in words."""
    paths = [[describe(cp, task.apps[0]) for cp in path if cp.required] for path in task.evaluator.paths]
    sentences = ["; ".join(dict.fromkeys(parts)) for parts in paths if parts]
    if len(sentences) == 1:
        return f"The final state is checked for {sentences[0]}."
    listed = " ".join(f"({i}) {text}." for i, text in enumerate(sentences, start=1))
    return f"The final state passes if any one of these holds: {listed}"
