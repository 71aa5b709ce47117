"""Checkpoint types that read the episode repository from the live Gitea API.

The repository is the one the adapter recorded in the workspace (``.asil/gitea-episode.json``);
the server and token come from ``ASIL_GITEA_URL`` / ``ASIL_GITEA_TOKEN``. Targets name an issue
or pull request by ``#N`` or by its exact title, a label by name, a milestone by title, a branch
by name. The readers are split from the transport (:class:`RepoReader` takes two fetch
functions), so the normalization is tested on response documents without a server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from asil.adapters.gitea.view import utc_date
from asil.apps.gitea import GiteaClient, GiteaError, RequestPlan, config_from
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, entry, require

FetchOne = Callable[[str], Any]
FetchAll = Callable[[str, dict[str, str]], list[Any]]


@dataclass
class RepoReader:
    """Reads one repository's facts through ``one(path)`` and ``every(path, query)`` (all pages)."""

    full_name: str
    one: FetchOne
    every: FetchAll

    @property
    def base(self) -> str:
        owner, _, name = self.full_name.partition("/")
        return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def _by_number_or_title(self, target: str, kind: str) -> dict[str, Any]:
        number = re.fullmatch(r"#(\d+)", target.strip())
        if number:
            path = "issues" if kind == "issues" else "pulls"
            doc: dict[str, Any] = self.one(f"{self.base}/{path}/{number.group(1)}")
            if kind == "issues" and doc.get("pull_request"):
                raise CheckpointUnreadable(f"{target} is a pull request, not an issue")
            return doc
        query = {"state": "all", "type": "issues"} if kind == "issues" else {"state": "all"}
        hits: list[dict[str, Any]] = [d for d in self.every(f"{self.base}/{kind}", query) if d.get("title") == target]
        if len(hits) != 1:
            raise CheckpointUnreadable(f"{len(hits)} {kind} are titled {target!r} (need exactly one)")
        return hits[0]

    def issue(self, target: str) -> dict[str, Any]:
        return self._by_number_or_title(target, "issues")

    def pull(self, target: str) -> dict[str, Any]:
        return self._by_number_or_title(target, "pulls")

    def labels(self) -> dict[str, dict[str, Any]]:
        return {str(label["name"]): label for label in self.every(f"{self.base}/labels", {})}

    def milestones(self) -> dict[str, dict[str, Any]]:
        return {str(m["title"]): m for m in self.every(f"{self.base}/milestones", {"state": "all"})}

    def branches(self) -> set[str]:
        return {str(b["name"]) for b in self.every(f"{self.base}/branches", {})}

    def comments(self, number: int) -> list[str]:
        return [str(c.get("body") or "") for c in self.every(f"{self.base}/issues/{number}/comments", {})]

    def repository(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.one(self.base)
        return doc


# What each checkpoint type reads, from a reader and the target (the pure part, tested on documents).
ACTUALS: dict[str, Callable[[RepoReader, str], Any]] = {
    "gitea_issue_state": lambda r, t: r.issue(t)["state"],
    "gitea_issue_title": lambda r, t: r.issue(t)["title"],
    "gitea_issue_body": lambda r, t: r.issue(t).get("body") or "",
    "gitea_issue_labels": lambda r, t: sorted(str(label["name"]) for label in r.issue(t).get("labels") or []),
    "gitea_issue_milestone": lambda r, t: (r.issue(t).get("milestone") or {}).get("title"),
    "gitea_issue_comments": lambda r, t: r.comments(int(r.issue(t)["number"])),
    "gitea_issue_count": lambda r, t: len(r.every(f"{r.base}/issues", {"state": t, "type": "issues"})),
    "gitea_label_exists": lambda r, t: t in r.labels(),
    "gitea_label_color": lambda r, t: _label_color(r, t),
    "gitea_milestone_exists": lambda r, t: t in r.milestones(),
    "gitea_milestone_state": lambda r, t: entry(r.milestones(), t, "milestone")["state"],
    "gitea_milestone_due": lambda r, t: utc_date(entry(r.milestones(), t, "milestone").get("due_on")),
    "gitea_branch_exists": lambda r, t: t in r.branches(),
    "gitea_pr_merged": lambda r, t: bool(r.pull(t).get("merged")),
    "gitea_pr_state": lambda r, t: r.pull(t)["state"],
    "gitea_pr_branches": lambda r, t: f"{r.pull(t)['head']['ref']}->{r.pull(t)['base']['ref']}",
    "gitea_repo_description": lambda r, t: r.repository().get("description") or "",
}
# Types whose target is optional (the repository itself).
NO_TARGET = ("gitea_repo_description",)


def _label_color(reader: RepoReader, name: str) -> str:
    return "#" + str(entry(reader.labels(), name, "label")["color"]).lstrip("#").lower()


def live_reader(ctx: EvalContext) -> RepoReader:
    """A reader for the episode repository on the configured server; CheckpointUnreadable without one."""
    from asil.adapters.gitea.adapter import episode_record

    record = episode_record(ctx.workspace)
    if record is None:
        raise CheckpointUnreadable("no Gitea episode repository is recorded in this workspace (it was never seeded)")
    config = config_from(None)
    if config is None:
        raise CheckpointUnreadable("no Gitea server is configured (ASIL_GITEA_URL / ASIL_GITEA_TOKEN)")
    if config.url != str(record.get("url", "")).rstrip("/"):
        raise CheckpointUnreadable(f"the episode ran on {record.get('url')}, but {config.url} is configured now")
    client = GiteaClient(config)
    return RepoReader(str(record["repo"]), lambda path: client.json(RequestPlan("GET", path)),
                      lambda path, query: client.list_all(RequestPlan("GET", path, query)))


def read_actual(reader: RepoReader, cp: Checkpoint) -> Any:
    target = cp.target or "" if cp.type in NO_TARGET else require(cp.target, "target")
    try:
        return ACTUALS[cp.type](reader, target)
    except GiteaError as exc:
        raise CheckpointUnreadable(exc.message) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointUnreadable(f"the Gitea answer lacks {exc}") from None


def _register(name: str) -> None:
    default = "set" if name == "gitea_issue_labels" else "exact"

    @checkpoint_type(name, default_compare=default)
    def read(ctx: EvalContext, cp: Checkpoint) -> Any:
        return read_actual(live_reader(ctx), cp)

    read.__doc__ = f"{name}: read from the live Gitea API (target: #N or title, label name, milestone title, branch)."


for _name in ACTUALS:
    _register(_name)
