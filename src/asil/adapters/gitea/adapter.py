"""The Gitea adapter: a repository on a Gitea server, read and changed through the v1 REST API.

The server is not started here (none can be installed on the machines this was built on): it is
named by the adapter options ``url``/``token`` or ``ASIL_GITEA_URL``/``ASIL_GITEA_TOKEN``. With a
seed document (``*.gitea``) the adapter creates a fresh repository for the episode on first use
and records its name in the workspace (``.asil/gitea-episode.json``), where checkpoints and the
raw validator find it. Every request has a timeout; an unreachable server gives an error
observation, never a hang.
"""

from __future__ import annotations

import json
import time
from typing import Any

from asil.adapters.api import with_api
from asil.adapters.base import Adapter, Readiness
from asil.adapters.batch import in_batch
from asil.adapters.functions import AppFunction
from asil.adapters.gitea import actions as act
from asil.adapters.gitea.plans import FUNCTIONS, Planner, RepoIndex, build_index, referenced_numbers
from asil.adapters.gitea.routes import check_api_call, plan_api_call, route_specs
from asil.adapters.gitea.seed import SeedSpec, episode_repo_name, plan_create_repo, read_seed
from asil.adapters.gitea.view import DEFAULT_LIMIT, MAX_LIMIT, VIEWS, build_observation
from asil.apps.gitea import (
    NOT_VERIFIED,
    GiteaClient,
    GiteaConfig,
    GiteaError,
    RequestPlan,
    Response,
    config_from,
    connect,
    total_count,
)
from asil.protocol import (
    Action,
    ActionFailed,
    AppState,
    AppUnavailable,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
)
from asil.workspace import Workspace, atomic_write

EPISODE_FILE = "gitea-episode.json"
RESPONSE_CHARS = 4000  # an api_call answer is shown in the next observation, cut to this length
MERGE_RETRIES = 5
Step = tuple[AppFunction[Planner], Any]  # a function and its checked params


def episode_record(workspace: Workspace) -> dict[str, Any] | None:
    """The episode's repository and server, as recorded by the adapter that seeded it."""
    path = workspace.private(EPISODE_FILE)
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


class GiteaAdapter(Adapter):
    """One repository (or the user's repository list), paged by view."""

    vocabulary = with_api(act.VOCABULARY, route_specs(), examples=(), tips=(), params=act.ApiCall)
    functions = FUNCTIONS

    def __init__(self, workspace: Workspace, document: str | None = None, *, url: str | None = None,
                 token: str | None = None, timeout_s: float | None = None, limit: int = DEFAULT_LIMIT,
                 **options: Any):
        super().__init__(workspace, document)
        self.options = {"url": url, "token": token, "timeout_s": timeout_s}
        self.seed: SeedSpec | None = read_seed(workspace.resolve(document), document) if document else None
        self.view, self.offset, self.limit = "repository", 0, limit
        self.client: GiteaClient | None = None
        self.server_version: str | None = None
        self.last_response: str | None = None
        record = episode_record(workspace) if document else None
        self.repo: str | None = str(record["repo"]) if record else None
        self.seed_error: ActionFailed | None = None

    # ------------------------------------------------------------ the server
    def _client(self) -> GiteaClient:
        """The API client, health-checked on first use (``/version``)."""
        if self.client is None:
            try:
                client = connect(self.options)
            except AppUnavailable as exc:  # an action's failure, reported as data like any other
                raise ActionFailed(exc.message, hint=exc.hint, code=exc.code) from None
            self.server_version = client.version()
            self.client = client
        return self.client

    def _repo_base(self) -> str:
        if self.repo is None:
            raise InvalidAction("No repository is chosen yet.", hint="Navigate to one: target 'repo:OWNER/NAME'.",
                                code="no_repository")
        owner, _, name = self.repo.partition("/")
        return RepoIndex(owner, name).base

    def ensure_seeded(self) -> None:
        """Create and seed the episode repository the first time it is needed."""
        if self.seed_error is not None:
            raise self.seed_error  # never work in a half-seeded repository
        if self.seed is None or self.repo is not None:
            return
        client = self._client()
        created = client.json(plan_create_repo(self.seed, episode_repo_name(self.seed)))
        self.repo = str(created["full_name"])
        for number, call in enumerate(self.seed.calls, start=1):
            function, params = self.functions.parse(call.function, call.params)
            try:
                for plan in function.require_handler().plan(params, self._index(referenced_numbers(params))):
                    self._send(plan)
            except (InvalidAction, ActionFailed) as exc:
                self.seed_error = ActionFailed(
                    f"Seeding {self.repo} failed at call {number} ({call.function}): {exc.message}",
                    hint="Fix the seed file; the partly seeded repository stays on the server.", code="seed_failed")
                raise self.seed_error from None
        atomic_write(self.workspace.private(EPISODE_FILE), json.dumps(
            {"repo": self.repo, "url": client.config.url, "seed": self.document,
             "server_version": self.server_version}, indent=1).encode("utf-8"))

    def _index(self, numbers: list[int]) -> RepoIndex:
        """What plans need: labels, milestones, branches and the named issues, read now."""
        client, base = self._client(), self._repo_base()
        issues = []
        for number in numbers:
            try:
                issues.append(client.json(RequestPlan("GET", f"{base}/issues/{number}")))
            except GiteaError as exc:
                if exc.status != 404:
                    raise
        return build_index(client.json(RequestPlan("GET", base)), client.list_all(RequestPlan("GET", f"{base}/labels")),
                           client.list_all(RequestPlan("GET", f"{base}/milestones", {"state": "all"})),
                           client.list_all(RequestPlan("GET", f"{base}/branches")), issues)

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._choose_view(view)
        self.limit = max(1, min(limit or self.limit, MAX_LIMIT))
        self.offset = (max(0, offset if offset is not None else self.offset) // self.limit) * self.limit
        try:
            self.ensure_seeded()
            data = self._fetch()
            server = {"url": self.client.config.url if self.client else None, "version": self.server_version,
                      "user": data.get("user")}
            if self.last_response is not None:
                server["last_api_response"] = self.last_response
            return build_observation(data, view=self.view if self.repo else "repositories", offset=self.offset,
                                     limit=self.limit, step=self.step, server=server)
        except ActionFailed as exc:
            return self._error_observation(exc)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return self._error_observation(unexpected_answer(exc))

    def _page(self, path: str, name: str, data: dict[str, Any], **query: str | int) -> None:
        page = self.offset // self.limit + 1
        answer = self._client().send(RequestPlan("GET", path, {**query, "page": page, "limit": self.limit}))
        data[name] = answer.body or []
        data.setdefault("totals", {})[name] = total_count(answer.headers) or len(data[name])

    def _fetch(self) -> dict[str, Any]:
        client = self._client()
        data: dict[str, Any] = {"totals": {}}
        if self.repo is None:
            data["repository"] = None
            data["user"] = (client.json(RequestPlan("GET", "/user")) or {}).get("login")
            self._page("/user/repos", "repositories", data)
            return data
        base = self._repo_base()
        data["repository"] = client.json(RequestPlan("GET", base))
        lists = {"labels": ("labels", {}), "milestones": ("milestones", {"state": "all"}),
                 "branches": ("branches", {}), "issues": ("issues", {"state": "all", "type": "issues"}),
                 "pulls": ("pulls", {"state": "all"})}
        chosen = list(lists) if self.view == "repository" else [self.view]
        for name in chosen:
            suffix, query = lists[name]
            self._page(f"{base}/{suffix}", name, data, **query)
        return data

    def _choose_view(self, view: str) -> None:
        if view not in VIEWS:
            raise InvalidAction(f"There is no view {view!r}.", hint=f"Views: {', '.join(VIEWS)}.")
        if view == "repositories":
            if self.seed is not None:
                raise InvalidAction("This episode works in its seeded repository only.",
                                    hint=f"Views: {', '.join(v for v in VIEWS if v != 'repositories')}.",
                                    code="repository_fixed")
            self.repo = None
        self.view = view

    def _error_observation(self, exc: ActionFailed) -> Observation:
        return Observation(
            metadata=Metadata(app="gitea", source="service", step=self.step),
            app_state=AppState(view=self.view, active_document=f"repo:{self.repo}" if self.repo else None),
            environment={"error": {"code": exc.code, "message": exc.message, "hint": exc.hint},
                         "gitea": {"url": (config_from(self.options) or GiteaConfig("", "")).url or None}},
            navigation=Navigation(views=VIEWS),
            summary=f"The Gitea server cannot be read right now: {exc.message}",
        )

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        """Params are checked against the schema first; then references against the live repository.
        If the server cannot be read, the state checks are left to the attempt itself (an error)."""
        self.vocabulary.require_type(action)
        if action.action_type == "api_call":
            check_api_call(action.params)
        try:
            self._check_action(action)
        except (ActionFailed, KeyError, TypeError, ValueError, AttributeError):
            return  # the server could not be read (or answered oddly): the attempt itself reports the error

    def _check_action(self, action: Action) -> None:
        kind = action.action_type
        if kind == "navigate":
            self._navigation(action)
        elif kind == "batch":
            self._batch_steps(action)
        elif kind == "api_call":
            plan_api_call(action.params, self._current_repo())
        else:
            self._plan_now(*self._function(action))

    def _function(self, action: Action) -> Step:
        """The function an invoke_function action names, and its checked params."""
        return self.functions.parse(action.target or "", action.params)

    def _batch_steps(self, action: Action) -> list[Step]:
        """The batch's functions with their params; InvalidAction naming a member that cannot be undone."""
        steps = []
        for number, member in enumerate(self.vocabulary.batch(action, self.functions), start=1):
            try:
                function, params = self._function(member)
            except InvalidAction as exc:
                raise in_batch(exc, number) from None
            if function.require_handler().undo is None:
                raise InvalidAction(f"Batch action {number}: {function.name} cannot be undone, so it cannot be in a "
                                    "batch.", hint="Run it as its own action.", code="not_undoable")
            steps.append((function, params))
        return steps

    def _current_repo(self) -> str | None:
        """The current repository's full name (what api_call fills in for '{owner}/{repo}')."""
        self.ensure_seeded()
        return self.repo

    def _plan_now(self, function: AppFunction[Planner], params: Any) -> tuple[RepoIndex, list[RequestPlan]]:
        self.ensure_seeded()
        index = self._index(referenced_numbers(params))
        return index, function.require_handler().plan(params, index)

    def _navigation(self, action: Action) -> act.Navigate:
        params: act.Navigate = self.vocabulary.parse_navigate(action)
        target = action.target
        if params.view == "repositories" or target == "repositories":
            if self.seed is not None:
                raise InvalidAction("This episode works in its seeded repository only.",
                                    hint="Navigate between views with params.view.", code="repository_fixed")
        if target is None or target in VIEWS:
            return params
        if not target.startswith("repo:") or target.count("/") != 1:
            raise InvalidAction(f"navigate cannot go to {target!r}.",
                                hint=f"Targets: a view ({', '.join(VIEWS)}) or 'repo:OWNER/NAME'.")
        if self.seed is not None:
            raise InvalidAction("This episode works in its seeded repository only.",
                                hint="Navigate between views with params.view.", code="repository_fixed")
        owner, _, name = target.removeprefix("repo:").partition("/")
        self._client().json(RequestPlan("GET", RepoIndex(owner, name).base))
        return params

    def _apply(self, action: Action) -> list[str]:
        try:
            return self._apply_checked(action)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise unexpected_answer(exc) from None

    def _apply_checked(self, action: Action) -> list[str]:
        self.last_response = None
        kind = action.action_type
        if kind == "navigate":
            params = self._navigation(action)
            if action.target and action.target.startswith("repo:"):
                self.repo, self.view, self.offset = action.target.removeprefix("repo:"), "repository", 0
            view = params.view or (action.target if action.target in VIEWS else None)
            if view is not None:
                self._choose_view(view)
            self.limit = params.limit or self.limit
            self.offset = params.offset if params.offset is not None else self.offset
            return []
        if kind == "api_call":
            plan, _ = plan_api_call(action.params, self._current_repo())
            answer = self._send(plan)
            self.last_response = json.dumps(answer.body)[:RESPONSE_CHARS]
            return [] if plan.method == "GET" else [f"repo:{self.repo}"]
        if kind == "batch":
            return self._run_batch(self._batch_steps(action))
        return self._run(*self._function(action))[0]

    def _run(self, function: AppFunction[Planner], params: Any) -> tuple[list[str], RepoIndex, Any]:
        index, plans = self._plan_now(function, params)
        answer: Any = None
        for plan in plans:
            answer = self._send(plan).body
        return changed_ids(function.name, params, index, answer), index, answer

    def _run_batch(self, steps: list[Step]) -> list[str]:
        done: list[tuple[AppFunction[Planner], Any, RepoIndex, Any]] = []
        changed: list[str] = []
        for number, (function, params) in enumerate(steps, start=1):
            try:
                ids, before, answer = self._run(function, params)
            except (InvalidAction, ActionFailed) as exc:
                undo_error = self._undo(done)
                tail = (" Nothing in the repository was changed." if undo_error is None else
                        f" Undoing the earlier actions failed too ({undo_error}); check the repository.")
                # Still "invalid" only if the state is as before; an undo that failed is an error.
                kind = InvalidAction if isinstance(exc, InvalidAction) and undo_error is None else ActionFailed
                raise kind(f"Batch action {number}: {exc.message}{tail}", hint=exc.hint, code=exc.code) from None
            done.append((function, params, before, answer))
            changed += [i for i in ids if i not in changed]
        return changed

    def _send(self, plan: RequestPlan) -> Response:
        """Send one plan. Gitea checks a new pull request's mergeability in the background and answers
        405 to a merge until it is done, so merges are retried for a few seconds."""
        client = self._client()
        for _ in range(MERGE_RETRIES):
            try:
                return client.send(plan)
            except GiteaError as exc:
                if exc.status != 405 or not plan.path.endswith("/merge"):
                    raise
                time.sleep(1.0)
        return client.send(plan)

    def _undo(self, done: list[tuple[AppFunction[Planner], Any, RepoIndex, Any]]) -> str | None:
        """Reverse finished batch actions, newest first; the first failure's message, or None."""
        for function, params, before, answer in reversed(done):
            undo = function.require_handler().undo
            assert undo is not None  # _check refuses batches with actions that cannot be undone
            try:
                for plan in undo(params, before, answer):
                    self._send(plan)
            except ActionFailed as exc:
                return exc.message
        return None

    # ------------------------------------------------------------ life
    def render(self, path: Any) -> Any:
        raise NotImplementedError("The gitea adapter does not render: Gitea's own web page for the repository "
                                  "(html_url in the observation) is the visual view.")

    def close(self) -> None:
        # The episode repository stays on the server: checkpoints read it after the adapter closes.
        self.client = None

    @classmethod
    def readiness(cls) -> Readiness:
        config = config_from(None)
        if config is None:
            return Readiness(False, f"no Gitea server configured (set ASIL_GITEA_URL and ASIL_GITEA_TOKEN); "
                                    f"{NOT_VERIFIED}", external=True)
        try:
            version = GiteaClient(GiteaConfig(config.url, config.token, min(config.timeout_s, 5.0))).version()
        except GiteaError as exc:
            return Readiness(False, f"{config.url} does not answer as Gitea ({exc.message}); {NOT_VERIFIED}")
        return Readiness(True, f"Gitea {version} answers at {config.url} (given by ASIL_GITEA_URL); the adapter "
                               "was built without a live server, so run tests/adapters/test_gitea_live.py to verify "
                               "it against this one")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        seed = {"repository": {"name": "asil-sample", "description": "ASIL conformance sample"},
                "calls": [{"function": "create_label", "params": {"name": "bug", "color": "#d73a4a"}},
                          {"function": "create_issue", "params": {"title": "Sample issue", "labels": ["bug"]}}]}
        workspace.write_bytes("sample.gitea", json.dumps(seed, indent=1).encode("utf-8"))
        return "sample.gitea"


def unexpected_answer(exc: Exception) -> ActionFailed:
    """A Gitea answer without a field the documented v1 schema promises (e.g. another server or version)."""
    return ActionFailed(f"Gitea answered in a shape the documented v1 API does not describe ({type(exc).__name__}: "
                        f"{exc}).", hint="Check that ASIL_GITEA_URL points at a Gitea server.",
                        code="unexpected_answer")


def changed_ids(name: str, params: Any, index: RepoIndex, answer: Any) -> list[str]:
    """Element ids a function changed, from its params, the index before, and the last answer."""
    full = index.full_name
    number = getattr(params, "number", None)
    if isinstance(answer, dict) and name in ("create_issue", "open_pull_request"):
        return [f"{'pr' if name == 'open_pull_request' else 'issue'}:{full}#{answer['number']}"]
    if isinstance(number, int):
        facts = index.issues.get(number)
        return [f"{'pr' if facts and facts.is_pull else 'issue'}:{full}#{number}"]
    if name in ("create_label", "create_milestone") and isinstance(answer, dict):
        return [f"{name.removeprefix('create_')}:{answer['id']}"]
    if name == "delete_label":
        return [f"label:{index.labels[params.name]}"]
    if name == "close_milestone":
        return [f"milestone:{index.milestone_id(params.title)}"]
    if name in ("create_branch", "delete_branch"):
        return [f"branch:{full}:{params.name}"]
    if name == "create_file":
        return [f"branch:{full}:{params.branch or index.default_branch}"]
    return [f"repo:{full}"]


__all__ = ["GiteaAdapter", "episode_record"]
