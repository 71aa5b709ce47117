"""Gitea under fuzzing without a server (none runs on this machine; tests/adapters/test_gitea_live.py
covers a real one when ASIL_GITEA_URL is set).

Two offline mechanisms the adapter already has: (1) the adapter pointed at a port where nothing
listens: every drawn action must come back invalid or error, as data, with the seed file unchanged;
(2) request planning, which is pure data held against the response documents in
tests/adapters/gitea_fixtures/ (written from Gitea's documented v1 schema, NOT recorded from a live
server): every drawn call must be refused with one sentence or plan requests that stay inside the
episode's repository (no '.'/'..' segments, no other repository).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asil.adapters.gitea import actions as act
from asil.adapters.gitea.adapter import GiteaAdapter
from asil.adapters.gitea.plans import FUNCTIONS, RepoIndex, build_index, plan_function
from asil.adapters.gitea.routes import plan_api_call
from asil.apps.gitea import RequestPlan
from asil.apps.process import free_port
from asil.protocol import InvalidAction
from asil.workspace import Workspace
from tests.adapters.gitea_docs import document
from tests.fuzz.harness import FUZZ, examples_for, fuzz_step, still_answers
from tests.fuzz.strategies import HOSTILE, PATH_TRICKS, Names, actions, params_for, spoiled

INDEX = build_index(document("repository"), document("labels"), document("milestones"), document("branches"),
                    document("issues") + [document("issue_4_pull")])
NAMES = [*INDEX.labels, *INDEX.milestones, *INDEX.branches, "main", "alice/tracker-3f2a", "README.md", "docs/a.md"]
SCHEMA = GiteaAdapter.action_schema()


@pytest.fixture(scope="module")
def unreachable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GiteaAdapter]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ASIL_GITEA_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens: calls fail fast
        patch.setenv("ASIL_GITEA_TOKEN", "t")
        workspace = Workspace(tmp_path_factory.mktemp("fuzz-gitea") / "ws")
        adapter = GiteaAdapter(workspace, GiteaAdapter.create_sample(workspace), timeout_s=1.0)
        yield adapter
        adapter.close()


def test_without_a_server_every_action_is_refused_or_fails_as_data(unreachable: GiteaAdapter) -> None:
    seed = unreachable.workspace.resolve("sample.gitea").read_bytes()

    @settings(FUZZ, max_examples=examples_for("gitea"))
    @given(raw=actions(SCHEMA, Names(fixed=NAMES)))
    def step(raw: dict[str, Any]) -> None:
        result = fuzz_step(unreachable, raw)
        if result is not None and result.status == "ok":  # only a change of view may go through, and it says so
            assert raw.get("action_type") == "navigate" and not result.changed, f"{raw} succeeded without a server"
            assert "Could not reach Gitea" in result.model_dump_json(), f"{raw} hid that the server is unreachable"
            return
        assert result is None or result.status in ("invalid", "error"), f"{raw} succeeded without a server"

    step()
    still_answers(unreachable)
    assert unreachable.workspace.resolve("sample.gitea").read_bytes() == seed


def _inside(plan: RequestPlan, index: RepoIndex) -> bool:
    segments = plan.path.split("/")
    return (plan.path == index.base or plan.path.startswith(index.base + "/")) and not {".", ".."} & set(segments)


@st.composite
def function_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(FUNCTIONS.names())))
    schema = SCHEMA.functions[name].params
    params = draw(params_for(schema, NAMES))
    return name, params if draw(st.booleans()) else draw(spoiled(params, schema))


@settings(FUZZ, max_examples=100)
@given(call=function_calls())
def test_planned_requests_stay_inside_the_repository(call: tuple[str, dict[str, Any]]) -> None:
    name, params = call
    try:
        plans = plan_function(name, act.parse_params(FUNCTIONS[name].params, params, name), INDEX)
    except InvalidAction as exc:
        assert exc.message.endswith((".", "?")), exc.message
        return
    assert plans, f"{name} {params} planned no request"
    for plan in plans:
        assert plan.method in ("GET", "POST", "PATCH", "PUT", "DELETE")
        assert _inside(plan, INDEX), f"{name} {json.dumps(params)[:300]} plans {plan.method} {plan.path}"


API_PATHS = st.one_of(
    st.sampled_from(["/repos/{owner}/{repo}/labels", "/repos/{owner}/{repo}/issues/1", "/repos/{owner}/{repo}",
                     "/repos/{owner}/{repo}/branches/main", "/repos/bob/other/labels", "/admin/users", "/version"]),
    st.sampled_from(PATH_TRICKS).map(lambda trick: f"/repos/{{owner}}/{{repo}}/branches/{trick}"),
    st.sampled_from(["..", ".", "%2e%2e", "..%2f..", "a/../../b"]).map(lambda t: f"/repos/{{owner}}/{{repo}}/{t}/labels"),
)


@settings(FUZZ, max_examples=100)
@given(method=st.sampled_from(["GET", "POST", "PATCH", "PUT", "DELETE", "TRACE"]), path=API_PATHS,
       body=st.one_of(st.none(), st.fixed_dictionaries({"name": HOSTILE}), st.just({"name": "x", "color": "#aaaaaa"})),
       destructive=st.booleans())
def test_api_calls_reach_only_documented_routes_of_this_repository(method: str, path: str, body: Any,
                                                                  destructive: bool) -> None:
    raw = {"method": method, "path": path, "body": body, "destructive": destructive}
    try:
        plan, _ = plan_api_call(raw, INDEX.full_name)
    except InvalidAction as exc:
        assert exc.message.endswith(".") and exc.hint, exc.message
        return
    assert plan.path.startswith(("/repos/alice/tracker-3f2a", "/version", "/user")), plan.path
    assert not {".", ".."} & set(plan.path.split("/")), plan.path
