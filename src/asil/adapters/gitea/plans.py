"""Planning the HTTP requests of each Gitea function, and of its undo, as pure data.

A planner turns checked params plus what is known of the repository (:class:`RepoIndex`) into
:class:`RequestPlan` objects; nothing here talks to a server, so every plan is unit-tested. The
adapter fills the index from the API, asks for plans, then sends them. Each function is declared
once, in :data:`FUNCTIONS`, with its planner and (when the change can be reversed exactly) its undo
planner as its handler.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.gitea import actions as act
from asil.adapters.params import Params
from asil.apps.gitea import RequestPlan
from asil.protocol import InvalidAction


@dataclass
class IssueFacts:
    """What a plan needs to know of one issue or pull request (from ``GET .../issues/{n}``)."""

    number: int
    title: str
    body: str
    state: str
    is_pull: bool
    labels: list[str]
    milestone: str | None
    merged: bool = False


@dataclass
class RepoIndex:
    """Names the plans resolve: labels by name, milestones by title, branches, fetched issues."""

    owner: str
    name: str
    default_branch: str = "main"
    labels: dict[str, int] = field(default_factory=dict)
    milestones: dict[str, dict[str, Any]] = field(default_factory=dict)  # title -> {"id", "state"}
    branches: set[str] = field(default_factory=set)
    issues: dict[int, IssueFacts] = field(default_factory=dict)
    description: str = ""
    website: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def base(self) -> str:
        return f"/repos/{quote(self.owner, safe='')}/{quote(self.name, safe='')}"

    def issue(self, number: int) -> IssueFacts:
        if number not in self.issues:
            raise InvalidAction(f"There is no issue or pull request #{number} in {self.full_name}.",
                                hint="Use a number shown in the issues or pulls view.", code="unknown_issue")
        return self.issues[number]

    def pull(self, number: int) -> IssueFacts:
        facts = self.issue(number)
        if not facts.is_pull:
            raise InvalidAction(f"#{number} in {self.full_name} is an issue, not a pull request.",
                                hint="Use a number from the pulls view.", code="not_a_pull_request")
        return facts

    def label_id(self, name: str) -> int:
        if name not in self.labels:
            known = ", ".join(sorted(self.labels)) or "none yet"
            raise InvalidAction(f"There is no label {name!r} in {self.full_name}.",
                                hint=f"Labels: {known}. Create it first with create_label.", code="unknown_label")
        return self.labels[name]

    def milestone_id(self, title: str) -> int:
        if title not in self.milestones:
            known = ", ".join(sorted(self.milestones)) or "none yet"
            raise InvalidAction(f"There is no milestone {title!r} in {self.full_name}.",
                                hint=f"Milestones: {known}. Create it first with create_milestone.",
                                code="unknown_milestone")
        return int(self.milestones[title]["id"])

    def branch(self, name: str | None) -> str:
        chosen = name or self.default_branch
        if chosen not in self.branches:
            raise InvalidAction(f"There is no branch {chosen!r} in {self.full_name}.",
                                hint=f"Branches: {', '.join(sorted(self.branches)) or 'none'}.", code="unknown_branch")
        return chosen


Plan = Callable[[Any, RepoIndex], list[RequestPlan]]
# Undo: (params, the index before the change, the server's answer to the last request) -> plans.
Undo = Callable[[Any, RepoIndex, Any], list[RequestPlan]]


@dataclass(frozen=True)
class Planner:
    """A Gitea function's handler: its plan and, when it can be reversed exactly, its undo."""

    plan: Plan
    undo: Undo | None = None  # None: cannot be reversed exactly, so not allowed in a batch


# Every function may be named in a batch (AppFunction.batch stays True): the adapter refuses a member
# whose planner has no undo itself, after checking its params, saying that it cannot be undone.
FUNCTIONS: FunctionTable[Planner] = FunctionTable("Gitea")


def planner(name: str, params: type[Params], description: str, *, undo: Undo | None = None,
            **options: Any) -> Callable[[Plan], Plan]:
    """Decorator: declare the function ``name``, with the decorated plan (and ``undo``) as its handler."""

    def wrap(plan: Plan) -> Plan:
        FUNCTIONS.add(name, AppFunction(name, params, description, handler=Planner(plan, undo), **options))
        return plan

    return wrap


def _delete_created(collection: str) -> Undo:
    """The undo of a create that Gitea answers with the new object's id: delete ``collection``/id."""

    def undo(p: Any, before: RepoIndex, answer: Any) -> list[RequestPlan]:
        return [RequestPlan("DELETE", f"{before.base}/{collection}/{int(answer['id'])}")]

    return undo


def _refuse_taken(kind: str, name: str, taken: Container[str], index: RepoIndex, hint: str) -> None:
    """Refuse to create a ``kind`` under a name the repository already uses."""
    if name in taken:
        raise InvalidAction(f"The {kind} {name!r} already exists in {index.full_name}.", hint=hint,
                            code=f"{kind}_exists")


def plan_function(name: str, params: Any, index: RepoIndex) -> list[RequestPlan]:
    """The requests that carry out function ``name`` (params already parsed); InvalidAction on bad refs."""
    return FUNCTIONS[name].require_handler().plan(params, index)


def _issue_path(index: RepoIndex, number: int, rest: str = "") -> str:
    return f"{index.base}/issues/{number}{rest}"


def _seg(text: str) -> str:
    return quote(text, safe="")


# ---------------------------------------------------------------- issues
def _undo_create_issue(p: act.CreateIssue, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("DELETE", _issue_path(before, int(answer["number"])))]


@planner("create_issue", act.CreateIssue, "Open a new issue, optionally with labels and a milestone.",
         undo=_undo_create_issue, acts_on="issues")
def plan_create_issue(p: act.CreateIssue, index: RepoIndex) -> list[RequestPlan]:
    body: dict[str, Any] = {"title": p.title, "body": p.body}
    if p.labels:
        body["labels"] = [index.label_id(name) for name in p.labels]
    if p.milestone is not None:
        body["milestone"] = index.milestone_id(p.milestone)
    return [RequestPlan("POST", f"{index.base}/issues", body=body)]


def _undo_edit_issue(p: act.EditIssue, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    old = before.issue(p.number)
    return [RequestPlan("PATCH", _issue_path(before, p.number), body={"title": old.title, "body": old.body})]


@planner("edit_issue", act.EditIssue, "Change an issue's or pull request's title and/or body.",
         undo=_undo_edit_issue, acts_on="issues")
def plan_edit_issue(p: act.EditIssue, index: RepoIndex) -> list[RequestPlan]:
    index.issue(p.number)
    body = {key: value for key, value in (("title", p.title), ("body", p.body)) if value is not None}
    return [RequestPlan("PATCH", _issue_path(index, p.number), body=body)]


def _set_state(state: str) -> Plan:
    def plan(p: act.IssueOnly, index: RepoIndex) -> list[RequestPlan]:
        facts = index.issue(p.number)
        if facts.merged:
            raise InvalidAction(f"Pull request #{p.number} is merged; it can no longer be closed or reopened.",
                                hint="Act on an open issue or pull request.", code="already_merged")
        if facts.state == state:
            kind = "pull request" if facts.is_pull else "issue"
            raise InvalidAction(f"The {kind} #{p.number} is already {state}.",
                                hint=f"Nothing to do; {'reopen' if state == 'closed' else 'close'} it instead?",
                                code=f"already_{state}")
        return [RequestPlan("PATCH", _issue_path(index, p.number), body={"state": state})]

    return plan


def _restore_state(p: act.IssueOnly, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("PATCH", _issue_path(before, p.number), body={"state": before.issue(p.number).state})]


planner("close_issue", act.IssueOnly, "Close an issue (or pull request without merging).", undo=_restore_state,
        acts_on="issues")(_set_state("closed"))
planner("reopen_issue", act.IssueOnly, "Reopen a closed issue.", undo=_restore_state, acts_on="issues")(
    _set_state("open"))


@planner("comment_issue", act.CommentIssue, "Add a comment to an issue or pull request.",
         undo=_delete_created("issues/comments"),
         acts_on="issues")
def plan_comment(p: act.CommentIssue, index: RepoIndex) -> list[RequestPlan]:
    index.issue(p.number)
    return [RequestPlan("POST", _issue_path(index, p.number, "/comments"), body={"body": p.body})]


def _undo_add_labels(p: act.AddLabels, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    had = set(before.issue(p.number).labels)
    return [RequestPlan("DELETE", _issue_path(before, p.number, f"/labels/{before.labels[name]}"))
            for name in dict.fromkeys(p.labels) if name not in had]


@planner("add_labels", act.AddLabels, "Add existing labels (by name) to an issue or pull request.",
         undo=_undo_add_labels, acts_on="issues")
def plan_add_labels(p: act.AddLabels, index: RepoIndex) -> list[RequestPlan]:
    index.issue(p.number)
    ids = [index.label_id(name) for name in dict.fromkeys(p.labels)]
    return [RequestPlan("POST", _issue_path(index, p.number, "/labels"), body={"labels": ids})]


def _undo_remove_label(p: act.RemoveLabel, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("POST", _issue_path(before, p.number, "/labels"), body={"labels": [before.labels[p.label]]})]


@planner("remove_label", act.RemoveLabel, "Take one label off an issue or pull request.",
         undo=_undo_remove_label, acts_on="issues")
def plan_remove_label(p: act.RemoveLabel, index: RepoIndex) -> list[RequestPlan]:
    label_id = index.label_id(p.label)
    if p.label not in index.issue(p.number).labels:
        raise InvalidAction(f"#{p.number} does not have the label {p.label!r}.",
                            hint=f"Its labels: {', '.join(index.issue(p.number).labels) or 'none'}.",
                            code="label_not_on_issue")
    return [RequestPlan("DELETE", _issue_path(index, p.number, f"/labels/{label_id}"))]


def _undo_set_milestone(p: act.SetMilestone, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    old = before.issue(p.number).milestone
    milestone = before.milestone_id(old) if old is not None else 0
    return [RequestPlan("PATCH", _issue_path(before, p.number), body={"milestone": milestone})]


@planner("set_milestone", act.SetMilestone, "Put an issue into a milestone (by title), or clear it with null.",
         undo=_undo_set_milestone, acts_on="issues")
def plan_set_milestone(p: act.SetMilestone, index: RepoIndex) -> list[RequestPlan]:
    index.issue(p.number)
    milestone = index.milestone_id(p.milestone) if p.milestone is not None else 0  # 0 clears it
    return [RequestPlan("PATCH", _issue_path(index, p.number), body={"milestone": milestone})]


# ---------------------------------------------------------------- labels and milestones
@planner("create_label", act.CreateLabel, "Create a repository label.", undo=_delete_created("labels"),
         acts_on="labels")
def plan_create_label(p: act.CreateLabel, index: RepoIndex) -> list[RequestPlan]:
    _refuse_taken("label", p.name, index.labels, index, "Use it as it is, or choose another name.")
    color = "#" + p.color.lstrip("#").lower()
    return [RequestPlan("POST", f"{index.base}/labels",
                        body={"name": p.name, "color": color, "description": p.description})]


@planner("delete_label", act.LabelOnly, "Delete a repository label (it disappears from every issue).",
         destructive=True, acts_on="labels")
def plan_delete_label(p: act.LabelOnly, index: RepoIndex) -> list[RequestPlan]:
    return [RequestPlan("DELETE", f"{index.base}/labels/{index.label_id(p.name)}")]


@planner("create_milestone", act.CreateMilestone, "Create a milestone, optionally with a due date.",
         undo=_delete_created("milestones"), acts_on="milestones")
def plan_create_milestone(p: act.CreateMilestone, index: RepoIndex) -> list[RequestPlan]:
    _refuse_taken("milestone", p.title, index.milestones, index, "Use it as it is, or choose another title.")
    body: dict[str, Any] = {"title": p.title, "description": p.description}
    if p.due_on is not None:
        body["due_on"] = f"{p.due_on}T23:59:59Z"
    return [RequestPlan("POST", f"{index.base}/milestones", body=body)]


def _undo_close_milestone(p: act.MilestoneOnly, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("PATCH", f"{before.base}/milestones/{before.milestone_id(p.title)}", body={"state": "open"})]


@planner("close_milestone", act.MilestoneOnly, "Close a milestone.", undo=_undo_close_milestone,
         acts_on="milestones")
def plan_close_milestone(p: act.MilestoneOnly, index: RepoIndex) -> list[RequestPlan]:
    milestone = index.milestone_id(p.title)
    if index.milestones[p.title].get("state") == "closed":
        raise InvalidAction(f"The milestone {p.title!r} is already closed.", hint="Nothing to do.",
                            code="already_closed")
    return [RequestPlan("PATCH", f"{index.base}/milestones/{milestone}", body={"state": "closed"})]


# ---------------------------------------------------------------- branches, files, pull requests
def _undo_create_branch(p: act.CreateBranch, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("DELETE", f"{before.base}/branches/{_seg(p.name)}")]


@planner("create_branch", act.CreateBranch, "Create a branch from another branch.", undo=_undo_create_branch,
         acts_on="branches")
def plan_create_branch(p: act.CreateBranch, index: RepoIndex) -> list[RequestPlan]:
    _refuse_taken("branch", p.name, index.branches, index, "Choose another name.")
    source = index.branch(p.from_ref)
    # old_ref_name is the current field; old_branch_name is what Gitea before 1.21 reads.
    return [RequestPlan("POST", f"{index.base}/branches",
                        body={"new_branch_name": p.name, "old_ref_name": source, "old_branch_name": source})]


@planner("delete_branch", act.BranchOnly, "Delete a branch (its unmerged commits are lost).", destructive=True,
         acts_on="branches")
def plan_delete_branch(p: act.BranchOnly, index: RepoIndex) -> list[RequestPlan]:
    index.branch(p.name)
    if p.name == index.default_branch:
        raise InvalidAction(f"{p.name!r} is the default branch of {index.full_name}; Gitea does not delete it.",
                            hint="Delete another branch.", code="default_branch")
    return [RequestPlan("DELETE", f"{index.base}/branches/{_seg(p.name)}")]


@planner("create_file", act.CreateFile, "Commit a new file to a branch.", acts_on="files")
def plan_create_file(p: act.CreateFile, index: RepoIndex) -> list[RequestPlan]:
    branch = index.branch(p.branch)
    content = base64.b64encode(p.content.encode("utf-8")).decode("ascii")
    path = "/".join(_seg(part) for part in p.path.split("/"))
    return [RequestPlan("POST", f"{index.base}/contents/{path}",
                        body={"content": content, "message": p.message, "branch": branch})]


@planner("open_pull_request", act.OpenPullRequest, "Open a pull request from head into base.", acts_on="pulls")
def plan_open_pull(p: act.OpenPullRequest, index: RepoIndex) -> list[RequestPlan]:
    head, base = index.branch(p.head), index.branch(p.base)
    if head == base:
        raise InvalidAction(f"A pull request needs two different branches, not {head!r} into itself.",
                            hint="Give head (your branch) and base (where it goes).", code="same_branch")
    return [RequestPlan("POST", f"{index.base}/pulls", body={"title": p.title, "head": head, "base": base,
                                                             "body": p.body})]


@planner("merge_pull_request", act.MergePullRequest, "Merge an open pull request (cannot be undone).",
         destructive=True, acts_on="pulls")
def plan_merge_pull(p: act.MergePullRequest, index: RepoIndex) -> list[RequestPlan]:
    facts = index.pull(p.number)
    if facts.merged or facts.state != "open":
        raise InvalidAction(f"Pull request #{p.number} is {'merged' if facts.merged else 'closed'}; only open pull "
                            "requests can be merged.", hint="Merge an open pull request.", code="not_open")
    body: dict[str, Any] = {"Do": p.style, "delete_branch_after_merge": p.delete_branch}
    if p.message is not None:
        body["MergeMessageField"] = p.message
    return [RequestPlan("POST", f"{index.base}/pulls/{p.number}/merge", body=body)]


# ---------------------------------------------------------------- the repository
def _undo_edit_repo(p: act.EditRepo, before: RepoIndex, answer: Any) -> list[RequestPlan]:
    return [RequestPlan("PATCH", before.base, body={"description": before.description, "website": before.website})]


@planner("edit_repo", act.EditRepo, "Change the repository's description and/or website.",
         undo=_undo_edit_repo, acts_on="repository")
def plan_edit_repo(p: act.EditRepo, index: RepoIndex) -> list[RequestPlan]:
    body = {key: value for key, value in (("description", p.description), ("website", p.website))
            if value is not None}
    return [RequestPlan("PATCH", index.base, body=body)]


def referenced_numbers(params: Any) -> list[int]:
    """Issue/PR numbers an action names (the adapter fetches their facts before planning)."""
    number = getattr(params, "number", None)
    return [number] if isinstance(number, int) else []



def issue_facts(doc: dict[str, Any]) -> IssueFacts:
    """Facts from an Issue document (``GET .../issues/{n}``; pull requests carry ``pull_request``)."""
    pull = doc.get("pull_request")
    milestone = doc.get("milestone")
    return IssueFacts(number=int(doc["number"]), title=str(doc.get("title") or ""), body=str(doc.get("body") or ""),
                      state=str(doc.get("state") or "open"), is_pull=isinstance(pull, dict),
                      labels=[str(label["name"]) for label in doc.get("labels") or []],
                      milestone=str(milestone["title"]) if isinstance(milestone, dict) else None,
                      merged=bool(pull.get("merged")) if isinstance(pull, dict) else False)


def build_index(repo: dict[str, Any], labels: list[dict[str, Any]], milestones: list[dict[str, Any]],
                branches: list[dict[str, Any]], issues: list[dict[str, Any]]) -> RepoIndex:
    """A RepoIndex from the API's Repository, Label, Milestone, Branch and Issue documents."""
    owner = repo.get("owner") or {}
    owner_login, _, name = str(repo["full_name"]).partition("/")
    return RepoIndex(
        owner=str(owner.get("login") or owner_login), name=str(repo.get("name") or name),
        default_branch=str(repo.get("default_branch") or "main"),
        labels={str(label["name"]): int(label["id"]) for label in labels},
        milestones={str(m["title"]): {"id": int(m["id"]), "state": m.get("state")} for m in milestones},
        branches={str(b["name"]) for b in branches},
        issues={int(doc["number"]): issue_facts(doc) for doc in issues},
        description=str(repo.get("description") or ""), website=str(repo.get("website") or ""),
    )
