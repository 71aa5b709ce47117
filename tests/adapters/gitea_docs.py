"""Loading the Gitea response documents in gitea_fixtures/ (written from the documented v1 schema,
NOT recorded from a live server; see gitea_fixtures/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "gitea_fixtures"
PROVENANCE = "written from the documented v1 schema, NOT recorded from a live server"


def document(name: str) -> Any:
    """The ``body`` of fixture ``name`` (without .json)."""
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["body"]


def headers(name: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["headers"]
    return data


def repo_data(view: str = "repository") -> dict[str, Any]:
    """What the adapter fetches for ``view`` of alice/tracker-3f2a, as build_observation takes it."""
    names = ["labels", "milestones", "branches", "issues", "pulls"] if view == "repository" else [view]
    data: dict[str, Any] = {"repository": document("repository"), "totals": {}}
    for name in names:
        data[name] = document(name)
        data["totals"][name] = int(headers(name)["X-Total-Count"])
    return data
