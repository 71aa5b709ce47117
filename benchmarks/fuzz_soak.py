"""Fuzz soak: many more drawn actions per app than the suite runs, against the real programs.

The same strategies and promises as tests/fuzz/ (actions from each app's published schema and its
live observation, well-formed ones and near misses; ``check_step`` plus the committed JSON Schemas
and the workspace boundary). Per app it first runs ``--examples`` actions without stopping at a
failure (counting examples per second and failures), then, when something failed, lets Hypothesis
find and shrink one counter-example with the same seed, and prints it. Gitea runs against a port
where nothing listens (no server here). It prints a Markdown table and never asserts.

    .venv/bin/python benchmarks/fuzz_soak.py [--apps calc,drawio] [--examples 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hypothesis import given, seed, settings
from timing import markdown_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests package holds the strategies

from asil.adapters import app_names  # noqa: E402
from asil.adapters.base import Adapter  # noqa: E402
from asil.adapters.check import ConformanceError  # noqa: E402
from asil.apps.process import free_port  # noqa: E402
from asil.plugins import adapter_class  # noqa: E402
from asil.workspace import Workspace  # noqa: E402
from tests.fuzz.harness import FUZZ, fuzz_step, still_answers  # noqa: E402
from tests.fuzz.strategies import Names, actions  # noqa: E402


def open_app(name: str, root: Path) -> Adapter:
    if name == "gitea":  # no server on this machine: a port where nothing listens, as tests/fuzz/ does
        os.environ["ASIL_GITEA_URL"] = f"http://127.0.0.1:{free_port()}"
        os.environ["ASIL_GITEA_TOKEN"] = "t"
    cls = adapter_class(name)
    workspace = Workspace(root / name / "ws")
    options: dict[str, Any] = {"timeout_s": 1.0} if name == "gitea" else {}
    return cls(workspace, cls.create_sample(workspace), **options)


def soak(adapter: Adapter, examples: int, run_seed: int, stop_at_failure: bool) -> tuple[int, list[str], float]:
    """Run up to ``examples`` drawn actions; the count run, the failures, and the seconds taken."""
    names = Names(adapter.observe())
    failures: list[str] = []
    count = [0]

    @seed(run_seed)
    @settings(FUZZ, max_examples=examples, derandomize=False)
    @given(raw=actions(adapter.schema(), names))
    def step(raw: dict[str, Any]) -> None:
        count[0] += 1
        try:
            result = fuzz_step(adapter, raw)
        except ConformanceError as exc:
            failures.append(f"{exc} <- {json.dumps(raw, default=repr)[:300]}")
            if stop_at_failure:
                raise
            return
        if result is not None and result.observation is not None:
            names.update(result.observation)

    started = time.perf_counter()
    try:
        step()
    except ConformanceError:
        pass  # the shrunk example is the last failure recorded
    return count[0], failures, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default=",".join(app_names()), help="comma-separated app names (default: all)")
    parser.add_argument("--examples", type=int, default=200, help="drawn actions per app")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="asil-fuzz-soak-") as scratch:
        for name in args.apps.split(","):
            readiness = adapter_class(name).readiness()
            if not readiness.ready and name != "gitea":
                rows.append((name, "0", "-", "-", f"not ready: {readiness.detail[:60]}"))
                continue
            adapter = open_app(name, Path(scratch))
            try:
                count, failures, seconds = soak(adapter, args.examples, args.seed, stop_at_failure=False)
                shrunk = "-"
                if failures:
                    _, shrinking, _ = soak(adapter, args.examples, args.seed, stop_at_failure=True)
                    shrunk = shrinking[-1] if shrinking else "(did not fail again: depends on earlier state)"
                try:
                    still_answers(adapter)
                except Exception as exc:  # noqa: BLE001 - reported in the table, never raised
                    failures.append(f"does not answer afterwards: {exc}")
            finally:
                adapter.close()
            rows.append((name, str(count), f"{count / seconds:.1f}", str(len(failures)), shrunk.replace("|", "\\|")))
            print(f"{name}: {count} examples in {seconds:.1f} s, {len(failures)} failures", file=sys.stderr)
    print(f"fuzz soak, seed {args.seed}, up to {args.examples} examples per app, {platform.node()} "
          f"({os.cpu_count()} cores, shared), Python {platform.python_version()}\n")
    markdown_table(["app", "examples", "examples/s", "failures", "shrunk counter-example"], rows)


if __name__ == "__main__":
    main()
