"""Attachments in the Thunderbird adapter, against a real headless Thunderbird on a real Dovecot:
listed in the observation, saved into the workspace, attached to sent mail and drafts, and bad
requests refused with the mailbox and the workspace files unchanged.

One warm adapter serves the module; each test leaves the files it made behind only where the next
test does not look.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import hashlib
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.adapters.thunderbird.builders import build_maildir
from asil.apps.mailserver import dovecot_path
from asil.protocol import Action
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("thunderbird") is None or dovecot_path() is None,
                                 reason="needs thunderbird and dovecot-imapd (scripts/install-system.sh)")]

PDF = "%PDF-1.4\n% Invoice 1042: 1,280.00 EUR\n%%EOF\n"
PNG = bytes(range(256)) * 8  # binary bytes must come back exactly
SPEC: dict[str, Any] = {"messages": [
    {"subject": "Invoice 1042", "from": "Billing <billing@example.com>", "date": "2026-11-02T09:00:00Z",
     "attachments": [{"name": "invoice-1042.pdf", "content_type": "application/pdf", "text": PDF},
                     {"name": "chart.png", "content_type": "image/png",
                      "base64": __import__("base64").b64encode(PNG).decode()}]},
    {"subject": "Plain note", "date": "2026-11-03T09:00:00Z", "body": "No files here.\n"},
    {"subject": "Rechnung", "date": "2026-11-01T09:00:00Z",  # RFC 2231 file names come through decoded
     "attachments": [{"name": "Rechnung März €.pdf", "content_type": "application/pdf", "text": "%PDF ü"}]}]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def mailbox_state(adapter: ThunderbirdAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    data["environment"].pop("services")
    return json.dumps(data, sort_keys=True)


def workspace_files(ws: Workspace) -> dict[str, str]:
    """Every user file of the workspace (not ASIL's private area) with its SHA-256."""
    return {str(p.relative_to(ws.root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(ws.root.rglob("*")) if p.is_file() and p.relative_to(ws.root).parts[0] != ".asil"}


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThunderbirdAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("mail"))
    build_maildir(ws.root / "mail", SPEC)
    (ws.root / "reports").mkdir()
    (ws.root / "reports" / "q3.csv").write_text("quarter,revenue\nQ3,140300\n")
    (ws.root / "taken.pdf").write_text("an older file\n")
    adapter = ThunderbirdAdapter(ws, "mail")
    yield adapter
    adapter.close()


def message(adapter: ThunderbirdAdapter, subject: str, folder: str = "INBOX") -> Any:
    adapter.execute(Action(action_type="navigate", target=folder, params={"offset": 0, "search": ""}), observe=False)
    found = [e for e in adapter.observe().elements if e.type == "message" and e.label == subject]
    assert found, f"no message {subject!r} in {folder}"
    return found[0]


def test_the_observation_lists_each_attachment_name_type_and_size(warm: ThunderbirdAdapter) -> None:
    invoice = message(warm, "Invoice 1042")
    assert invoice.meta["attachments"] == [
        {"name": "invoice-1042.pdf", "content_type": "application/pdf", "size": len(PDF)},
        {"name": "chart.png", "content_type": "image/png", "size": len(PNG)}]
    assert "attachments" not in message(warm, "Plain note").meta


def test_save_attachment_writes_the_exact_bytes_and_overwrites_only_when_asked(warm: ThunderbirdAdapter) -> None:
    invoice = message(warm, "Invoice 1042").id
    root = warm.workspace.root
    result = warm.execute(fn("save_attachment", message=invoice, name="invoice-1042.pdf",
                             path="invoices/invoice-1042.pdf"), observe=False)
    assert result.ok, result.error
    assert (root / "invoices" / "invoice-1042.pdf").read_text() == PDF
    assert warm.execute(fn("save_attachment", message=invoice, name="chart.png", path="chart.png"), observe=False).ok
    assert (root / "chart.png").read_bytes() == PNG
    refused = warm.execute(fn("save_attachment", message=invoice, name="chart.png", path="taken.pdf"), observe=False)
    assert refused.status == "invalid" and refused.error is not None and "already exists" in refused.error.message
    assert (root / "taken.pdf").read_text() == "an older file\n"
    assert not (root / "new").exists()  # the folder the first step made went too
    replaced = warm.execute(fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="taken.pdf",
                               overwrite=True), observe=False)
    assert replaced.ok and (root / "taken.pdf").read_text() == PDF
    (root / "taken.pdf").write_text("an older file\n")
    german = message(warm, "Rechnung")
    assert [a["name"] for a in german.meta["attachments"]] == ["Rechnung März €.pdf"]
    assert warm.execute(fn("save_attachment", message=german.id, name="Rechnung März €.pdf",
                           path="Rechnungen/März.pdf"), observe=False).ok
    assert (root / "Rechnungen" / "März.pdf").read_text() == "%PDF ü"


def test_bad_attachment_requests_are_refused_and_change_nothing(warm: ThunderbirdAdapter, tmp_path: Path) -> None:
    invoice, plain = message(warm, "Invoice 1042").id, message(warm, "Plain note").id
    root = warm.workspace.root
    (tmp_path / "secret.txt").write_text("not the agent's\n")
    (root / "outlink").symlink_to(tmp_path)
    (root / "big.bin").write_bytes(b"\0" * (10 * 1024 * 1024 + 1))
    (root / "a-file").write_text("in the way\n")
    before, files = mailbox_state(warm), workspace_files(warm.workspace)
    bad = {
        "no attachment named": fn("save_attachment", message=invoice, name="invoice-9999.pdf", path="x.pdf"),
        "has no attachment": fn("save_attachment", message=plain, name="invoice-1042.pdf", path="x.pdf"),
        "no message": fn("save_attachment", message="INBOX#999", name="invoice-1042.pdf", path="x.pdf"),
        "climbs out": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="../x.pdf"),
        "absolute path": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="/tmp/x.pdf"),
        "reserved": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path=".asil/x.pdf"),
        "already exists": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="taken.pdf"),
        "is a folder": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="reports"),
        "inside the mailbox": fn("save_attachment", message=invoice, name="chart.png", path="mail/cur/x.png"),
        "is a file": fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="a-file/x.pdf"),
        "not a file in the workspace": fn("send_message", to=["d@example.com"], subject="s",
                                          attachments=["missing.csv"]),
        "at most 10 mb": fn("send_message", to=["d@example.com"], subject="s", attachments=["big.bin"]),
        "leads outside": fn("save_draft", to=["d@example.com"], subject="s", attachments=["outlink/secret.txt"]),
        "through a symlink": fn("save_attachment", message=invoice, name="chart.png", path="outlink/x.png"),
        "not a file": fn("save_draft", to=["d@example.com"], subject="s", attachments=["reports"]),
    }
    for needle, action in bad.items():
        result = warm.execute(action, observe=False)
        assert result.status == "invalid", action
        assert result.error is not None and needle in result.error.message.lower().replace("there is ", ""), (
            needle, result.error.message)
    assert mailbox_state(warm) == before
    assert workspace_files(warm.workspace) == files
    assert not list((warm.workspace.private("thunderbird") / "smtp-sink").glob("*.eml"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt"]
    for name in ("big.bin", "a-file", "outlink"):
        (root / name).unlink()


def test_sent_mail_and_drafts_carry_the_attached_files(warm: ThunderbirdAdapter) -> None:
    root = warm.workspace.root
    sent = warm.execute(fn("send_message", to=["dave@example.com"], subject="Q3 figures", body="Attached.\n",
                           attachments=["reports/q3.csv", "chart.png", "Rechnungen/März.pdf"]), observe=False)
    assert sent.ok, sent.error
    drafted = warm.execute(fn("save_draft", to=["carol@example.com"], subject="Draft with file",
                              attachments=["invoices/invoice-1042.pdf"]), observe=False)
    assert drafted.ok, drafted.error
    (eml,) = sorted((warm.workspace.private("thunderbird") / "smtp-sink").glob("*.eml"))
    parsed = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    assert isinstance(parsed, email.message.EmailMessage)
    parts = {p.get_filename(): p.get_payload(decode=True) for p in parsed.iter_attachments()}
    assert parts == {"q3.csv": (root / "reports" / "q3.csv").read_bytes(), "chart.png": PNG,
                     "März.pdf": "%PDF ü".encode()}
    draft = message(warm, "Draft with file", "Drafts")
    assert [a["name"] for a in draft.meta["attachments"]] == ["invoice-1042.pdf"]
    warm.save()
    (stored,) = (root / "mail" / ".Drafts" / "cur").iterdir()
    stored_message = email.message_from_bytes(stored.read_bytes(), policy=email.policy.default)
    assert isinstance(stored_message, email.message.EmailMessage)
    assert [p.get_filename() for p in stored_message.iter_attachments()] == ["invoice-1042.pdf"]


def test_a_failing_batch_takes_back_the_saved_attachments(warm: ThunderbirdAdapter) -> None:
    invoice = message(warm, "Invoice 1042").id
    root = warm.workspace.root
    files = workspace_files(warm.workspace)
    result = warm.execute(Action(action_type="batch", params={"actions": [
        fn("save_attachment", message=invoice, name="chart.png", path="new/chart.png").model_dump(exclude_none=True),
        fn("save_attachment", message=invoice, name="chart.png", path="taken.pdf",
           overwrite=True).model_dump(exclude_none=True),
        fn("set_flags", messages=["INBOX#999"], read=True).model_dump(exclude_none=True),  # fails
    ]}), observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 3:")
    assert workspace_files(warm.workspace) == files
    assert (root / "taken.pdf").read_text() == "an older file\n"
    assert not (root / "new").exists()  # the folder the first step made went too


def test_attachments_still_save_after_dovecot_restarts_on_another_port(warm: ThunderbirdAdapter) -> None:
    # The cached attachment list holds part URLs with the old port in them; Thunderbird routes them to
    # the account's server, whose port the adapter has updated, so the cache stays usable.
    invoice = message(warm, "Invoice 1042").id
    assert warm.dovecot is not None and warm.dovecot.process is not None
    old_port = warm.dovecot.port
    os.killpg(warm.dovecot.process.pid, signal.SIGKILL)
    warm.dovecot.process.process.wait(timeout=10)
    result = warm.execute(fn("save_attachment", message=invoice, name="invoice-1042.pdf", path="after-restart.pdf"),
                          observe=False)
    assert result.ok, result.error
    assert warm.dovecot.port != old_port
    assert (warm.workspace.root / "after-restart.pdf").read_text() == PDF
