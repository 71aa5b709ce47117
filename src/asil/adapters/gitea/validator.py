"""The independent raw validator for Gitea tasks: a second read path beside the checkpoint readers.

It re-reads the episode repository with its own plain ``urllib`` GETs (sharing no code with the
adapter's client or checkpoint readers) and judges each checkpoint from the raw JSON. Without a
configured, answering server, or with anything unexpected in the answers, the verdict is False
(fail closed): on a machine with no Gitea every Gitea checkpoint fails here.
"""

from __future__ import annotations

import json
import os
import urllib.parse
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

TIMEOUT_S = 10.0
PAGE = 50


class RawGiteaError(Exception):
    """The answer cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one Gitea checkpoint read straight from the API; False when in doubt."""
    try:
        actual = _actual(cp, _Api.for_workspace(workspace))
    except (RawGiteaError, OSError, KeyError, ValueError, TypeError, IndexError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


class _Api:
    def __init__(self, url: str, token: str, repo: str):
        self.url, self.token = url.rstrip("/"), token
        owner, name = repo.split("/")
        self.repo = f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}"

    @classmethod
    def for_workspace(cls, workspace: Workspace) -> _Api:
        record_path = Path(workspace.root, ".asil", "gitea-episode.json")
        if not record_path.is_file():
            raise RawGiteaError("no episode repository recorded")
        record = json.loads(record_path.read_text(encoding="utf-8"))
        url, token = os.environ.get("ASIL_GITEA_URL", ""), os.environ.get("ASIL_GITEA_TOKEN", "")
        if not url or not token or url.rstrip("/") != str(record["url"]).rstrip("/"):
            raise RawGiteaError("no (or another) Gitea server is configured")
        return cls(url, token, str(record["repo"]))

    def get(self, path: str, **query: Any) -> Any:
        text = f"?{urllib.parse.urlencode(query)}" if query else ""
        request = urllib.request.Request(f"{self.url}/api/v1{self.repo}{path}{text}",
                                         headers={"Authorization": f"token {self.token}", "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:  # noqa: S310 (the configured server)
            return json.loads(reply.read().decode("utf-8"))

    def every(self, path: str, **query: Any) -> list[Any]:
        found: list[Any] = []
        page = 1
        while True:
            chunk = self.get(path, **query, page=page, limit=PAGE)
            if not isinstance(chunk, list):
                raise RawGiteaError(f"{path} is not a list")
            found += chunk
            if len(chunk) < PAGE:
                return found
            page += 1


def _one(items: list[dict[str, Any]], key: str, value: str) -> dict[str, Any]:
    hits = [item for item in items if item.get(key) == value]
    if len(hits) != 1:
        raise RawGiteaError(f"{len(hits)} items with {key} {value!r}")
    return hits[0]


def _thread(api: _Api, target: str, pulls: bool) -> dict[str, Any]:
    if target.startswith("#") and target[1:].isdigit():
        doc: dict[str, Any] = api.get(f"/{'pulls' if pulls else 'issues'}/{int(target[1:])}")
        if not pulls and doc.get("pull_request"):
            raise RawGiteaError("a pull request, not an issue")
        return doc
    items = api.every("/pulls", state="all") if pulls else api.every("/issues", state="all", type="issues")
    return _one(items, "title", target)


def _actual(cp: Checkpoint, api: _Api) -> Any:
    kind, target = cp.type.removeprefix("gitea_"), cp.target or ""
    if kind.startswith("issue_") and kind != "issue_count":
        issue = _thread(api, target, pulls=False)
        field = kind.removeprefix("issue_")
        if field == "labels":
            return sorted(label["name"] for label in issue["labels"] or [])
        if field == "milestone":
            return issue["milestone"]["title"] if issue.get("milestone") else None
        if field == "comments":
            return [c["body"] for c in api.every(f"/issues/{issue['number']}/comments")]
        return issue[field] if field != "body" else issue.get("body") or ""
    if kind == "issue_count":
        return len(api.every("/issues", state=target, type="issues"))
    if kind.startswith("pr_"):
        pull = _thread(api, target, pulls=True)
        return {"merged": bool(pull.get("merged")), "state": pull["state"],
                "branches": f"{pull['head']['ref']}->{pull['base']['ref']}"}[kind.removeprefix("pr_")]
    if kind.startswith("label_"):
        labels = {label["name"]: label for label in api.every("/labels")}
        if kind == "label_exists":
            return target in labels
        return "#" + labels[target]["color"].lstrip("#").lower()
    if kind.startswith("milestone_"):
        milestones = {m["title"]: m for m in api.every("/milestones", state="all")}
        if kind == "milestone_exists":
            return target in milestones
        if kind == "milestone_state":
            return milestones[target]["state"]
        due = milestones[target].get("due_on")
        return datetime.fromisoformat(due.replace("Z", "+00:00")).astimezone(UTC).date().isoformat() \
            if due else None
    if kind == "branch_exists":
        return target in {b["name"] for b in api.every("/branches")}
    if kind == "repo_description":
        return api.get("").get("description") or ""
    raise RawGiteaError(f"unknown checkpoint type {cp.type!r}")
