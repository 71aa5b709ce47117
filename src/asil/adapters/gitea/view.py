"""Normalizing Gitea v1 API documents into ASIL elements and one windowed observation.

Pure functions over the JSON the API returns (Repository, Branch, Issue, PullRequest, Label,
Milestone objects), so they are tested on response documents without a server. Ids are stable
resource ids: ``repo:OWNER/NAME``, ``issue:OWNER/NAME#N``, ``pr:OWNER/NAME#N``,
``branch:OWNER/NAME:BRANCH``, ``label:ID``, ``milestone:ID``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 20
BODY_CHARS = 160  # an issue body longer than this is cut in the observation (the API has it whole)
MAX_LIMIT = 50  # Gitea's default MAX_RESPONSE_ITEMS: larger pages are cut by the server
VIEWS = ["repository", "issues", "pulls", "branches", "labels", "milestones", "repositories"]
ISSUE_ACTIONS = ["edit_issue", "close_issue", "reopen_issue", "comment_issue", "add_labels", "remove_label",
                 "set_milestone"]


def utc_date(stamp: Any) -> str | None:
    """The UTC calendar date of an RFC 3339 time (Gitea writes due dates in the server's time zone)."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp[:10]
    return (moment.astimezone(UTC) if moment.tzinfo else moment).date().isoformat()


def _login(user: Any) -> str | None:
    return user.get("login") if isinstance(user, dict) else None


def _cut(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= BODY_CHARS else text[:BODY_CHARS] + f"... ({len(text)} chars)"


def label_names(doc: dict[str, Any]) -> list[str]:
    return [str(label["name"]) for label in doc.get("labels") or []]


def milestone_title(doc: dict[str, Any]) -> str | None:
    milestone = doc.get("milestone")
    return str(milestone["title"]) if isinstance(milestone, dict) else None


def repo_element(repo: dict[str, Any]) -> Element:
    value = {"description": repo.get("description") or "", "website": repo.get("website") or "",
             "default_branch": repo.get("default_branch"), "private": bool(repo.get("private")),
             "open_issues": repo.get("open_issues_count", 0), "open_pulls": repo.get("open_pr_counter", 0)}
    return Element(id=f"repo:{repo['full_name']}", type="repository", label=repo["full_name"], value=value,
                   data_type="repository", actions=["edit_repo", "create_issue", "create_label", "create_milestone",
                                                    "create_branch", "create_file", "open_pull_request"],
                   meta={"id": repo.get("id"), "empty": bool(repo.get("empty")), "archived": bool(repo.get("archived")),
                         "html_url": repo.get("html_url"), "updated_at": repo.get("updated_at")})


def repo_summary_element(repo: dict[str, Any]) -> Element:
    """A repository in the 'repositories' list (no actions until it is the current one)."""
    return Element(id=f"repo:{repo['full_name']}", type="repository", label=repo["full_name"],
                   value={"description": repo.get("description") or "", "open_issues": repo.get("open_issues_count", 0)},
                   editable=False, data_type="repository", actions=["navigate"])


def issue_element(full_name: str, issue: dict[str, Any]) -> Element:
    value = {"title": issue["title"], "state": issue["state"], "labels": label_names(issue),
             "milestone": milestone_title(issue), "comments": issue.get("comments", 0)}
    meta = {"body": _cut(issue.get("body")), "author": _login(issue.get("user")),
            "assignees": [_login(a) for a in issue.get("assignees") or []],
            "created_at": issue.get("created_at"), "closed_at": issue.get("closed_at")}
    # The functions every issue takes are listed once, in environment.issue_actions.
    return Element(id=f"issue:{full_name}#{issue['number']}", type="issue", label=f"#{issue['number']} {issue['title']}",
                   value=value, data_type="issue", meta=meta)


def pull_element(full_name: str, pull: dict[str, Any]) -> Element:
    merged = bool(pull.get("merged"))
    value = {"title": pull["title"], "state": "merged" if merged else pull["state"], "merged": merged,
             "head": (pull.get("head") or {}).get("ref"), "base": (pull.get("base") or {}).get("ref"),
             "labels": label_names(pull), "milestone": milestone_title(pull)}
    meta = {"body": _cut(pull.get("body")), "author": _login(pull.get("user")), "mergeable": pull.get("mergeable"),
            "merged_at": pull.get("merged_at"), "merged_by": _login(pull.get("merged_by"))}
    actions = [] if merged else ["merge_pull_request"]
    return Element(id=f"pr:{full_name}#{pull['number']}", type="pull_request",
                   label=f"#{pull['number']} {pull['title']}", value=value, data_type="pull_request",
                   actions=actions, meta=meta)


def branch_element(full_name: str, branch: dict[str, Any], default_branch: str | None) -> Element:
    commit = branch.get("commit") or {}
    message = str(commit.get("message") or "").strip().splitlines()
    value = {"commit": str(commit.get("id") or "")[:12], "message": message[0] if message else "",
             "default": branch["name"] == default_branch}
    return Element(id=f"branch:{full_name}:{branch['name']}", type="branch", label=branch["name"], value=value,
                   data_type="branch", actions=[] if value["default"] else ["delete_branch", "open_pull_request"],
                   meta={"protected": bool(branch.get("protected"))})


def label_element(label: dict[str, Any]) -> Element:
    color = "#" + str(label.get("color") or "").lstrip("#").lower()
    return Element(id=f"label:{label['id']}", type="label", label=label["name"],
                   value={"name": label["name"], "color": color, "description": label.get("description") or ""},
                   data_type="label", actions=["delete_label", "add_labels"],
                   meta={"exclusive": bool(label.get("exclusive"))})


def milestone_element(milestone: dict[str, Any]) -> Element:
    value = {"title": milestone["title"], "state": milestone["state"], "open_issues": milestone.get("open_issues", 0),
             "closed_issues": milestone.get("closed_issues", 0), "due_on": utc_date(milestone.get("due_on"))}
    return Element(id=f"milestone:{milestone['id']}", type="milestone", label=milestone["title"], value=value,
                   data_type="milestone", actions=["close_milestone", "set_milestone"],
                   meta={"description": _cut(milestone.get("description"))})


def _list_elements(view: str, data: dict[str, Any], full_name: str, default_branch: str | None) -> list[Element]:
    makers = {
        "issues": lambda d: issue_element(full_name, d),
        "pulls": lambda d: pull_element(full_name, d),
        "branches": lambda d: branch_element(full_name, d, default_branch),
        "labels": label_element,
        "milestones": milestone_element,
    }
    return [makers[view](doc) for doc in data.get(view) or []]


def build_observation(data: dict[str, Any], *, view: str, offset: int, limit: int, step: int,
                      server: dict[str, Any]) -> Observation:
    """One observation from fetched documents.

    ``data`` holds ``repository`` (a Repository, or None when no repository is chosen), the lists
    fetched for the view (``issues``, ``pulls``, ``branches``, ``labels``, ``milestones`` or
    ``repositories``) and ``totals`` (list name -> total count, from ``X-Total-Count``).
    """
    repo = data.get("repository")
    totals: dict[str, int] = data.get("totals") or {}
    if repo is None:
        elements = [repo_summary_element(r) for r in data.get("repositories") or []]
        total = totals.get("repositories", len(elements))
        summary = (f"Gitea at {server.get('url')}: {total} repositories of {server.get('user') or 'this user'}; "
                   "navigate to one (target 'repo:OWNER/NAME') to work in it.")
        return _observation(elements, "repositories", None, offset, limit, total, step, server, summary, {})
    full_name, default_branch = repo["full_name"], repo.get("default_branch")
    paged = "issues" if view == "repository" else view
    elements = [repo_element(repo)]
    shown = ["labels", "milestones", "branches", "issues", "pulls"] if view == "repository" else [view]
    for name in shown:
        elements += _list_elements(name, data, full_name, default_branch)
    total = totals.get(paged, len(data.get(paged) or []))
    counts = ", ".join(f"{totals.get(n, len(data.get(n) or []))} {n}" for n in shown)
    summary = (f"Gitea repository {full_name} ({view} view): {counts}; default branch {default_branch}. "
               f"Description: {repo.get('description') or '(none)'}.")
    details = {"repository": full_name, "default_branch": default_branch}
    return _observation(elements, view, f"repo:{full_name}", offset, limit, total, step, server, summary, details)


def _observation(elements: list[Element], view: str, active: str | None, offset: int, limit: int, total: int,
                 step: int, server: dict[str, Any], summary: str, details: dict[str, Any]) -> Observation:
    return Observation(
        metadata=Metadata(app="gitea", source="service", step=step),
        app_state=AppState(view=view, active_document=active, document_path=None, dirty=False, details=details),
        elements=elements,
        environment={"gitea": server, "issue_actions": ISSUE_ACTIONS,
                     "element_ids": "repo:OWNER/NAME, issue:OWNER/NAME#N, pr:OWNER/NAME#N, branch:OWNER/NAME:BRANCH, "
                     "label:ID, milestone:ID"},
        navigation=Navigation(views=VIEWS if active else ["repositories"],
                              paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
