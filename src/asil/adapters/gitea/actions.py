"""The Gitea action vocabulary: parameter models and the vocabulary (action types, examples and tips).

Every function acts on the adapter's current repository (the seeded one, or the one chosen with
``navigate``); issues and pull requests are named by number, labels and milestones by name/title,
so an action never needs a server-side id.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from asil.adapters.functions import Vocabulary
from asil.adapters.params import Params
from asil.adapters.params import parse_params as parse_params  # re-exported for the adapter

MAX_BATCH = 50
Number = Annotated[int, Field(ge=1, le=10_000_000, description="The issue or pull request number (#N).")]
Title = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^\x00-\x1f]*\S[^\x00-\x1f]*$")]
Body = Annotated[str, Field(max_length=65_535)]
LabelName = Annotated[str, Field(min_length=1, max_length=50, pattern=r"^[^\x00-\x1f,]*\S[^\x00-\x1f,]*$")]
Color = Annotated[str, Field(pattern=r"^#?[0-9a-fA-F]{6}$", description="Hex colour like '#d73a4a'.")]
Date = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$", description="YYYY-MM-DD")]
BAD_BRANCH = re.compile(r"\.\.|//|@\{|/\.|\.lock$|^[/.]|[/.]$")
BAD_PATH = re.compile(r"(^|/)\.\.(/|$)|^/|//")


def _git_branch(value: str) -> str:
    """git's rules for a branch name, in short: no '..', '//', '@{', '/.', no leading or trailing '/' or '.'."""
    if BAD_BRANCH.search(value):
        raise ValueError(f"{value!r} is not a valid git branch name")
    return value


def _repo_path(value: str) -> str:
    if BAD_PATH.search(value):
        raise ValueError(f"{value!r} is not a relative path inside the repository")
    return value


BranchName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x20~^:?*\[\\]+$",
                                  description="A git branch name."), AfterValidator(_git_branch)]
FilePath = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^\x00-\x1f\\]+$"),
                     AfterValidator(_repo_path)]


class _Params(Params):
    """Strict parameters: unknown fields and type coercion are refused."""


class CreateIssue(_Params):
    title: Title
    body: Body = ""
    labels: Annotated[list[LabelName], Field(max_length=20)] = Field(default_factory=list,
                                                                     description="Names of existing labels.")
    milestone: Title | None = Field(None, description="Title of an existing milestone.")


class IssueOnly(_Params):
    number: Number


class EditIssue(_Params):
    number: Number
    title: Title | None = None
    body: Body | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> EditIssue:
        if self.title is None and self.body is None:
            raise ValueError("give a new title and/or body")
        return self


class CommentIssue(_Params):
    number: Number
    body: Annotated[str, Field(min_length=1, max_length=65_535)]


class AddLabels(_Params):
    number: Number
    labels: Annotated[list[LabelName], Field(min_length=1, max_length=20)]


class RemoveLabel(_Params):
    number: Number
    label: LabelName


class SetMilestone(_Params):
    number: Number
    milestone: Title | None = Field(description="A milestone title, or null to clear the milestone.")


class CreateLabel(_Params):
    name: LabelName
    color: Color
    description: Annotated[str, Field(max_length=200)] = ""


class LabelOnly(_Params):
    name: LabelName


class CreateMilestone(_Params):
    title: Title
    description: Body = ""
    due_on: Date | None = None


class MilestoneOnly(_Params):
    title: Title


class CreateBranch(_Params):
    name: BranchName
    from_ref: BranchName | None = Field(None, description="Branch to start from; the default branch when omitted.")


class BranchOnly(_Params):
    name: BranchName


class CreateFile(_Params):
    path: FilePath
    content: Annotated[str, Field(max_length=1_000_000)]
    branch: BranchName | None = Field(None, description="Branch to commit to; the default branch when omitted.")
    message: Title = "Add file"


class OpenPullRequest(_Params):
    title: Title
    head: BranchName
    base: BranchName | None = Field(None, description="Target branch; the default branch when omitted.")
    body: Body = ""


class MergePullRequest(_Params):
    number: Number
    style: Literal["merge", "rebase", "squash"] = "merge"
    message: Body | None = None
    delete_branch: bool = Field(False, description="Delete the head branch after merging.")


class EditRepo(_Params):
    description: Annotated[str, Field(max_length=2048)] | None = None
    website: Annotated[str, Field(max_length=1024, pattern=r"^(https?://\S+)?$")] | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> EditRepo:
        if self.description is None and self.website is None:
            raise ValueError("give a new description and/or website")
        return self


class ApiCall(_Params):
    method: Literal["GET", "POST", "PATCH", "PUT", "DELETE"]
    path: Annotated[str, Field(min_length=2, max_length=500, pattern=r"^/[^\x00-\x20?#]*$",
                               description="A documented v1 path under /api/v1, e.g. /repos/{owner}/{repo}/labels")]
    query: dict[str, str | int] = Field(default_factory=dict)
    body: dict[str, Any] | None = None
    destructive: bool = Field(False, description="Must be true for routes that delete or merge: they cannot "
                              "be undone.")


class Navigate(_Params):
    view: Literal["repository", "issues", "pulls", "branches", "labels", "milestones", "repositories"] | None = None
    offset: Annotated[int, Field(ge=0)] | None = None
    limit: Annotated[int, Field(ge=1, le=50)] | None = None


# The functions themselves are declared with their planners, in plans.FUNCTIONS.
VOCABULARY = Vocabulary(
    app="gitea",
    action_types=("invoke_function", "api_call", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name (what it acts on goes in params); api_call: "
    "'METHOD /path' (informational, params carry method/path/query/body); navigate: a view name or none",
    navigate_params=Navigate,
    batch_members=("invoke_function",),
    batch_hint="Put only invoke_function actions that can be undone in a batch.",
    max_batch=MAX_BATCH,
    examples=[
        {"action_type": "invoke_function", "target": "create_label",
         "params": {"name": "needs-triage", "color": "#e4e669", "description": "Not looked at yet"}},
        {"action_type": "invoke_function", "target": "create_milestone",
         "params": {"title": "v1.0", "description": "First release", "due_on": "2030-01-31"}},
        {"action_type": "invoke_function", "target": "create_issue",
         "params": {"title": "Crash on empty input", "body": "Steps: ...", "labels": ["needs-triage"],
                    "milestone": "v1.0"}},
        {"action_type": "invoke_function", "target": "comment_issue", "params": {"number": 1, "body": "Confirmed."}},
        {"action_type": "invoke_function", "target": "close_issue", "params": {"number": 1}},
        {"action_type": "invoke_function", "target": "create_branch", "params": {"name": "feature/docs"}},
        {"action_type": "invoke_function", "target": "create_file",
         "params": {"path": "docs/usage.md", "content": "# Usage\n", "branch": "feature/docs",
                    "message": "Add usage notes"}},
        {"action_type": "invoke_function", "target": "open_pull_request",
         "params": {"title": "Add usage notes", "head": "feature/docs"}},
        {"action_type": "invoke_function", "target": "edit_repo", "params": {"description": "A small demo repository"}},
        {"action_type": "api_call", "target": "GET /repos/{owner}/{repo}/labels",
         "params": {"method": "GET", "path": "/repos/{owner}/{repo}/labels"}},
        {"action_type": "navigate", "params": {"view": "issues", "offset": 0, "limit": 20}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "create_label", "params": {"name": "docs", "color": "#0075ca"}},
            {"action_type": "invoke_function", "target": "add_labels", "params": {"number": 1, "labels": ["docs"]}}]}},
    ],
    tips=[
        "Element ids are stable resource ids: 'repo:OWNER/NAME', 'issue:OWNER/NAME#3', 'pr:OWNER/NAME#4', "
        "'branch:OWNER/NAME:main', 'label:12', 'milestone:5'. Actions name issues and pull requests by number "
        "(params.number), labels by name and milestones by title.",
        "Issues and pull requests share one number sequence in a repository.",
        "The observation shows one view at a time (repository overview, issues, pulls, branches, labels, "
        "milestones); navigate with params.view/offset/limit to page through long lists.",
        "delete_label, delete_branch and merge_pull_request are destructive (flagged in the schema): they cannot "
        "be undone and are not allowed inside a batch.",
        "A batch is atomic: its actions are checked first, and if one fails the ones already done are undone "
        "(a created issue is deleted; Gitea does not reuse its number). open_pull_request, create_file, "
        "api_call and the destructive functions cannot be undone, so they cannot be in a batch.",
        "api_call reaches documented v1 paths of the current repository only, e.g. "
        "{\"method\": \"PATCH\", \"path\": \"/repos/{owner}/{repo}/issues/2\", \"body\": {\"title\": \"...\"}}; "
        "'{owner}/{repo}' is filled in. Bodies are checked like the functions' params.",
    ],
)
