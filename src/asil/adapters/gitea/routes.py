"""The ``api_call`` escape hatch: documented v1 routes of the current repository, bodies checked.

Only the routes below are reachable (the ones ASIL's observation and functions are built on, from
Gitea's v1 swagger). A path must name the adapter's current repository (``{owner}/{repo}`` is
filled in); a body is checked against a strict model of Gitea's documented option object before
any request; routes that delete or merge need ``destructive: true``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.gitea import actions as act
from asil.adapters.params import Params, parse_params
from asil.apps.gitea import RequestPlan
from asil.protocol import FunctionSpec, InvalidAction

Ids = Annotated[list[Annotated[int, Field(ge=1)]], Field(max_length=50)]


class EditRepoOption(Params):
    description: Annotated[str, Field(max_length=2048)] | None = None
    website: Annotated[str, Field(max_length=1024)] | None = None


class CreateBranchRepoOption(Params):
    new_branch_name: act.BranchName
    old_ref_name: act.BranchName | None = None
    old_branch_name: act.BranchName | None = None


class CreateIssueOption(Params):
    title: act.Title
    body: act.Body = ""
    labels: Ids = Field(default_factory=list)
    milestone: Annotated[int, Field(ge=0)] | None = None
    assignees: Annotated[list[str], Field(max_length=10)] = Field(default_factory=list)
    closed: bool = False


class EditIssueOption(Params):
    title: act.Title | None = None
    body: act.Body | None = None
    state: Literal["open", "closed"] | None = None
    milestone: Annotated[int, Field(ge=0)] | None = None


class CreateIssueCommentOption(Params):
    body: Annotated[str, Field(min_length=1, max_length=65_535)]


class IssueLabelsOption(Params):
    labels: Ids


class CreateLabelOption(Params):
    name: act.LabelName
    color: act.Color
    description: Annotated[str, Field(max_length=200)] = ""
    exclusive: bool = False


class EditLabelOption(Params):
    name: act.LabelName | None = None
    color: act.Color | None = None
    description: Annotated[str, Field(max_length=200)] | None = None


class CreateMilestoneOption(Params):
    title: act.Title
    description: act.Body = ""
    due_on: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")] | None = None
    state: Literal["open", "closed"] = "open"


class EditMilestoneOption(Params):
    title: act.Title | None = None
    description: act.Body | None = None
    due_on: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")] | None = None
    state: Literal["open", "closed"] | None = None


class CreatePullRequestOption(Params):
    title: act.Title
    head: act.BranchName
    base: act.BranchName
    body: act.Body = ""
    labels: Ids = Field(default_factory=list)
    milestone: Annotated[int, Field(ge=0)] | None = None


class MergePullRequestOption(Params):
    Do: Literal["merge", "rebase", "rebase-merge", "squash"]
    MergeTitleField: act.Title | None = None
    MergeMessageField: act.Body | None = None
    delete_branch_after_merge: bool = False


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # relative to /api/v1; {repo} is the current repository, {n}/{id} numbers, {branch} a name
    body: type[Params] | None = None
    destructive: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        text = re.escape(self.template)
        for name, part in (("repo", r"(?P<repo>[^/]+/[^/]+)"), ("n", r"\d+"), ("id", r"\d+"), ("branch", r"[^/]+")):
            text = text.replace(re.escape("{" + name + "}"), part)
        return re.compile(f"^{text}$")


R = "/repos/{repo}"
ROUTES = [
    Route("GET", "/version"), Route("GET", "/user"), Route("GET", "/user/repos"),
    Route("GET", R), Route("PATCH", R, EditRepoOption),
    Route("GET", R + "/branches"), Route("GET", R + "/branches/{branch}"),
    Route("POST", R + "/branches", CreateBranchRepoOption), Route("DELETE", R + "/branches/{branch}", destructive=True),
    Route("GET", R + "/issues"), Route("POST", R + "/issues", CreateIssueOption),
    Route("GET", R + "/issues/{n}"), Route("PATCH", R + "/issues/{n}", EditIssueOption),
    Route("GET", R + "/issues/{n}/comments"), Route("POST", R + "/issues/{n}/comments", CreateIssueCommentOption),
    Route("GET", R + "/issues/{n}/labels"), Route("POST", R + "/issues/{n}/labels", IssueLabelsOption),
    Route("PUT", R + "/issues/{n}/labels", IssueLabelsOption), Route("DELETE", R + "/issues/{n}/labels/{id}"),
    Route("GET", R + "/labels"), Route("POST", R + "/labels", CreateLabelOption),
    Route("GET", R + "/labels/{id}"), Route("PATCH", R + "/labels/{id}", EditLabelOption),
    Route("DELETE", R + "/labels/{id}", destructive=True),
    Route("GET", R + "/milestones"), Route("POST", R + "/milestones", CreateMilestoneOption),
    Route("GET", R + "/milestones/{id}"), Route("PATCH", R + "/milestones/{id}", EditMilestoneOption),
    Route("DELETE", R + "/milestones/{id}", destructive=True),
    Route("GET", R + "/pulls"), Route("POST", R + "/pulls", CreatePullRequestOption),
    Route("GET", R + "/pulls/{n}"), Route("GET", R + "/pulls/{n}/merge"),
    Route("POST", R + "/pulls/{n}/merge", MergePullRequestOption, destructive=True),
]
ROUTE_LIST = ", ".join(f"{r.method} {r.template}" for r in ROUTES)


def route_specs() -> dict[str, FunctionSpec]:
    """The routes as the schema publishes api_call's allowlist: 'METHOD /path', the body's schema, destructive."""
    return {f"{r.method} {r.template}": FunctionSpec(
        description=f"Gitea v1 {r.method} {r.template} (/repos/{{repo}} is the current repository).",
        params=r.body.model_json_schema() if r.body else {}, destructive=r.destructive) for r in ROUTES}


def check_api_call(raw: dict[str, Any], full_name: str | None = None) -> tuple[RequestPlan, Route]:
    """Route, body and consent of an ``api_call`` (no server needed); '{owner}/{repo}' -> ``full_name``."""
    call = parse_params(act.ApiCall, raw, "api_call")
    path = call.path.removeprefix("/api/v1")
    if any(part in (".", "..") for part in path.split("/")):
        raise InvalidAction(f"The api_call path {call.path!r} has '.' or '..' segments.",
                            hint="Write the route's path as documented, e.g. /repos/{owner}/{repo}/labels.",
                            code="unknown_route")
    if full_name is not None:
        path = path.replace("{owner}/{repo}", full_name)
    route, _ = _match(call.method, path)
    if route.body is None and call.body is not None:
        raise InvalidAction(f"{call.method} {route.template} takes no body.", hint="Leave out params.body.",
                            code="bad_params")
    body = None
    if route.body is not None:
        body = parse_params(route.body, call.body or {}, f"the body of {call.method} {route.template}")
        body = body.model_dump(exclude_none=True)
    if route.destructive and not call.destructive:
        raise InvalidAction(f"{call.method} {route.template} deletes or merges and cannot be undone; it needs "
                            "params.destructive set to true.", hint="Set \"destructive\": true to confirm.",
                            code="destructive_not_confirmed")
    return RequestPlan(call.method, path, dict(call.query), body), route


def plan_api_call(raw: dict[str, Any], full_name: str | None) -> tuple[RequestPlan, Route]:
    """The request an ``api_call`` makes: checked as above, and confined to the current repository."""
    plan, route = check_api_call(raw, full_name)
    found = route.pattern.match(plan.path)
    repo = found.group("repo") if found and "repo" in found.groupdict() else None
    if repo is not None and repo != full_name:
        current = full_name or "none (navigate to a repository first)"
        raise InvalidAction(f"api_call may only reach the current repository ({current}), not {repo!r}.",
                            hint="Write the path with '{owner}/{repo}'.", code="other_repository")
    return plan, route


def _match(method: str, path: str) -> tuple[Route, re.Match[str]]:
    for route in ROUTES:
        found = route.pattern.match(path)
        if found and route.method == method:
            return route, found
    raise InvalidAction(f"api_call does not reach {method} {path}; it is not one of the documented v1 routes "
                        "ASIL allows.", hint=f"Allowed: {ROUTE_LIST}.", code="unknown_route")
