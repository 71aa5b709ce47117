"""Seed specs: the starting repository of a task, applied through the API by the adapter.

A seed file (``*.gitea``, JSON) names a repository and lists semantic function calls in the
adapter's own vocabulary (``create_label``, ``create_issue``, ``close_issue``, ``create_branch``,
``create_file``, ``open_pull_request``, ...). Each episode gets a fresh repository named
``<name>-<random suffix>`` under the token's user, so episodes never share state; issue and pull
request numbers follow the order of the calls (1, 2, 3, ...) exactly as on a new repository.
"""

from __future__ import annotations

import json
import secrets
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError

from asil.adapters.gitea import actions as act
from asil.adapters.gitea.plans import FUNCTIONS
from asil.adapters.params import Params
from asil.apps.gitea import RequestPlan
from asil.protocol import DocumentError, InvalidAction

SEED_SUFFIX = ".gitea"
RepoName = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.-]+$")]


class SeedRepository(Params):
    name: RepoName
    description: Annotated[str, Field(max_length=2048)] = ""
    default_branch: act.BranchName = "main"


class SeedCall(Params):
    function: str
    params: dict[str, Any] = Field(default_factory=dict)


class SeedSpec(Params):
    repository: SeedRepository
    calls: Annotated[list[SeedCall], Field(max_length=500)] = Field(default_factory=list)


def parse_seed(data: Any, where: str) -> SeedSpec:
    """A checked seed spec; DocumentError naming the first problem (unknown function, bad params)."""
    try:
        spec = SeedSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "seed"
        raise DocumentError(f"The Gitea seed {where} is wrong at {field!r}: {first['msg']}.",
                            hint="A seed is {\"repository\": {\"name\": ...}, \"calls\": [{\"function\": ..., "
                            "\"params\": {...}}]}.") from None
    for number, call in enumerate(spec.calls, start=1):
        if call.function not in FUNCTIONS:
            raise DocumentError(f"Call {number} of the Gitea seed {where} uses the unknown function {call.function!r}.",
                                hint=f"Functions: {', '.join(FUNCTIONS)}.")
        try:
            FUNCTIONS[call.function].parse(call.params)
        except InvalidAction as exc:
            raise DocumentError(f"Call {number} of the Gitea seed {where}: {exc.message}", hint=exc.hint) from None
    return spec


def read_seed(path: Path, document: str) -> SeedSpec:
    if not path.is_file():
        raise DocumentError(f"The Gitea seed file {document!r} does not exist.",
                            hint=f"Give a {SEED_SUFFIX} file (JSON seed spec), or no document to list repositories.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentError(f"The Gitea seed file {document!r} is not valid JSON ({exc}).",
                            hint="A seed is a JSON object with 'repository' and 'calls'.") from None
    return parse_seed(data, repr(document))


def live_tasks_root() -> Path:
    """The Gitea tasks (``asil tasks check --tasks-dir`` this folder): outside the built-in suites,
    because they need a live server."""
    return Path(str(resources.files("asil.tasks").joinpath("live")))


def episode_repo_name(spec: SeedSpec, suffix: str | None = None) -> str:
    """A fresh repository name for one episode: the seed's name plus a random suffix."""
    return f"{spec.repository.name}-{suffix or secrets.token_hex(4)}"[:100]


def plan_create_repo(spec: SeedSpec, name: str) -> RequestPlan:
    """``POST /user/repos`` for the episode repository (initialized, so the default branch exists)."""
    return RequestPlan("POST", "/user/repos", body={
        "name": name, "description": spec.repository.description, "private": False, "auto_init": True,
        "default_branch": spec.repository.default_branch, "readme": "Default"})
