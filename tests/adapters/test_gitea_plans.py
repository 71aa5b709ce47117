"""Gitea without a server: the schema, parameter validation, and the HTTP requests each action plans.

Request plans are data (method, path, query, body); these tests hold them against Gitea's
documented v1 API. Nothing here talks to a server.
"""

from __future__ import annotations

import base64

import pytest

from asil.adapters.gitea import actions as act
from asil.adapters.gitea.adapter import GiteaAdapter
from asil.adapters.gitea.plans import FUNCTIONS, RepoIndex, build_index, issue_facts, plan_function
from asil.adapters.gitea.routes import ROUTES, check_api_call, plan_api_call
from asil.adapters.gitea.seed import episode_repo_name, parse_seed, plan_create_repo
from asil.apps.gitea import RequestPlan
from asil.protocol import DocumentError, InvalidAction
from tests.adapters.gitea_docs import document

BASE = "/repos/alice/tracker-3f2a"


@pytest.fixture
def index() -> RepoIndex:
    issues = document("issues") + [document("issue_4_pull")]
    return build_index(document("repository"), document("labels"), document("milestones"), document("branches"),
                       issues)


def plan(name: str, params: dict[str, object], index: RepoIndex) -> list[RequestPlan]:
    return plan_function(name, act.parse_params(FUNCTIONS[name].params, params, name), index)


def test_every_function_has_a_planner_and_destructive_ones_are_flagged() -> None:
    assert all(function.handler is not None for function in FUNCTIONS.values())
    schema = GiteaAdapter.action_schema()
    flagged = {name for name, spec in schema.functions.items() if spec.destructive}
    assert flagged == {"delete_label", "delete_branch", "merge_pull_request"}
    for name in flagged:  # nothing destructive can be undone, so none may sit in a batch
        assert FUNCTIONS[name].require_handler().undo is None
    assert schema.examples and schema.tips


def test_the_index_resolves_names_from_response_documents(index: RepoIndex) -> None:
    assert index.full_name == "alice/tracker-3f2a" and index.default_branch == "main"
    assert index.labels == {"bug": 11, "enhancement": 12, "docs": 13}
    assert index.milestones["v0.9"] == {"id": 4, "state": "closed"}
    assert index.branches == {"main", "feature/login"}
    assert index.issue(4).is_pull and not index.issue(1).is_pull
    assert index.issue(1).labels == ["bug"] and index.issue(1).milestone == "v1.0"
    facts = issue_facts(document("created_issue"))
    assert facts.number == 6 and facts.state == "open"


@pytest.mark.parametrize(("name", "params", "expected"), [
    ("create_issue", {"title": "Crash", "body": "b", "labels": ["bug", "docs"], "milestone": "v1.0"},
     RequestPlan("POST", f"{BASE}/issues", body={"title": "Crash", "body": "b", "labels": [11, 13], "milestone": 5})),
    ("edit_issue", {"number": 1, "title": "Crash on empty file"},
     RequestPlan("PATCH", f"{BASE}/issues/1", body={"title": "Crash on empty file"})),
    ("close_issue", {"number": 1}, RequestPlan("PATCH", f"{BASE}/issues/1", body={"state": "closed"})),
    ("reopen_issue", {"number": 2}, RequestPlan("PATCH", f"{BASE}/issues/2", body={"state": "open"})),
    ("comment_issue", {"number": 3, "body": "Soon."},
     RequestPlan("POST", f"{BASE}/issues/3/comments", body={"body": "Soon."})),
    ("add_labels", {"number": 3, "labels": ["enhancement", "enhancement"]},
     RequestPlan("POST", f"{BASE}/issues/3/labels", body={"labels": [12]})),
    ("remove_label", {"number": 1, "label": "bug"}, RequestPlan("DELETE", f"{BASE}/issues/1/labels/11")),
    ("set_milestone", {"number": 3, "milestone": "v1.0"},
     RequestPlan("PATCH", f"{BASE}/issues/3", body={"milestone": 5})),
    ("set_milestone", {"number": 1, "milestone": None},
     RequestPlan("PATCH", f"{BASE}/issues/1", body={"milestone": 0})),
    ("create_label", {"name": "wontfix", "color": "FFFFFF"},
     RequestPlan("POST", f"{BASE}/labels", body={"name": "wontfix", "color": "#ffffff", "description": ""})),
    ("delete_label", {"name": "docs"}, RequestPlan("DELETE", f"{BASE}/labels/13")),
    ("create_milestone", {"title": "v2.0", "due_on": "2031-06-30"},
     RequestPlan("POST", f"{BASE}/milestones",
                 body={"title": "v2.0", "description": "", "due_on": "2031-06-30T23:59:59Z"})),
    ("close_milestone", {"title": "v1.0"}, RequestPlan("PATCH", f"{BASE}/milestones/5", body={"state": "closed"})),
    ("create_branch", {"name": "release/1.0"},
     RequestPlan("POST", f"{BASE}/branches",
                 body={"new_branch_name": "release/1.0", "old_ref_name": "main", "old_branch_name": "main"})),
    ("delete_branch", {"name": "feature/login"}, RequestPlan("DELETE", f"{BASE}/branches/feature%2Flogin")),
    ("open_pull_request", {"title": "Login", "head": "feature/login"},
     RequestPlan("POST", f"{BASE}/pulls", body={"title": "Login", "head": "feature/login", "base": "main", "body": ""})),
    ("merge_pull_request", {"number": 4, "style": "squash"},
     RequestPlan("POST", f"{BASE}/pulls/4/merge", body={"Do": "squash", "delete_branch_after_merge": False})),
    ("edit_repo", {"description": "New text"}, RequestPlan("PATCH", BASE, body={"description": "New text"})),
])
def test_functions_plan_the_documented_requests(name: str, params: dict[str, object], expected: RequestPlan,
                                                index: RepoIndex) -> None:
    assert plan(name, params, index) == [expected]


def test_create_file_sends_base64_content_to_the_contents_endpoint(index: RepoIndex) -> None:
    (request,) = plan("create_file", {"path": "docs/a b.md", "content": "héllo\n", "branch": "feature/login"}, index)
    assert (request.method, request.path) == ("POST", f"{BASE}/contents/docs/a%20b.md")
    assert base64.b64decode(request.body["content"]).decode("utf-8") == "héllo\n"
    assert request.body["branch"] == "feature/login"


def test_request_urls_carry_the_api_prefix_and_sorted_query() -> None:
    request = RequestPlan("GET", f"{BASE}/issues", {"type": "issues", "state": "all"}).with_query(page=2, limit=20)
    assert request.url("http://git.local:3000/") == (
        "http://git.local:3000/api/v1/repos/alice/tracker-3f2a/issues?limit=20&page=2&state=all&type=issues")


@pytest.mark.parametrize(("name", "params", "fragment"), [
    ("close_issue", {"number": 99}, "no issue or pull request #99"),
    ("close_issue", {"number": 2}, "already closed"),
    ("reopen_issue", {"number": 1}, "already open"),
    ("add_labels", {"number": 1, "labels": ["nope"]}, "no label 'nope'"),
    ("remove_label", {"number": 3, "label": "bug"}, "does not have the label"),
    ("set_milestone", {"number": 1, "milestone": "v9"}, "no milestone 'v9'"),
    ("create_label", {"name": "bug", "color": "#000000"}, "already exists"),
    ("create_milestone", {"title": "v1.0"}, "already exists"),
    ("close_milestone", {"title": "v0.9"}, "already closed"),
    ("create_branch", {"name": "main"}, "already exists"),
    ("create_branch", {"name": "x", "from_ref": "nope"}, "no branch 'nope'"),
    ("delete_branch", {"name": "main"}, "default branch"),
    ("open_pull_request", {"title": "t", "head": "main"}, "two different branches"),
    ("merge_pull_request", {"number": 1}, "is an issue, not a pull request"),
])
def test_references_to_missing_or_wrong_state_are_invalid_before_any_request(
        name: str, params: dict[str, object], fragment: str, index: RepoIndex) -> None:
    with pytest.raises(InvalidAction) as caught:
        plan(name, params, index)
    assert fragment in caught.value.message and caught.value.hint


@pytest.mark.parametrize(("name", "params", "fragment"), [
    ("create_issue", {}, "needs the parameter 'title'"),
    ("create_issue", {"title": "   "}, "title"),
    ("create_issue", {"title": "t", "priority": 1}, "does not take the parameter 'priority'"),
    ("close_issue", {"number": "1"}, "number"),
    ("close_issue", {"number": 0}, "number"),
    ("create_label", {"name": "x", "color": "red"}, "color"),
    ("create_branch", {"name": "bad..name"}, "not a valid git branch name"),
    ("create_branch", {"name": "has space"}, "name"),
    ("create_file", {"path": "../escape.txt", "content": ""}, "not a relative path"),
    ("create_milestone", {"title": "m", "due_on": "2030-13-01"}, "due_on"),
    ("merge_pull_request", {"number": 4, "style": "octopus"}, "style"),
    ("edit_issue", {"number": 1}, "give a new title and/or body"),
    ("edit_repo", {"website": "ftp://x"}, "website"),
])
def test_params_are_validated_against_the_schema(name: str, params: dict[str, object], fragment: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        act.parse_params(FUNCTIONS[name].params, params, name)
    assert fragment in caught.value.message, caught.value.message
    assert caught.value.message.endswith(".") and caught.value.hint


def test_undo_plans_restore_the_state_before(index: RepoIndex) -> None:
    def undo(name: str, params: dict[str, object], answer: object = None) -> list[RequestPlan]:
        parsed = act.parse_params(FUNCTIONS[name].params, params, name)
        reverse = FUNCTIONS[name].require_handler().undo
        assert reverse is not None
        return reverse(parsed, index, answer)

    assert undo("create_issue", {"title": "New bug"}, document("created_issue")) == [
        RequestPlan("DELETE", f"{BASE}/issues/6")]
    assert undo("create_label", {"name": "needs-triage", "color": "#e4e669"}, document("created_label")) == [
        RequestPlan("DELETE", f"{BASE}/labels/14")]
    assert undo("comment_issue", {"number": 1, "body": "Confirmed."}, document("created_comment")) == [
        RequestPlan("DELETE", f"{BASE}/issues/comments/302")]
    assert undo("close_issue", {"number": 1}) == [RequestPlan("PATCH", f"{BASE}/issues/1", body={"state": "open"})]
    # only the labels the issue did not have before are taken off again
    assert undo("add_labels", {"number": 1, "labels": ["bug", "docs"]}) == [
        RequestPlan("DELETE", f"{BASE}/issues/1/labels/13")]
    assert undo("set_milestone", {"number": 1, "milestone": None}) == [
        RequestPlan("PATCH", f"{BASE}/issues/1", body={"milestone": 5})]
    assert undo("edit_issue", {"number": 1, "title": "x"}) == [
        RequestPlan("PATCH", f"{BASE}/issues/1", body={"title": "Crash on empty input",
                                                       "body": "Steps: run with an empty file."})]
    assert undo("edit_repo", {"description": "x"}) == [
        RequestPlan("PATCH", BASE, body={"description": "Issue tracker for the demo app", "website": ""})]
    assert undo("create_branch", {"name": "a/b"}) == [RequestPlan("DELETE", f"{BASE}/branches/a%2Fb")]


def test_api_call_reaches_documented_routes_of_the_current_repository_only() -> None:
    request, route = plan_api_call({"method": "PATCH", "path": "/repos/{owner}/{repo}/issues/2",
                                    "body": {"title": "Renamed"}}, "alice/tracker-3f2a")
    assert request == RequestPlan("PATCH", f"{BASE}/issues/2", body={"title": "Renamed"})
    assert not route.destructive
    request, _ = plan_api_call({"method": "GET", "path": "/api/v1/repos/alice/tracker-3f2a/labels",
                                "query": {"page": 1}}, "alice/tracker-3f2a")
    assert request == RequestPlan("GET", f"{BASE}/labels", {"page": 1})
    assert all(r.template.startswith(("/repos/{repo}", "/user", "/version")) for r in ROUTES)


@pytest.mark.parametrize(("params", "fragment"), [
    ({"method": "GET", "path": "/admin/users"}, "not one of the documented v1 routes"),
    ({"method": "DELETE", "path": "/repos/{owner}/{repo}"}, "not one of the documented v1 routes"),
    ({"method": "GET", "path": "/repos/bob/secret/issues"}, "only reach the current repository"),
    ({"method": "POST", "path": "/repos/{owner}/{repo}/labels", "body": {"name": "x", "color": "nope"}}, "color"),
    ({"method": "POST", "path": "/repos/{owner}/{repo}/labels", "body": {"name": "x", "color": "#aaaaaa",
                                                                        "evil": 1}}, "does not take"),
    ({"method": "GET", "path": "/repos/{owner}/{repo}/labels", "body": {}}, "takes no body"),
    ({"method": "DELETE", "path": "/repos/{owner}/{repo}/labels/3"}, "needs params.destructive"),
    ({"method": "POST", "path": "/repos/{owner}/{repo}/pulls/4/merge", "body": {"Do": "merge"}}, "destructive"),
    ({"method": "TRACE", "path": "/version"}, "method"),
    ({"method": "GET", "path": "/repos/{owner}/{repo}/branches/.."}, "'..' segments"),
])
def test_api_call_refuses_what_is_outside_its_routes(params: dict[str, object], fragment: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        plan_api_call(params, "alice/tracker-3f2a")
    assert fragment in caught.value.message and caught.value.hint


def test_api_call_shape_is_checked_without_knowing_the_repository() -> None:
    check_api_call({"method": "GET", "path": "/repos/{owner}/{repo}/labels"})
    request, route = check_api_call({"method": "DELETE", "path": "/repos/{owner}/{repo}/labels/3",
                                     "destructive": True})
    assert route.destructive and request.method == "DELETE"


def test_seed_specs_are_checked_and_plan_a_fresh_initialized_repository() -> None:
    spec = parse_seed({"repository": {"name": "tracker", "description": "d"},
                       "calls": [{"function": "create_label", "params": {"name": "bug", "color": "#d73a4a"}}]}, "x")
    name = episode_repo_name(spec, "abcd1234")
    assert name == "tracker-abcd1234" and episode_repo_name(spec) != episode_repo_name(spec)
    assert plan_create_repo(spec, name) == RequestPlan("POST", "/user/repos", body={
        "name": name, "description": "d", "private": False, "auto_init": True, "default_branch": "main",
        "readme": "Default"})
    with pytest.raises(DocumentError, match="unknown function 'drop_table'"):
        parse_seed({"repository": {"name": "t"}, "calls": [{"function": "drop_table"}]}, "x")
    with pytest.raises(DocumentError, match="Call 1 .*color"):
        parse_seed({"repository": {"name": "t"}, "calls": [{"function": "create_label",
                                                            "params": {"name": "b", "color": "red"}}]}, "x")
    with pytest.raises(DocumentError, match="repository.name"):
        parse_seed({"repository": {"name": "a b"}}, "x")


def test_changed_ids_name_the_resources_an_action_touched(index: RepoIndex) -> None:
    from asil.adapters.gitea.adapter import changed_ids

    def ids(name: str, params: dict[str, object], answer: object = None) -> list[str]:
        return changed_ids(name, act.parse_params(FUNCTIONS[name].params, params, name), index, answer)

    repo = "alice/tracker-3f2a"
    assert ids("create_issue", {"title": "x"}, document("created_issue")) == [f"issue:{repo}#6"]
    assert ids("close_issue", {"number": 4}) == [f"pr:{repo}#4"]
    assert ids("comment_issue", {"number": 1, "body": "b"}, document("created_comment")) == [f"issue:{repo}#1"]
    assert ids("create_label", {"name": "n", "color": "#000000"}, document("created_label")) == ["label:14"]
    assert ids("delete_label", {"name": "docs"}) == ["label:13"]
    assert ids("close_milestone", {"title": "v1.0"}) == ["milestone:5"]
    assert ids("create_branch", {"name": "x/y"}) == [f"branch:{repo}:x/y"]
    assert ids("create_file", {"path": "a.txt", "content": ""}) == [f"branch:{repo}:main"]
    assert ids("edit_repo", {"description": "d"}) == [f"repo:{repo}"]
