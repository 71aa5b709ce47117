"""``asil onboard PROFILE``: qualify -> compile -> audit -> probe -> readiness, saying what to review at each gate."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asil.adapters.generated.bundle import BUNDLES, Bundle, read_bundle
from asil.llm.base import Provider
from asil.onboard.audit import audit_bundle
from asil.onboard.compile import bundle_text, compile_profile
from asil.onboard.draft import draft_profile
from asil.onboard.probe import probe_bundle
from asil.onboard.profile import read_profile
from asil.protocol import AsilError


@dataclass
class Walk:
    """What the walk reached: the last gate passed, and seconds per gate."""

    reached: str = ""
    ok: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    bundle: Bundle | None = None


def _timed(walk: Walk, gate: str, step: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    try:
        return step()
    finally:
        walk.seconds[gate] = round(time.perf_counter() - started, 2)


def onboard(profile_path: Path, *, allow_actions: bool = False, install: bool = False, out: Path | None = None,
            provider: Provider | None = None, say: Callable[[str], None] = print) -> Walk:
    """Walk one profile through every gate; stops at the first gate that fails."""
    walk = Walk()
    say(f"1/5 qualify  {profile_path}")
    profile = _timed(walk, "qualify", lambda: read_profile(profile_path))
    base = profile_path.parent
    say(f"    {profile['app']}: {profile['title']}, {profile['pattern']} pattern, evidence {profile['evidence']['kind']}")
    resources = profile["resources"]
    say(f"    REVIEW the allowlists (yours, never a model's): executables {resources['executables']}, "
        f"hosts {resources['hosts']}, files {resources['paths']}")
    if provider is not None:
        profile = _timed(walk, "draft", lambda: draft_profile(profile, base, provider))
        say(f"    drafted {len(profile['write_paths'])} write path(s) from prose with {provider.name}; REVIEW each:")
        for write in profile["write_paths"]:
            say(f"      - {write['name']}: {write.get('description', '')} {'(destructive)' if write.get('destructive') else ''}")
    walk.reached = "qualify"

    say("2/5 compile")
    bundle: Bundle = _timed(walk, "compile", lambda: compile_profile(profile, base))
    walk.bundle = bundle
    say(f"    elements: {', '.join(e.type + ' (' + ', '.join(e.fields) + ')' for e in bundle.elements)}")
    for op in bundle.functions:
        mapping = op.route and f"{op.method} {op.route}" or op.kind
        say(f"    function {op.name}: {mapping}{' DESTRUCTIVE' if op.destructive else ''}")
    say("    REVIEW: each function's mapping and which are destructive")
    walk.reached = "compile"

    say("3/5 audit (static, nothing runs)")
    findings = _timed(walk, "audit", lambda: audit_bundle(bundle, profile))
    if findings:
        for finding in findings:
            say(f"    REFUSED {finding}")
        say("    fix the profile and run again; nothing was probed")
        return walk
    say("    passed: ids stable, every mapping inside the allowlists and the workspace, destructive ops marked")
    walk.reached = "audit"
    target = (BUNDLES if install else (out or Path.cwd())) / f"{bundle.app}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(bundle_text(bundle), encoding="utf-8")
    say(f"    bundle written: {target}")

    say("4/5 probe (the real program, a throwaway workspace)")
    if not allow_actions:
        say("    skipped: probes start the program and change state; pass --allow-actions. Not ready until probed.")
        return walk
    results = _timed(walk, "probe", lambda: probe_bundle(bundle, allow_actions=True))
    for result in results:
        say(f"    {'ok    ' if result.ok else 'FAILED'} {result.name}: {result.detail}")
    if not all(r.ok for r in results):
        return walk
    walk.reached = "probe"

    say("5/5 readiness")
    if not install or read_bundle(target) != bundle:
        say("    the bundle is not installed; pass --install (it then joins `asil doctor --report`), "
            "and add tasks under the app's suite for the tasks gate")
        return walk
    from asil.onboard.readiness import assess

    report = _timed(walk, "readiness", lambda: assess(bundle.app))
    for gate in report.gates:
        say(f"    {gate.status:<9} {gate.gate}: {gate.detail}")
    walk.ok = report.ready
    walk.reached = "readiness" if report.ready else walk.reached
    say(f"    {bundle.app} is {'READY' if report.ready else 'NOT READY'} "
        f"({sum(walk.seconds.values()):.1f} s from profile to {'ready' if report.ready else 'this point'}: "
        + ", ".join(f"{gate} {seconds:.1f} s" for gate, seconds in walk.seconds.items()) + ")")
    return walk


def run_cli(profile_path: Path, **options: Any) -> int:
    try:
        walk = onboard(profile_path, **options)
    except AsilError as exc:
        print(f"onboard: {exc.message}{' ' + exc.hint if exc.hint else ''}")
        return 2
    return 0 if walk.ok or (walk.reached == "audit" and not options.get("allow_actions")) else 1
