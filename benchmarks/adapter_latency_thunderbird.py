"""Latency and observation-size benchmark of the Thunderbird adapter (real Thunderbird + Dovecot).

For a small mailbox (8 messages) and a large one (5,000 messages in the inbox) it measures, with
``time.perf_counter``:

* cold start: a new adapter's first observation (starts Dovecot, the SMTP sink and a headless
  Thunderbird, which then lists and syncs every folder);
* ``adapter.observe()`` (one page of 25 messages, re-synced with the server) and its size
  (``estimate_tokens`` on ``json.dumps(obs.to_agent_dict())``);
* a warm action without the observation an agent gets back (``execute(..., observe=False)``):
  toggling the flag of a random message on the page (validation + IMAP STORE + a SELECT that
  confirms the server has it), and tagging one;
* sending (excluded from the action target: SMTP plus the copy to Sent) and ``save()``;
* attachments: an inbox of 25 messages that each carry a 1 MB attachment (the whole first page):
  the first observation after start (Thunderbird fetches and MIME-parses each of the 25 messages),
  a warm observation (the lists are cached), its size, ``save_attachment`` of a 1 MB attachment and
  ``send_message`` with a 1 MB workspace file attached;
* compose windows (Thunderbird's own, see asil_compose.js): per cycle ``open_compose``,
  ``edit_compose`` (the body), ``attach_to_compose`` (a 20 KB file), ``save_compose_draft`` (until the
  draft is in Drafts), ``close_compose``, ``open_draft`` (Thunderbird fetches and opens the draft),
  ``send_compose`` (SMTP, copy to Sent, the draft removed, the window closed), and ``observe()`` with
  three windows open;
* replies and forwards (Thunderbird fills them in from the original message): per cycle
  ``open_reply``, ``open_reply`` with reply_all, ``open_forward`` inline and as an attachment, each
  closed again, and one reply sent.

It asserts that actions succeed and land, never on timings.

    .venv/bin/python benchmarks/adapter_latency_thunderbird.py [--repeats 30] [--only compose|replies]
"""

from __future__ import annotations

import argparse
import base64
import json
import platform
import random
from typing import Any

from timing import pair, timed

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.adapters.thunderbird.builders import build_maildir
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

SMALL: dict[str, Any] = {"folders": ["Archive"], "messages": [
    {"subject": f"Message {i}", "from": f"Person {i} <p{i}@example.com>", "read": i % 2 == 0,
     "date": f"2026-11-0{i + 1}T09:00:00Z", "body": f"Body of message {i}.\n"} for i in range(8)]}
LARGE: dict[str, Any] = {"folders": ["Archive"], "generate": {"folder": "INBOX", "count": 5000}}


def ok(adapter: ThunderbirdAdapter, action: Action) -> float:
    ms, result = timed(lambda: adapter.execute(action, observe=False))
    assert result.ok, result.error
    return float(ms)


def measure(label: str, spec: dict[str, Any], repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-thunderbird-")
    build_ms, _ = timed(lambda: build_maildir(ws.root / "mail", spec))
    adapter = ThunderbirdAdapter(ws, "mail")
    try:
        cold_ms, obs = timed(adapter.observe)
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        ids = [e.id for e in obs.elements if e.type == "message"]
        rng = random.Random(7)
        flag, tag = [], []
        for i in range(repeats):
            target = rng.choice(ids)
            flag.append(ok(adapter, Action(action_type="invoke_function", target="set_flags",
                                           params={"messages": [target], "flagged": i % 2 == 0})))
            tag.append(ok(adapter, Action(action_type="invoke_function", target="tag_messages",
                                          params={"messages": [target], ("add" if i % 2 == 0 else "remove"): ["Work"]})))
        send = [ok(adapter, Action(action_type="invoke_function", target="send_message",
                                   params={"to": ["x@example.com"], "subject": f"Bench {i}", "body": "hi\n"}))
                for i in range(max(3, repeats // 5))]
        save_ms, _ = timed(adapter.save)
        total = obs.navigation.paging.total if obs.navigation.paging else 0
    finally:
        adapter.close()
        ws.cleanup()
    return {"mailbox": label, "messages": total, "build_ms": build_ms, "cold_ms": cold_ms, "tokens": tokens,
            "observe": observe, "flag": flag, "tag": tag, "send": send, "save_ms": save_ms}


def attachment_spec() -> dict[str, Any]:
    blob = base64.b64encode(random.Random(3).randbytes(1024 * 1024)).decode()
    return {"messages": [{"subject": f"Scan {i}", "date": f"2026-11-01T{i % 24:02d}:00:00Z",
                          "attachments": [{"name": f"scan-{i}.bin", "content_type": "application/octet-stream",
                                           "base64": blob}]} for i in range(25)]}


def measure_attachments(repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-thunderbird-")
    build_maildir(ws.root / "mail", attachment_spec())
    (ws.root / "upload.bin").write_bytes(random.Random(5).randbytes(1024 * 1024))
    adapter = ThunderbirdAdapter(ws, "mail")
    try:
        adapter._mail()  # started, so the first observation below measures the attachment lists only
        first_ms, obs = timed(adapter.observe)
        listed = sum(1 for e in obs.elements if e.type == "message" and e.meta.get("attachments"))
        assert listed == 25, listed
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        saves = [ok(adapter, Action(action_type="invoke_function", target="save_attachment",
                                    params={"message": f"INBOX#{i % 25 + 1}", "name": f"scan-{i % 25}.bin",
                                            "path": f"saved/{i}.bin"})) for i in range(repeats)]
        sends = [ok(adapter, Action(action_type="invoke_function", target="send_message",
                                    params={"to": ["x@example.com"], "subject": f"Upload {i}", "body": "hi\n",
                                            "attachments": ["upload.bin"]})) for i in range(max(3, repeats // 5))]
    finally:
        adapter.close()
        ws.cleanup()
    return {"first_ms": first_ms, "observe": observe, "tokens": tokens, "save": saves, "send": sends}


def fn(name: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


def compose_cycle(adapter: ThunderbirdAdapter, i: int, times: dict[str, list[float]]) -> None:
    """One window from opening to a saved draft, and that draft from opening to sent, each step timed."""
    def step(name: str, action: Action) -> list[str]:
        ms, result = timed(lambda: adapter.execute(action, observe=False))
        assert result.ok, result.error
        times.setdefault(name, []).append(float(ms))
        return result.changed

    window = step("open_compose", fn("open_compose", to=["carol@example.com"], subject=f"Draft {i}"))[0]
    step("edit_compose", fn("edit_compose", window=window, body=f"Hi Carol,\nversion {i}.\n"))
    step("attach_to_compose", fn("attach_to_compose", window=window, attachments=["notes.txt"]))
    step("save_compose_draft", fn("save_compose_draft", window=window))
    draft = next(w["draft"] for w in adapter.compose_seen if w["id"] == window)
    step("close_compose", fn("close_compose", window=window))
    opened = step("open_draft", fn("open_draft", draft=draft))[0]
    step("send_compose", fn("send_compose", window=opened))


def measure_compose(repeats: int) -> dict[str, list[float]]:
    ws = Workspace.temporary(prefix="asil-bench-thunderbird-")
    build_maildir(ws.root / "mail", SMALL)
    (ws.root / "notes.txt").write_text("notes\n" * 3000)
    adapter = ThunderbirdAdapter(ws, "mail")
    times: dict[str, list[float]] = {}
    try:
        adapter.observe()
        for i in range(repeats):
            compose_cycle(adapter, i, times)
        for i in range(3):
            assert adapter.execute(fn("open_compose", to=["x@example.com"], subject=f"Open {i}"), observe=False).ok
        times["observe (3 windows)"] = [timed(adapter.observe)[0] for _ in range(repeats)]
        assert len(list(adapter.outbox.glob("*.eml"))) == repeats  # every cycle's draft was sent
    finally:
        adapter.close()
        ws.cleanup()
    return times


def reply_cycle(adapter: ThunderbirdAdapter, i: int, times: dict[str, list[float]]) -> None:
    """Each kind of reply and forward of INBOX#1 opened (timed) and closed; one reply sent (timed)."""
    kinds: dict[str, dict[str, Any]] = {"open_reply": {}, "open_reply (all)": {"reply_all": True}, "open_forward (inline)": {},
             "open_forward (attachment)": {"as_attachment": True}}
    for label, extra in kinds.items():
        action = fn(label.split(" ")[0], message="INBOX#1", **extra)
        ms, result = timed(lambda: adapter.execute(action, observe=False))  # noqa: B023  (called at once)
        assert result.ok, result.error
        times.setdefault(label, []).append(float(ms))
        if label != "open_reply":
            assert adapter.execute(fn("close_compose", window=result.changed[0]), observe=False).ok
        else:
            window = result.changed[0]
    adapter.execute(fn("edit_compose", window=window, subject=f"Re: cycle {i}"), observe=False)
    times.setdefault("send_compose (reply)", []).append(ok(adapter, fn("send_compose", window=window)))


def print_replies(repeats: int) -> None:
    ws = Workspace.temporary(prefix="asil-bench-thunderbird-")
    build_maildir(ws.root / "mail", SMALL)
    adapter = ThunderbirdAdapter(ws, "mail")
    times: dict[str, list[float]] = {}
    try:
        adapter.observe()
        for i in range(repeats):
            reply_cycle(adapter, i, times)
        assert len(list(adapter.outbox.glob("*.eml"))) == repeats
    finally:
        adapter.close()
        ws.cleanup()
    print(f"\n| replies and forwards ({repeats} cycles; ms, p50 / p95) | " + " | ".join(times) + " |")
    print("|---|" + "---|" * len(times))
    print("| small mailbox | " + " | ".join(pair(v) for v in times.values()) + " |")


def print_compose(repeats: int) -> None:
    times = measure_compose(repeats)
    print(f"\n| compose windows ({repeats} cycles; ms, p50 / p95) | " + " | ".join(times) + " |")
    print("|---|" + "---|" * len(times))
    print("| small mailbox | " + " | ".join(pair(v) for v in times.values()) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--only", choices=["compose", "replies"], help="run only these measurements")
    args = parser.parse_args()
    if args.only:
        {"compose": print_compose, "replies": print_replies}[args.only](args.repeats)
        return
    rows = [measure("small", SMALL, args.repeats), measure("5,000 messages", LARGE, args.repeats)]
    print(f"Thunderbird adapter latency ({platform.machine()}, {args.repeats} repeats; ms, p50 / p95)\n")
    print("| mailbox | build | cold start | observe | obs tokens | set_flags | tag_messages | send (excl.) | save |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mailbox']} ({r['messages']} in INBOX) | {r['build_ms']:.0f} | {r['cold_ms']:.0f} | "
              f"{pair(r['observe'])} | {r['tokens']} | {pair(r['flag'])} | {pair(r['tag'])} | {pair(r['send'])} | "
              f"{r['save_ms']:.0f} |")
    a = measure_attachments(args.repeats)
    print("\n| attachments (25 messages x 1 MB) | first observe | observe | obs tokens | save_attachment 1 MB "
          "| send with 1 MB |")
    print("|---|---|---|---|---|---|")
    print(f"| page of 25 with attachments | {a['first_ms']:.0f} | {pair(a['observe'])} | {a['tokens']} | "
          f"{pair(a['save'])} | {pair(a['send'])} |")
    print_compose(args.repeats)
    print_replies(args.repeats)


if __name__ == "__main__":
    main()
