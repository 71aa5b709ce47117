"""Probes: the compiled bundle against the real program, in a throwaway workspace.

Only with ``allow_actions`` (``asil onboard --allow-actions``): the program is started and its state
changed. Each read path must return elements; each probe's ``do`` must succeed and change the state,
and its ``undo`` must succeed and restore it exactly; the state must survive a save and a reopen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from asil.adapters.base import Adapter
from asil.adapters.generated.adapter import GeneratedAdapter
from asil.adapters.generated.bundle import Bundle
from asil.adapters.generated.records import adapter_for
from asil.protocol import Action, AsilError
from asil.workspace import Workspace


class ProbeRefused(AsilError):
    code = "probe_refused"


@dataclass(frozen=True)
class ProbeResult:
    name: str
    ok: bool
    detail: str


def bound_adapter(bundle: Bundle) -> type[GeneratedAdapter]:
    """An adapter class for a bundle under review (not necessarily the committed one)."""
    cls = adapter_for(bundle)
    cls.name, cls.pattern, cls.extensions = bundle.app, bundle.pattern, bundle.extensions
    return cls


def _state(adapter: Adapter) -> str:
    return json.dumps(sorted((e.id, e.value) for e in adapter.observe().elements), sort_keys=True, default=str)


def _call(adapter: Adapter, call: dict[str, Any]) -> str | None:
    """None when the call succeeded, else what went wrong."""
    action = Action(action_type="invoke_function", target=str(call["function"]), params=dict(call["params"]))
    result = adapter.execute(action, observe=False)
    return None if result.ok else (result.error.message if result.error else result.status)


def probe_bundle(bundle: Bundle, allow_actions: bool = False) -> list[ProbeResult]:
    if not allow_actions:
        raise ProbeRefused("Probes start the real program and change state; pass --allow-actions to run them "
                           "in a throwaway workspace.")
    cls = bound_adapter(bundle)
    workspace = Workspace.temporary(prefix=f"asil-probe-{bundle.app}-")
    results: list[ProbeResult] = []
    try:
        try:
            document = cls.create_sample(workspace)
        except AsilError as exc:
            return [ProbeResult("fresh state", False, exc.message)]
        results.append(ProbeResult("fresh state", True, f"{document} made by {bundle.program.executable}"))
        with cls(workspace, document) as adapter:
            elements = adapter.observe().elements
            for spec in bundle.elements:
                found = sum(e.type == spec.type for e in elements)
                results.append(ProbeResult(f"read {spec.type}", found > 0, f"{found} element(s)"))
            for number, probe in enumerate(bundle.probes, start=1):
                name = f"round trip {number}: {probe.do['function']} / {probe.undo['function']}"
                before = _state(adapter)
                failed = _call(adapter, probe.do)
                if failed is None and _state(adapter) == before:
                    failed = f"{probe.do['function']} succeeded but changed nothing"
                if failed is None:
                    failed = _call(adapter, probe.undo)
                    if failed is None and _state(adapter) != before:
                        failed = f"{probe.undo['function']} did not restore the state"
                results.append(ProbeResult(name, failed is None, failed or "changed the state, and the inverse restored it"))
            adapter.save()
            saved = _state(adapter)
        with cls(workspace, document) as reopened:
            same = _state(reopened) == saved
        results.append(ProbeResult("save and reopen", same, "the state survived" if same else "the reopened state differs"))
    except AsilError as exc:
        results.append(ProbeResult("program", False, exc.message))
    finally:
        workspace.cleanup()
    return results
