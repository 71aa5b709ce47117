"""Onboarding from interface profiles: schema, deterministic compile, static audit, probes, readiness, the walk.

The three onboarded apps (Dia, Syncthing, FreeCAD) also run in the parametrized conformance test and in
tests/test_tasks.py (their 30 tasks), against the real programs.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from asil.adapters.generated.bundle import Bundle, bundle_path
from asil.adapters.generated.records import register_bundle
from asil.llm.providers import ReplayProvider, make_provider
from asil.onboard.audit import audit_bundle
from asil.onboard.compile import bundle_text, compile_profile
from asil.onboard.draft import draft_profile
from asil.onboard.pipeline import onboard
from asil.onboard.probe import ProbeRefused, probe_bundle
from asil.onboard.profile import ProfileError, builtin_profile, read_profile
from asil.onboard.readiness import assess, write_report
from asil.plugins import unregister_app
from tests.chat_server import ChatServer
from tests.conftest import run_cli

ONBOARDED = ("dia", "syncthing", "freecad")


def _profile(app: str) -> dict[str, Any]:
    return read_profile(builtin_profile(app))


def _compile(profile: dict[str, Any]) -> Bundle:
    return compile_profile(profile, builtin_profile("dia").parent)


def _problems(profile: dict[str, Any]) -> list[str]:
    return [str(f) for f in audit_bundle(_compile(profile), profile)]


@pytest.mark.parametrize("app", ONBOARDED)
def test_a_profile_compiles_deterministically_to_its_committed_bundle_and_passes_the_audit(app: str) -> None:
    profile = _profile(app)
    text = bundle_text(_compile(profile))
    assert text == bundle_text(_compile(copy.deepcopy(profile)))
    assert text == bundle_path(app).read_text(encoding="utf-8"), f"bundles/{app}.json is stale: asil onboard --install"
    assert _problems(profile) == []


def test_a_profile_breaking_the_schema_gets_one_sentence_naming_the_field(tmp_path: Path) -> None:
    broken = _profile("dia")
    broken["pattern"] = "plugin"
    path = tmp_path / "dia.yaml"
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    with pytest.raises(ProfileError, match=r"pattern: 'plugin' is not one of \['file', 'script', 'service'\]"):
        read_profile(path)
    path.write_text("app: [unclosed", encoding="utf-8")
    with pytest.raises(ProfileError, match="is not valid YAML"):
        read_profile(path)


def test_the_audit_refuses_unlisted_executables_escapes_unstable_ids_and_unmarked_deletes() -> None:
    profile = _profile("dia")
    profile["render"] = ["convert", "{in}", "{out}"]
    profile["normalize"] = ["dia", "--export=/etc/passwd", "{in}"]
    profile["evidence"]["format"]["kinds"]["object"]["id"] = "count(preceding::dia:object)"
    profile["write_paths"][-1]["destructive"] = False
    problems = "\n".join(_problems(profile))
    assert "render: runs 'convert', which resources.executables does not list (dia)" in problems
    assert "normalize: argument '--export=/etc/passwd' names a path outside the workspace" in problems
    assert "depends on position or content" in problems
    assert "write path 'delete_shape': removes data but is not marked destructive" in problems


def test_the_audit_refuses_service_and_script_mappings_that_reach_beyond_the_allowlists() -> None:
    service = _profile("syncthing")
    service["evidence"]["service"]["base_url"] = "http://example.org:{port}"
    service["evidence"]["service"]["start"][2] = "--home=../../elsewhere"
    service["raw_file"] = "../config.xml"
    service["evidence"]["service"]["env"]["LD_PRELOAD"] = "evil.so"
    base = builtin_profile("syncthing").parent
    problems = "\n".join(str(f) for f in audit_bundle(compile_profile(service, base), service))
    assert "base URL host 'example.org' is not in resources.hosts" in problems
    assert "'--home=../../elsewhere' names a path outside the workspace" in problems
    assert "raw_file: '../config.xml' leads outside the workspace" in problems
    assert "LD_PRELOAD" in problems
    script = _profile("freecad")
    script["write_paths"][0]["code"] = "import os\nos.system({name})"
    script["write_paths"][1]["code"] = "doc.__class__.__bases__"
    problems = "\n".join(str(f) for f in audit_bundle(compile_profile(script, base), script))
    assert "write path 'add_box': template imports a module" in problems
    assert "template reaches the dunder attribute" in problems


def test_the_walk_stops_at_the_audit_before_any_probe(tmp_path: Path) -> None:
    profile = _profile("dia")
    profile["write_paths"][0]["writes"] = [{"path": "document('/etc/passwd')/@x", "format": "{label}"}]
    profile["render"] = ["sh", "-c", "{in}"]
    written = tmp_path / "dia.yaml"
    written.write_text(yaml.safe_dump(profile), encoding="utf-8")
    said: list[str] = []
    walk = onboard(written, allow_actions=True, out=tmp_path, say=said.append)
    assert walk.reached == "compile" and "probe" not in walk.seconds and not walk.ok
    assert any("REFUSED render: runs 'sh'" in line for line in said)
    assert not (tmp_path / "dia.json").exists(), "a refused bundle is not written"


def test_probes_need_allow_actions_and_round_trip_on_the_real_program() -> None:
    bundle = _compile(_profile("dia"))
    with pytest.raises(ProbeRefused, match="--allow-actions"):
        probe_bundle(bundle)
    results = probe_bundle(bundle, allow_actions=True)
    assert [r.name for r in results if not r.ok] == []
    assert len([r for r in results if r.name.startswith("round trip")]) == len(bundle.probes)


def test_a_probe_whose_inverse_does_not_restore_the_state_fails() -> None:
    profile = _profile("dia")
    profile["probes"][0]["undo"]["params"]["label"] = "Not the original"
    results = probe_bundle(_compile(profile), allow_actions=True)
    failed = [r for r in results if not r.ok]
    assert [r.detail for r in failed] == ["set_label did not restore the state"]


def test_onboard_walks_every_gate_of_a_profile_and_says_what_to_review(tmp_path: Path) -> None:
    said: list[str] = []
    walk = onboard(builtin_profile("dia"), allow_actions=True, out=tmp_path, say=said.append)
    text = "\n".join(said)
    assert walk.reached == "probe" and set(walk.seconds) == {"qualify", "compile", "audit", "probe"}
    for gate in ("1/5 qualify", "2/5 compile", "3/5 audit", "4/5 probe", "5/5 readiness", "REVIEW the allowlists",
                 "function delete_shape: delete DESTRUCTIVE", "round trip 5: add_box / delete_shape"):
        assert gate in text
    assert "not installed" in text  # readiness is only claimed for an installed bundle
    assert (tmp_path / "dia.json").read_text(encoding="utf-8") == bundle_path("dia").read_text(encoding="utf-8")


def test_the_onboard_command_stops_before_probes_unless_actions_are_allowed(tmp_path: Path) -> None:
    done = run_cli("onboard", str(builtin_profile("dia")), "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped: probes start the program and change state; pass --allow-actions" in done.stdout
    assert (tmp_path / "dia.json").is_file()
    broken = tmp_path / "broken.yaml"
    broken.write_text("profile_version: 1\napp: Bad Name\n", encoding="utf-8")
    done = run_cli("onboard", str(broken))
    assert done.returncode == 2 and "does not follow the interface-profile schema" in done.stdout


def test_the_readiness_report_marks_dia_ready_with_every_gate_evidenced(tmp_path: Path) -> None:
    [report] = write_report(tmp_path, ["dia"])
    assert report.ready and report.generated, report.reasons()
    gates = {g.gate: g for g in report.gates}
    assert {"program", "version", "start_stop", "observe", "render", "raw_validator", "tasks"} <= set(gates)
    assert {f"actions:{op.name}" for op in _compile(_profile("dia")).functions} <= set(gates)
    assert all(g.status == "ok" and g.detail for g in report.gates)
    assert gates["tasks"].detail.startswith("10 tasks sound")
    data = json.loads((tmp_path / "readiness.json").read_text(encoding="utf-8"))
    assert data["apps"]["dia"]["ready"] is True and data["apps"]["dia"]["reasons"] == []
    assert (tmp_path / "readiness.txt").read_text(encoding="utf-8").startswith("READY     dia (file, generated)")


def test_readiness_turns_not_ready_when_the_program_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no dia here
    report = assess("dia")
    assert not report.ready
    assert report.reasons()[0] == "program failed: dia is not installed (Debian package dia)"
    assert all(g.status == "unchecked" for g in report.gates[1:])  # nothing after it counts as checked


def test_readiness_turns_not_ready_when_a_mapping_is_corrupted() -> None:
    data = json.loads(bundle_path("dia").read_text(encoding="utf-8"))
    data["app"] = "dia_corrupted"
    set_label = next(f for f in data["functions"] if f["name"] == "set_label")
    set_label["nodes"][0]["path"] = "dia:attribute[@name='nothing']/dia:string"
    register_bundle(Bundle.model_validate(data))
    try:
        report = assess("dia_corrupted")
    finally:
        unregister_app("dia_corrupted")
    assert not report.ready
    observe = next(g for g in report.gates if g.gate == "observe")
    assert observe.status == "failed" and "set_label" in observe.detail and "no" in observe.detail
    assert {g.status for g in report.gates if g.gate in ("tasks", "raw_validator")} == {"unchecked"}


def test_a_hand_written_adapter_goes_through_the_same_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASIL_GITEA_URL", raising=False)  # no live Gitea here: its program gate cannot pass
    report = assess("gitea")
    assert not report.ready and not report.generated
    assert report.gates[0].gate == "program" and report.gates[0].status == "failed"
    assert {g.status for g in report.gates[1:]} == {"unchecked"}
    assert "actions:create_issue" in {g.gate for g in report.gates}


PROSE = ("Dia users mostly retitle shapes, recolour them and resize them. Deleting a shape loses it.\n")


def _prose_profile(tmp_path: Path) -> Path:
    profile = _profile("dia")
    profile["evidence"]["prose"] = "notes.txt"
    profile["write_paths"] = [w for w in profile["write_paths"] if w["kind"] == "insert"]  # the box template stays reviewed
    profile["probes"] = [p for p in profile["probes"] if p["do"]["function"] in ("set_label", "set_fill")]
    (tmp_path / "notes.txt").write_text(PROSE, encoding="utf-8")
    path = tmp_path / "dia.yaml"
    path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    return path


def test_a_model_drafts_write_paths_from_prose_over_http_and_the_draft_is_audited(tmp_path: Path) -> None:
    drafted = {"write_paths": [
        {"name": "set_label", "description": "Retitle a shape.", "kind": "set", "element": "object",
         "sets": {"label": {"type": "string"}}, "example": {"id": "O0", "label": "Go"}},
        {"name": "set_fill", "description": "Recolour a shape.", "kind": "set", "element": "object",
         "sets": {"fill": {"type": "string", "pattern": "^#[0-9a-f]{6}$"}}, "example": {"id": "O0", "fill": "#00ff00"}}]}
    server = ChatServer()
    server.behaviours.append({"text": "Here it is:\n" + json.dumps(drafted)})
    try:
        provider = make_provider("local-model", base_url=server.url, stream=False)
        profile = draft_profile(read_profile(_prose_profile(tmp_path)), tmp_path, provider)
    finally:
        server.close()
    prompt = json.dumps(server.requests[0]["body"]["messages"])
    assert "Retitle shapes" not in prompt and "retitle shapes" in prompt  # the prose went to the model
    assert '"object": ["fill", "label", "width"]' in prompt.replace("\\", "")  # only the format's writable attributes
    assert [(w["name"], w.get("origin")) for w in profile["write_paths"]] == [
        ("add_box", None), ("set_label", "model"), ("set_fill", "model")]
    bundle = compile_profile(profile, tmp_path)
    problems = [str(f) for f in audit_bundle(bundle, profile)]
    assert problems == ["write path 'add_box': no probe exercises it (add a round trip to probes)"]


def test_a_drafted_write_path_carrying_code_is_refused(tmp_path: Path) -> None:
    reply = {"write_paths": [{"name": "set_label", "description": "x", "kind": "set", "element": "object",
                              "writes": [{"path": "@type", "format": "{label}"}], "params": {"label": {"type": "string"}}}]}
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"text": json.dumps(reply)}) + "\n", encoding="utf-8")
    profile = draft_profile(read_profile(_prose_profile(tmp_path)), tmp_path, ReplayProvider(replies))
    problems = [str(f) for f in audit_bundle(compile_profile(profile, tmp_path), profile)]
    assert any("drafted by a model and carries code or templates" in p for p in problems)


def test_the_scripted_provider_drafts_one_set_path_per_writable_attribute(tmp_path: Path) -> None:
    profile = draft_profile(read_profile(_prose_profile(tmp_path)), tmp_path, make_provider("scripted"))
    assert [w["name"] for w in profile["write_paths"]] == ["add_box", "set_object_fill", "set_object_label",
                                                          "set_object_width"]
