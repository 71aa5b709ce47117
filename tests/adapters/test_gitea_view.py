"""Gitea observation and checkpoint normalization, tested on response documents.

The documents in gitea_fixtures/ were written from Gitea's documented v1 schema, NOT recorded
from a live server (see its README); these tests check ASIL's normalization of such documents.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from asil.adapters.gitea.checkpoints import ACTUALS, RepoReader, read_actual
from asil.adapters.gitea.validator import RawGiteaError, _Api
from asil.adapters.gitea.validator import _actual as raw_actual
from asil.adapters.gitea.view import BODY_CHARS, MAX_LIMIT, build_observation, utc_date
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, CheckpointUnreadable
from asil.llm.base import estimate_tokens
from tests.adapters.gitea_docs import FIXTURES, PROVENANCE, document, repo_data

SERVER = {"url": "http://127.0.0.1:3000", "version": "1.21.11", "user": None}


def test_every_fixture_says_it_was_written_not_recorded() -> None:
    files = sorted(FIXTURES.glob("*.json"))
    assert len(files) >= 10
    for path in files:
        assert json.loads(path.read_text())["_provenance"] == PROVENANCE, path.name
    assert "NOT recorded from a live Gitea server" in (FIXTURES / "README.md").read_text()


def test_repository_view_has_stable_resource_ids() -> None:
    observation = build_observation(repo_data(), view="repository", offset=0, limit=20, step=3, server=SERVER)
    ids = [e.id for e in observation.elements]
    assert ids == ["repo:alice/tracker-3f2a", "label:11", "label:12", "label:13", "milestone:5", "milestone:4",
                   "branch:alice/tracker-3f2a:main", "branch:alice/tracker-3f2a:feature/login",
                   "issue:alice/tracker-3f2a#1", "issue:alice/tracker-3f2a#2", "issue:alice/tracker-3f2a#3",
                   "pr:alice/tracker-3f2a#4", "pr:alice/tracker-3f2a#5"]
    assert observation.metadata.source == "service" and observation.metadata.step == 3
    assert observation.app_state.active_document == "repo:alice/tracker-3f2a"
    assert observation.navigation.paging is not None and observation.navigation.paging.total == 3
    assert "alice/tracker-3f2a" in observation.summary and "3 issues" in observation.summary


def test_elements_carry_normalized_values() -> None:
    observation = build_observation(repo_data(), view="repository", offset=0, limit=20, step=0, server=SERVER)
    found = {e.id: e for e in observation.elements}
    issue = found["issue:alice/tracker-3f2a#1"]
    assert issue.value == {"title": "Crash on empty input", "state": "open", "labels": ["bug"], "milestone": "v1.0",
                           "comments": 1}
    assert issue.meta["author"] == "alice" and "close_issue" in observation.environment["issue_actions"]
    long_body = found["issue:alice/tracker-3f2a#3"].meta["body"]
    assert long_body.startswith("x" * BODY_CHARS) and long_body.endswith("(600 chars)")
    assert found["label:11"].value == {"name": "bug", "color": "#d73a4a", "description": "Something is not working"}
    assert found["milestone:5"].value["due_on"] == "2030-01-31"
    assert found["milestone:4"].value["state"] == "closed"
    merged = found["pr:alice/tracker-3f2a#5"]
    assert merged.value["state"] == "merged" and merged.value["head"] == "fix/typo" and merged.actions == []
    open_pr = found["pr:alice/tracker-3f2a#4"]
    assert open_pr.value["labels"] == ["enhancement"] and "merge_pull_request" in open_pr.actions
    main = found["branch:alice/tracker-3f2a:main"]
    assert main.value == {"commit": "9f8e7d6c5b4a", "message": "Initial commit", "default": True}
    assert "delete_branch" not in main.actions
    assert found["branch:alice/tracker-3f2a:feature/login"].value["message"] == "Add login page"


@pytest.mark.parametrize("view", ["issues", "pulls", "branches", "labels", "milestones"])
def test_list_views_show_the_repository_and_one_list(view: str) -> None:
    observation = build_observation(repo_data(view), view=view, offset=0, limit=20, step=0, server=SERVER)
    assert observation.app_state.view == view
    assert observation.elements[0].id == "repo:alice/tracker-3f2a"
    assert len(observation.elements) == 1 + len(document(view))


def test_without_a_repository_the_user_repositories_are_listed() -> None:
    data = {"repository": None, "repositories": document("user_repos"), "totals": {"repositories": 2},
            "user": "alice"}
    observation = build_observation(data, view="repositories", offset=0, limit=20, step=0,
                                    server={**SERVER, "user": "alice"})
    assert [e.id for e in observation.elements] == ["repo:alice/tracker-3f2a", "repo:alice/notes"]
    assert observation.navigation.views == ["repositories"] and "2 repositories of alice" in observation.summary


def test_a_large_issue_page_stays_small() -> None:
    template = document("issues")[2]
    data = repo_data("issues")
    data["issues"] = [{**template, "number": n, "id": 1000 + n, "title": f"Issue number {n} about a thing"}
                      for n in range(1, MAX_LIMIT + 1)]  # a full page of issues with long bodies
    data["totals"]["issues"] = 5000
    observation = build_observation(data, view="issues", offset=200, limit=MAX_LIMIT, step=0, server=SERVER)
    assert observation.navigation.paging is not None and observation.navigation.paging.total == 5000
    assert estimate_tokens(json.dumps(observation.to_agent_dict())) <= 8_000


# ---------------------------------------------------------------- checkpoint readers on documents
BASE = "/repos/alice/tracker-3f2a"


def _documents() -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Single documents and lists by API path (relative to /api/v1), from the fixtures."""
    base = BASE
    singles: dict[str, Any] = {base: document("repository"), f"{base}/pulls/4": document("pulls")[0],
                               f"{base}/pulls/5": document("pulls")[1], f"{base}/issues/4": document("issue_4_pull")}
    for issue in document("issues"):
        singles[f"{base}/issues/{issue['number']}"] = issue
    lists = {f"{base}/labels": document("labels"), f"{base}/milestones": document("milestones"),
             f"{base}/branches": document("branches"), f"{base}/pulls": document("pulls"),
             f"{base}/issues/1/comments": document("comments_1")}
    return singles, lists


def _every(path: str, query: dict[str, Any]) -> list[Any]:
    _, lists = _documents()
    if path == f"{BASE}/issues":
        state = query.get("state", "open")
        return [i for i in document("issues") if state == "all" or i["state"] == state]
    return list(lists[path])


def _reader() -> RepoReader:
    singles, _ = _documents()

    def every(path: str, query: dict[str, str]) -> list[Any]:
        return _every(path, query)

    def one(path: str) -> Any:
        if path not in singles:
            raise CheckpointUnreadable(f"404 {path}")
        return singles[path]

    return RepoReader("alice/tracker-3f2a", one, every)


@pytest.mark.parametrize(("kind", "target", "expected"), [
    ("gitea_issue_state", "#1", "open"),
    ("gitea_issue_state", "Typo in README", "closed"),
    ("gitea_issue_title", "#3", "Add dark mode"),
    ("gitea_issue_labels", "#1", ["bug"]),
    ("gitea_issue_milestone", "#2", "v1.0"),
    ("gitea_issue_milestone", "#3", None),
    ("gitea_issue_comments", "#1", ["I can reproduce this."]),
    ("gitea_issue_count", "open", 2),
    ("gitea_issue_count", "all", 3),
    ("gitea_label_exists", "docs", True),
    ("gitea_label_exists", "wontfix", False),
    ("gitea_label_color", "enhancement", "#a2eeef"),
    ("gitea_milestone_exists", "v0.9", True),
    ("gitea_milestone_state", "v0.9", "closed"),
    ("gitea_milestone_due", "v1.0", "2030-01-31"),
    ("gitea_branch_exists", "feature/login", True),
    ("gitea_branch_exists", "release", False),
    ("gitea_pr_merged", "#5", True),
    ("gitea_pr_merged", "Add login page", False),
    ("gitea_pr_state", "#4", "open"),
    ("gitea_pr_branches", "#4", "feature/login->main"),
    ("gitea_repo_description", None, "Issue tracker for the demo app"),
])
def test_checkpoint_readers_normalize_documents(kind: str, target: str | None, expected: Any) -> None:
    assert kind in CHECKPOINT_TYPES
    checkpoint = Checkpoint(type=kind, app="gitea", target=target)
    assert read_actual(_reader(), checkpoint) == expected
    # the raw validator's own extraction, fed the same documents, reads the same value
    assert raw_actual(checkpoint, DocumentApi("http://documents.invalid", "-", "alice/tracker-3f2a")) == expected


class DocumentApi(_Api):
    """The raw validator's API reader with its two GET methods answered from the documents (no server)."""

    def get(self, path: str, **query: Any) -> Any:
        singles, _ = _documents()
        return singles[BASE + path]

    def every(self, path: str, **query: Any) -> list[Any]:
        return _every(BASE + path, query)


@pytest.mark.parametrize(("kind", "target"), [
    ("gitea_issue_state", "#4"),  # a pull request, not an issue
    ("gitea_issue_state", "No such title"),
    ("gitea_issue_state", "#99"),
    ("gitea_label_color", "wontfix"),
    ("gitea_milestone_state", "v3"),
])
def test_checkpoint_readers_fail_closed_on_missing_things(kind: str, target: str) -> None:
    checkpoint = Checkpoint(type=kind, app="gitea", target=target)
    with pytest.raises(CheckpointUnreadable):
        read_actual(_reader(), checkpoint)
    with pytest.raises((RawGiteaError, KeyError)):  # raw_judge turns these into a failed checkpoint
        raw_actual(checkpoint, DocumentApi("http://documents.invalid", "-", "alice/tracker-3f2a"))


def test_every_reader_is_registered_with_a_comparator() -> None:
    for name in ACTUALS:
        assert CHECKPOINT_TYPES[name].default_compare in ("exact", "set")


def test_due_dates_are_read_as_utc_dates_whatever_the_server_time_zone() -> None:
    assert utc_date("2030-01-31T23:59:59Z") == "2030-01-31"
    assert utc_date("2030-02-01T01:59:59+02:00") == "2030-01-31"
    assert utc_date("2030-01-31T18:59:59-05:00") == "2030-01-31"
    assert utc_date(None) is None and utc_date("") is None
