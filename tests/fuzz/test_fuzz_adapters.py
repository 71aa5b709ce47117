"""Every adapter under property-based fuzzing, through the conformance checker's promises.

Actions are drawn from each app's published schema and its live observation (tests/fuzz/strategies.py):
well-formed ones and near misses. Each step must keep the promises of ``check_step`` (execute never
raises; an invalid or failed action changes neither the state nor the document; the observation is
well formed), the result must validate against schemas/action_result.schema.json, nothing may appear
outside the workspace, and the program must still answer at the end. One warm adapter per app serves
all its examples; example counts are bounded (``FUZZ`` profile) so the whole set stays near two minutes
on two workers. Longer runs: benchmarks/fuzz_soak.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings

from asil.adapters import app_names
from asil.adapters.base import Adapter
from asil.plugins import adapter_class
from asil.workspace import Workspace
from tests.fuzz.harness import FUZZ, examples_for, fuzz_step, still_answers
from tests.fuzz.strategies import Names, actions

# Gitea needs a server that this machine does not have: tests/fuzz/test_fuzz_gitea.py fuzzes it offline.
APPS = [name for name in app_names() if name != "gitea"]


@pytest.fixture(scope="module", params=APPS)
def adapter(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Adapter]:
    cls = adapter_class(request.param)
    readiness = cls.readiness()
    if not readiness.ready:
        pytest.skip(f"{request.param} is not ready here: {readiness.detail}")
    workspace = Workspace(tmp_path_factory.mktemp(f"fuzz-{request.param}") / "ws")
    opened = cls(workspace, cls.create_sample(workspace))
    yield opened
    opened.close()


def test_random_actions_keep_every_promise(adapter: Adapter) -> None:
    names = Names(adapter.observe())  # what the next action may name: from the latest observation

    @settings(FUZZ, max_examples=examples_for(adapter.name))
    @given(raw=actions(adapter.schema(), names))
    def step(raw: dict[str, Any]) -> None:
        result = fuzz_step(adapter, raw)
        if result is not None and result.observation is not None:
            names.update(result.observation)

    step()
    still_answers(adapter)
