"""Latency and observation-size benchmark of the Gitea adapter.

Offline rows (always): the cost ASIL adds around each request, measured on the response documents
in tests/adapters/gitea_fixtures/ (written from Gitea's documented v1 schema, NOT recorded from a
live server): planning requests (name resolution included), checking an ``api_call``, building the
repository index, and normalizing documents into observations (a typical repository view, and one
full 50-issue page of a 5,000-issue repository), with the observation's token estimate.

Live rows (only when ASIL_GITEA_URL and ASIL_GITEA_TOKEN are set): cold start (health check plus
creating and seeding a small repository), warm action p50/p95 (comment_issue, each an HTTP round
trip plus the reads that check it), observe p50 and observation tokens, against that server.
The table's last column says which rows were measured live. It prints and never asserts.

    .venv/bin/python benchmarks/adapter_latency_gitea.py [--repeats 300] [--live-repeats 20]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import percentile

from asil.adapters.gitea import actions as act
from asil.adapters.gitea.plans import build_index, plan_function
from asil.adapters.gitea.routes import plan_api_call
from asil.adapters.gitea.view import MAX_LIMIT, build_observation
from asil.apps.gitea import config_from
from asil.llm.base import estimate_tokens
from asil.protocol import Action, Observation
from asil.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "adapters" / "gitea_fixtures"
SERVER = {"url": "http://documents.invalid", "version": None, "user": None}
Row = tuple[str, str, str, str, str]


def doc(name: str) -> Any:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["body"]


def timed(func: Callable[[], Any], repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        func()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def tokens(observation: Observation) -> int:
    return estimate_tokens(json.dumps(observation.to_agent_dict()))


def offline_rows(repeats: int) -> list[Row]:
    issues = doc("issues")
    index = build_index(doc("repository"), doc("labels"), doc("milestones"), doc("branches"), issues)
    create = act.parse_params(act.CreateIssue, {"title": "Crash", "labels": ["bug", "docs"], "milestone": "v1.0"},
                              "create_issue")
    small = {"repository": doc("repository"), "totals": {}, **{n: doc(n) for n in
                                                             ("labels", "milestones", "branches", "issues", "pulls")}}
    big_page = [{**issues[2], "number": n, "id": 10_000 + n, "title": f"Issue number {n} about a thing"}
                for n in range(1, MAX_LIMIT + 1)]
    big = {"repository": doc("repository"), "issues": big_page, "totals": {"issues": 5000}}
    rows: list[Row] = []

    def row(what: str, func: Callable[[], Any], size: str = "") -> None:
        samples = timed(func, repeats)
        rows.append((what, f"{percentile(samples, 50):.3f}", f"{percentile(samples, 95):.3f}", size,
                     "documents (offline)"))

    row("plan create_issue (labels + milestone resolved)", lambda: plan_function("create_issue", create, index))
    row("check + plan api_call PATCH issue", lambda: plan_api_call(
        {"method": "PATCH", "path": "/repos/{owner}/{repo}/issues/2", "body": {"title": "x"}}, index.full_name))
    loaded = [doc("repository"), doc("labels"), doc("milestones"), doc("branches"), issues]
    row("build repository index from documents", lambda: build_index(*loaded))
    typical = build_observation(small, view="repository", offset=0, limit=20, step=0, server=SERVER)
    row("observation: repository view (3 issues, 2 PRs)", lambda: build_observation(
        small, view="repository", offset=0, limit=20, step=0, server=SERVER), f"{tokens(typical)} tokens")
    page = build_observation(big, view="issues", offset=0, limit=MAX_LIMIT, step=0, server=SERVER)
    row("observation: 50-issue page of 5,000 issues", lambda: build_observation(
        big, view="issues", offset=0, limit=MAX_LIMIT, step=0, server=SERVER), f"{tokens(page)} tokens")
    return rows


def live_rows(repeats: int) -> list[Row]:
    from asil.adapters.gitea.adapter import GiteaAdapter

    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="asil-gitea-bench-") as folder:
        workspace = Workspace(folder)
        workspace.write_bytes("bench.gitea", json.dumps({"repository": {"name": "asil-bench"}, "calls": [
            {"function": "create_label", "params": {"name": "bug", "color": "#d73a4a"}},
            {"function": "create_issue", "params": {"title": "Benchmark issue", "labels": ["bug"]}}]}).encode())
        started = time.perf_counter()
        adapter = GiteaAdapter(workspace, "bench.gitea")
        first = adapter.observe()
        cold = (time.perf_counter() - started) * 1000
        rows.append(("cold start: health check + create + seed repo", f"{cold:.0f}", "", "", "LIVE server"))
        action = Action(action_type="invoke_function", target="comment_issue", params={"number": 1, "body": "bench"})
        results = []

        def act_once() -> None:
            results.append(adapter.execute(action, observe=False).ok)

        samples = timed(act_once, repeats)
        if not all(results):
            raise SystemExit("a live comment_issue failed; the live rows would be meaningless")
        rows.append(("warm action comment_issue (no observe)", f"{percentile(samples, 50):.1f}",
                     f"{percentile(samples, 95):.1f}", "", "LIVE server"))
        observed = timed(adapter.observe, repeats)
        rows.append(("observe repository view", f"{percentile(observed, 50):.1f}", f"{percentile(observed, 95):.1f}",
                     f"{tokens(first)} tokens", "LIVE server"))
        adapter.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--live-repeats", type=int, default=20)
    args = parser.parse_args()
    rows = offline_rows(args.repeats)
    live = config_from(None) is not None
    if live:
        rows += live_rows(args.live_repeats)
    print(f"Gitea adapter latency (ms) - Python {platform.python_version()} on {platform.machine()}, "
          f"{args.repeats} repeats offline")
    header = ("what", "p50 ms", "p95 ms", "observation", "measured on")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)))
    if not live:
        print("\nNo live rows: ASIL_GITEA_URL/ASIL_GITEA_TOKEN are not set. Offline rows use response documents "
              "written from the documented v1 schema, NOT recorded from a live server; HTTP time is not included.")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
