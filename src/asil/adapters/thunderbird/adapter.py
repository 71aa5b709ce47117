"""The Thunderbird adapter: a real Thunderbird (headless, over Marionette) on a real Dovecot IMAP server.

The mailbox is a Maildir folder in the workspace (``mail`` unless the task opens another). On first
use the adapter starts a private Dovecot serving a live copy of it, a local SMTP sink, and a
Thunderbird whose profile lives in the workspace's private area. Actions run Thunderbird's own
mail APIs; :meth:`save` writes the live Maildir back into the workspace. A batch is atomic by
snapshot: if a step fails, both programs stop, the Maildir, address book, filters and sink are
restored to their state before the batch, and both start again.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from asil.adapters.api import response_text, with_api
from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.functions import FunctionTable
from asil.adapters.thunderbird import actions as act
from asil.adapters.thunderbird.actions import MailCall
from asil.adapters.thunderbird.api import MAIL_API
from asil.adapters.thunderbird.builders import build_maildir
from asil.adapters.thunderbird.compose import COMPOSE_FUNCTIONS, FILE_OPS, PRECHECKS, lost_note, read_compose_seed
from asil.adapters.thunderbird.view import CONTACT_LIMIT, DEFAULT_LIMIT, build_observation
from asil.apps.display import Display
from asil.apps.mailserver import MAIL_PASSWORD, MAIL_USER, DovecotServer, SmtpSink, dovecot_path
from asil.apps.thunderbird import ThunderbirdLost, ThunderbirdSession, thunderbird_path
from asil.protocol import (
    Action,
    ActionFailed,
    DocumentError,
    InvalidAction,
    Observation,
)
from asil.workspace import Workspace

DEFAULT_DOCUMENT = "mail"
CONTACTS_FILE = "contacts.json"
SAVED_STATE = {"ImapMail/127.0.0.1/msgFilterRules.dat": "msgFilterRules.dat", "prefs.js": "prefs.js"}
PROFILE_STATE = ("abook.sqlite", "abook.sqlite-wal", "ImapMail/127.0.0.1/msgFilterRules.dat", "prefs.js")


def check_maildir(path: Path, document: str) -> None:
    """Refuse a mailbox path that is not a Maildir before any program sees it (a missing one is created)."""
    if not path.exists():
        return
    if not path.is_dir():
        raise DocumentError(f"{document!r} is a file, not a Maildir folder.",
                            hint="Give the path of a Maildir folder (with cur/, new/ and tmp/), or a new name.")
    if not (path / "cur").is_dir() and any(path.iterdir()):
        raise DocumentError(f"{document!r} is not a Maildir: it has no 'cur' folder.",
                            hint="A Maildir holds cur/, new/ and tmp/ folders; use an empty or missing folder "
                            "for a new mailbox.")


API_EXAMPLES = [
    {"action_type": "api_call", "target": "state", "params": {"request": "state", "data": {"folder": "INBOX",
                                                                                           "search": "invoice"}}},
    {"action_type": "api_call", "target": "create_folder",
     "params": {"request": "create_folder", "data": {"name": "Paid"}}},
]
API_TIPS = [
    "api_call runs one of Thunderbird's mail operations (asil_mail.js over Marionette) from the schema's api_calls, "
    "with its data as that script names it (message lists are 'ids'), e.g. {\"request\": \"flags\", \"data\": "
    "{\"ids\": [\"INBOX#3\"], \"read\": true}}. The answer comes back in the result's output. delete and "
    "delete_contact need \"destructive\": true. If an operation fails, the account is put back as it was.",
]


class ThunderbirdAdapter(Adapter):
    """Folders, a page of messages, contacts and filters of one IMAP account."""

    vocabulary = with_api(act.VOCABULARY, MAIL_API.specs(), examples=API_EXAMPLES, tips=API_TIPS)
    functions = FunctionTable("thunderbird", [*(act.FUNCTIONS[name] for name in act.FUNCTIONS.names()),
                                              *COMPOSE_FUNCTIONS])
    doomed_api_call = {"request": "move", "data": {"ids": ["INBOX#1"], "folder": "No such folder"}}

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 display: Display | None = None, **options: Any):
        document = document or DEFAULT_DOCUMENT
        super().__init__(workspace, document)
        self.maildir = workspace.resolve(document)
        check_maildir(self.maildir, document)
        self.home = workspace.private("thunderbird")
        self.profile = self.home / "profile"
        self.outbox = self.home / "smtp-sink"
        self.folder, self.offset, self.limit, self.search = "INBOX", 0, limit, ""
        self.dovecot: DovecotServer | None = None
        self.sink: SmtpSink | None = None
        self.session: ThunderbirdSession | None = None
        self.display = display  # a private X display shows Thunderbird's windows (the GUI participant); else headless
        self.restarts = {"thunderbird": 0, "dovecot": 0}
        self.contacts = self._read_contacts() if not (self.profile / "abook.sqlite").is_file() else []
        # Compose windows the task starts with (compose-windows.json), opened by a new profile's first Thunderbird.
        self.pending_compose = read_compose_seed(workspace) if not (self.profile / "prefs.js").is_file() else []
        self.compose_seen: list[dict[str, Any]] = []  # the open compose windows last seen
        self.compose_lost: list[str] = []  # windows a restart of Thunderbird closed

    # ------------------------------------------------------------ the services
    def _mail(self) -> ThunderbirdSession:
        """Thunderbird with its Dovecot and SMTP sink, started on first use or after a crash."""
        if self.sink is None:
            self.sink = SmtpSink(self.outbox)
        if self.dovecot is None:
            if not self.maildir.exists():  # a new mailbox: the inbox and the folders Thunderbird writes to
                build_maildir(self.maildir, {})
            self.dovecot = DovecotServer(self.maildir)
            self.dovecot.start()
        elif not self.dovecot.alive:
            self.dovecot.start()
            self.restarts["dovecot"] += 1
            if self.session is not None and self.session.alive:
                self.session.call("ports", {"imap_port": self.dovecot.port})
        if self.session is None or not self.session.alive:
            if self.session is not None:
                self.session.stop()
                self.restarts["thunderbird"] += 1
                self.compose_lost += [w["id"] for w in self.compose_seen]
                self.compose_seen = []
            self.session = None
            self.session = ThunderbirdSession(self.profile, imap_port=self.dovecot.port, smtp_port=self.sink.port,
                                              user=MAIL_USER, password=MAIL_PASSWORD, display=self.display)
            self._load_contacts(self.session)
            self._open_pending_compose(self.session)
        return self.session

    def _read_contacts(self) -> list[dict[str, Any]]:
        """The workspace's contacts.json (task set-up) for a new profile's address book; checked before any
        program starts."""
        path = self.workspace.root / CONTACTS_FILE
        if not path.is_file():
            return []
        try:
            contacts = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(contacts, list):
                raise TypeError("it is not a JSON list")
            cards = [act.parse_params(act.AddContact, c, "a contact").model_dump() for c in contacts]
        except (ValueError, TypeError, InvalidAction) as exc:
            message = exc.message if isinstance(exc, InvalidAction) else str(exc)
            raise DocumentError(f"{CONTACTS_FILE} is not a list of contacts: {message}",
                                hint="Each contact is an object with first_name, last_name, email, phone ...") from None
        return [{k: v for k, v in card.items() if v is not None} for card in cards]

    def _load_contacts(self, session: ThunderbirdSession) -> None:
        # Seeded contacts get ids derived from their place and fields (not Thunderbird's random UIDs), so
        # the same set-up gives the same contact ids on every reset.
        for index, card in enumerate(self.contacts):
            uid = uuid.uuid5(uuid.NAMESPACE_URL, f"asil-contact:{index}:{json.dumps(card, sort_keys=True)}")
            session.call("add_contact", {"fields": card, "uid": str(uid)})
        self.contacts = []

    def _open_pending_compose(self, session: ThunderbirdSession) -> None:
        for spec in self.pending_compose:
            spec["attachments"] = [self._attachment_file(path) for path in spec["attachments"]]
            session.call("compose_open", spec)
        self.pending_compose = []
        self.compose_seen = session.call("compose_list", {})

    def _call(self, op: str, params: dict[str, Any], *, read_only: bool = False) -> Any:
        try:
            return self._mail().call(op, params)
        except ThunderbirdLost as exc:
            if not read_only:
                raise ActionFailed(f"{exc.message} The action may not have been applied.",
                                   hint="Thunderbird restarts on the next action; observe to see the state.") from None
            return self._mail().call(op, params)  # reads are safe to retry once on a fresh Thunderbird

    # ------------------------------------------------------------ observe
    def mail_state(self, folder: str, offset: int = 0, limit: int = DEFAULT_LIMIT, search: str = "",
                   contact_limit: int = CONTACT_LIMIT) -> dict[str, Any]:
        data: dict[str, Any] = self._call("state", {"folder": folder, "offset": offset, "limit": limit,
                                                    "search": search, "contact_limit": contact_limit,
                                                    "refresh": True}, read_only=True)
        self.compose_seen = data["compose"]
        return data

    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._call("check_folder", {"folder": view}, read_only=True)
            self.folder, self.offset = view, 0
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), 100)
        try:
            state = self.mail_state(self.folder, self.offset, self.limit, self.search)
        except InvalidAction:  # the folder shown is gone (deleted or moved): fall back to the inbox
            self.folder, self.offset, self.search = "INBOX", 0, ""
            state = self.mail_state(self.folder, self.offset, self.limit, self.search)
        assert self.dovecot is not None
        # Ports are left out: they change on every start, and an observation shows the mail, not the plumbing.
        service = {"imap": "Dovecot (private, loopback)", "smtp_sink": "local sink (private, loopback)",
                   "restarts": dict(self.restarts)}
        if self.compose_lost:
            service["compose_windows_lost"] = lost_note(self.compose_lost)
        return build_observation(state, step=self.step, document=str(self.document), offset=self.offset,
                                 limit=self.limit, search=self.search or None, service=service)

    # ------------------------------------------------------------ actions
    def _translate(self, action: Action) -> MailCall:
        """The asil_mail.js operation and its params for a change (set_value or invoke_function);
        InvalidAction for anything malformed."""
        if action.action_type == "set_value":
            target = action.target or ""
            message, _, field = target.rpartition(".")
            if field not in ("read", "flagged") or "#" not in message or "\x00" in target:
                raise InvalidAction(f"set_value cannot set {target!r}.",
                                    hint="Targets look like 'INBOX#12.read' or 'INBOX#12.flagged'.")
            value = self.vocabulary.parse_set_value(action).value
            flags = act.parse_params(act.SetFlags, {"messages": [message], field: value}, "set_value")
            return act.mail_call(self.functions["set_flags"], flags)
        op, params = act.mail_call(*self.functions.parse(action.target, action.params))
        if op in ("draft", "send", *FILE_OPS):
            params["attachments"] = [self._attachment_file(path) for path in params["attachments"]]
        if op == "save_attachment":
            params["target"] = str(self._attachment_target(params["path"], params["overwrite"]))
        return op, params

    def _attachment_file(self, path: str) -> dict[str, Any]:
        """A workspace file to attach: its absolute path, name and content type; InvalidAction if unusable."""
        full = self.workspace.resolve(path)
        if not full.is_file():
            raise InvalidAction(f"The attachment {path!r} is not a file in the workspace.",
                                hint="Attach existing files by their workspace-relative path, such as 'reports/q3.pdf'.")
        size = full.stat().st_size
        if size > act.MAX_ATTACHMENT_BYTES:
            raise InvalidAction(f"The attachment {path!r} is {size:,} bytes; at most "
                                f"{act.MAX_ATTACHMENT_BYTES // 2**20} MB ({act.MAX_ATTACHMENT_BYTES:,} bytes) can "
                                "be attached.",
                                hint="Attach a smaller file.")
        content_type = mimetypes.guess_type(full.name)[0] or "application/octet-stream"
        return {"path": str(full), "name": full.name, "content_type": content_type}

    def _attachment_target(self, path: str, overwrite: bool) -> Path:
        """Where save_attachment writes: a file path inside the workspace, not an existing file unless asked."""
        full = self.workspace.resolve(path)
        if full == self.maildir or self.maildir in full.parents:  # save() rewrites the mailbox folder whole
            raise InvalidAction(f"{path!r} is inside the mailbox folder {self.document!r}.",
                                hint="Save attachments elsewhere in the workspace, such as 'attachments/<name>'.")
        if full.is_dir() or path.endswith(("/", os.sep)):
            raise InvalidAction(f"{path!r} is a folder; save_attachment needs a file path.",
                                hint="Give the file's path, such as 'invoices/invoice-1042.pdf'.")
        if full.exists() and not overwrite:
            raise InvalidAction(f"The file {path!r} already exists.",
                                hint="Choose another path, or pass overwrite=true to replace it.")
        blocking = next((p for p in full.parents if p.is_file()), None)
        if blocking is not None:
            raise InvalidAction(f"{path!r} cannot be created: {self.workspace.relative(blocking)!r} is a file.",
                                hint="Save into a folder, or a path where no file stands in the way.")
        return full

    def _precheck(self, op: str, params: dict[str, Any]) -> None:
        """Check what an operation refers to (messages, folders, contacts, tags) without changing anything."""
        if "ids" in params:
            self._call("check_messages", {"ids": params["ids"]}, read_only=True)
        if op == "move":
            self._call("check_folder", {"folder": params["folder"]}, read_only=True)
        if op == "create_folder":
            self._call("check_new_folder", params, read_only=True)
        if op == "tag" and params["remove"]:
            self._call("check_tags", {"tags": params["remove"]}, read_only=True)
        if op in ("edit_contact", "delete_contact"):
            self._call("check_contact", {"id": params["id"]}, read_only=True)
        if op == "create_filter":
            self._call("check_filter", params, read_only=True)
        if op == "save_attachment":
            self._call("check_attachment", {"id": params["id"], "name": params["name"]}, read_only=True)
        if op in PRECHECKS:
            self._call(PRECHECKS[op], params, read_only=True)

    def _check(self, action: Action) -> None:
        self.vocabulary.require_type(action)
        kind = action.action_type
        if kind == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                self._call("check_folder", {"folder": action.target}, read_only=True)
            return
        if kind == "api_call":
            request, data = MAIL_API.check(action)
            if not request.reads:
                self._precheck(request.name, data.model_dump())
            return
        if kind == "batch":
            for index, member in enumerate(self.vocabulary.batch(action, self.functions), start=1):
                try:
                    self._translate(member)
                except InvalidAction as exc:
                    raise in_batch(exc, index) from None
            return
        self._precheck(*self._translate(action))

    def _apply(self, action: Action) -> list[str]:
        kind = action.action_type
        if kind == "navigate":
            params = self.vocabulary.parse_navigate(action)
            if action.target and action.target != self.folder:
                self.folder, self.offset = action.target, 0
            self.limit = params.limit or self.limit
            self.offset = params.offset if params.offset is not None else self.offset
            self.search = params.search if params.search is not None else self.search
            return []
        if kind == "batch":
            return self._run_batch(self.vocabulary.batch(action, self.functions))
        if kind == "api_call":
            return self._api_call(action)
        return self._run(*self._translate(action))

    def _api_call(self, action: Action) -> list[str]:
        """Run one allowed mail operation; if it fails, the account is put back from a snapshot."""
        request, data = MAIL_API.check(action)
        params = data.model_dump()
        if request.reads:
            params |= {"contact_limit": CONTACT_LIMIT, "refresh": True}
            self.output = response_text(self._call(request.name, params, read_only=True))
            return []
        self._precheck(request.name, params)
        snapshot = self._snapshot()
        try:
            result = self._call(request.name, params)
        except (InvalidAction, ActionFailed) as exc:
            self._restore(snapshot)
            raise type(exc)(f"{exc.message} Nothing was changed.", hint=exc.hint, code=exc.code) from None
        finally:
            shutil.rmtree(snapshot, ignore_errors=True)
        self.output = response_text(result)
        changed = [f"contact:{uid}" for uid in result] if request.name == "delete_contact" else list(result or [])
        return [str(c) for c in changed]

    def _run(self, op: str, params: dict[str, Any]) -> list[str]:
        if op == "save_attachment":  # Thunderbird fetches and decodes the part; ASIL writes the file
            return self._save_attachment(params)
        result = self._call(op, params)
        if op in PRECHECKS or op == "compose_open":
            self.compose_seen = self._call("compose_list", {}, read_only=True)
        if op in ("add_contact", "edit_contact", "delete_contact"):
            return [f"contact:{uid}" for uid in result]
        return list(result)

    def _save_attachment(self, params: dict[str, Any]) -> list[str]:
        reply = self._call("fetch_attachment", {"id": params["id"], "name": params["name"]}, read_only=True)
        data = base64.b64decode(reply["data"])
        target = Path(params["target"])
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = target.with_name(f".{target.name}.asil-tmp")
        staged.write_bytes(data)
        staged.replace(target)  # whole or not at all
        return [params["id"]]

    def _run_batch(self, members: list[Action]) -> list[str]:
        snapshot = self._snapshot()
        changed: list[str] = []
        files: list[tuple[Path, Path | None]] = []  # workspace files save_attachment wrote, and their old copies
        try:
            for index, member in enumerate(members, start=1):
                try:
                    op, params = self._translate(member)  # again: an earlier step may have made a file
                    self._precheck(op, params)
                    if op == "save_attachment":
                        files.append(_keep_old(Path(params["target"]), snapshot / f"file-{index}"))
                    changed += [c for c in self._run(op, params) if c not in changed]
                except (InvalidAction, ActionFailed) as exc:
                    self._restore(snapshot)
                    _put_back(files)
                    raise in_batch(exc, index, "Nothing was changed.") from None
        finally:
            shutil.rmtree(snapshot, ignore_errors=True)
        return changed

    # ------------------------------------------------------------ snapshots (batch atomicity)
    def _snapshot(self) -> Path:
        """Copy what a batch may change: the live Maildir (messages hard-linked), profile state, sink files."""
        self._mail()
        assert self.dovecot is not None
        snapshot = self.home / "batch-snapshot"
        shutil.rmtree(snapshot, ignore_errors=True)
        self.dovecot.snapshot(snapshot / "Maildir")
        for name in PROFILE_STATE:
            if (self.profile / name).is_file():
                (snapshot / "profile" / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.profile / name, snapshot / "profile" / name)
        (snapshot / "sink.txt").write_text("\n".join(p.name for p in self.outbox.iterdir()))
        return snapshot

    def _restore(self, snapshot: Path) -> None:
        """Stop both programs, put the snapshot back, and start them again (with the compose windows that
        were open: the failed change must not close them)."""
        assert self.dovecot is not None
        reopen = self._compose_reopen_specs()
        if self.session is not None:
            self.session.stop()
            self.session = None
        self.dovecot.stop()
        self.dovecot.restore(snapshot / "Maildir")
        for name in PROFILE_STATE:
            (self.profile / name).unlink(missing_ok=True)
            if (snapshot / "profile" / name).is_file():
                shutil.copy2(snapshot / "profile" / name, self.profile / name)
        (self.profile / "abook.sqlite-shm").unlink(missing_ok=True)
        for cache in (self.profile / "ImapMail").rglob("*.msf"):  # Thunderbird re-reads the folders
            cache.unlink()
        kept = set((snapshot / "sink.txt").read_text().split("\n"))
        for sent in self.outbox.iterdir():
            if sent.name not in kept:
                sent.unlink()
        self.dovecot.start()
        self._mail()
        for spec in reopen:
            self._call("compose_open", spec)
        self.compose_seen = self._call("compose_list", {}, read_only=True)

    def _compose_reopen_specs(self) -> list[dict[str, Any]]:
        """The open compose windows as compose_open params (same number, fields and attached files)."""
        try:
            windows = self._call("compose_list", {}, read_only=True)
        except (InvalidAction, ActionFailed):
            return []
        # A reply keeps its References (and so its In-Reply-To); a forward reopens as a new message with the
        # same fields and attachments (Thunderbird marks a forward only when it opens one from the original).
        return [{"number": int(w["id"].split(":")[1]), "to": w["to"], "cc": w["cc"], "subject": w["subject"],
                 "body": w["body"], "attachments": w["attachments"], "references": w.get("references", "")}
                for w in windows]

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the live Maildir into the workspace (the address book and filters are in the profile)."""
        if self.dovecot is None:
            return
        if self.session is not None and self.session.alive:
            self._call("flush", {})
            self.compose_seen = self._call("compose_list", {}, read_only=True)
        else:  # Thunderbird is gone, and its compose windows with it
            self.compose_seen = []
        self.dovecot.export(self.maildir)
        self._export_profile_state()
        self._export_compose_windows()

    def _export_compose_windows(self) -> None:
        """The open compose windows to ``saved/compose.json`` for checkpoints: they live only in the running
        Thunderbird, so this is the record of what was open when the episode's state was saved."""
        saved = self.home / "saved"
        saved.mkdir(parents=True, exist_ok=True)
        windows = [{k: v for k, v in w.items() if k != "attachments"} |
                   {"attachments": [{k: v for k, v in a.items() if k != "url"} for a in w["attachments"]]}
                   for w in self.compose_seen]
        staged = saved / ".compose.json.tmp"
        staged.write_text(json.dumps(windows, indent=1, ensure_ascii=False), encoding="utf-8")
        staged.replace(saved / "compose.json")

    def _export_profile_state(self) -> None:
        """Copy the address book, filters and prefs to ``saved/``: Thunderbird keeps abook.sqlite locked
        while it runs, and checkpoints must read the state without it."""
        saved = self.home / "saved"
        saved.mkdir(parents=True, exist_ok=True)
        self._export_address_book(saved)
        for source, name in SAVED_STATE.items():
            target = saved / name
            if (self.profile / source).is_file():
                staged = saved / f".{name}.tmp"
                shutil.copyfile(self.profile / source, staged)
                staged.rename(target)
            else:
                target.unlink(missing_ok=True)

    def _export_address_book(self, saved: Path) -> None:
        """One self-contained copy of abook.sqlite: the file and its write-ahead log are copied aside,
        opened (which replays the log) and backed up into a plain rollback-journal database."""
        target = saved / "abook.sqlite"
        if not (self.profile / "abook.sqlite").is_file():
            target.unlink(missing_ok=True)
            return
        scratch = saved / ".abook-scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        for suffix in ("", "-wal"):
            if (self.profile / f"abook.sqlite{suffix}").is_file():
                shutil.copyfile(self.profile / f"abook.sqlite{suffix}", scratch / f"abook.sqlite{suffix}")
        staged = saved / ".abook.sqlite.tmp"
        staged.unlink(missing_ok=True)
        source, copy = sqlite3.connect(scratch / "abook.sqlite"), sqlite3.connect(staged)
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            source.close()
            copy.close()
        staged.rename(target)
        shutil.rmtree(scratch, ignore_errors=True)

    def render(self, path: Path) -> Path:
        """A PNG screenshot of Thunderbird's main window (headless rendering)."""
        png = self._mail().screenshot()
        path.write_bytes(png)
        return path

    def close(self) -> None:
        if self.session is not None:
            if self.session.alive and self.compose_seen:  # the episode is over: its windows go unasked
                try:
                    self.session.call("compose_discard_all", {}, timeout_s=10)
                except (InvalidAction, ActionFailed):
                    pass  # quit() below stops Thunderbird in any case
            self.session.quit()
            self.session = None
        if self.dovecot is not None:
            self.dovecot.remove()
            self.dovecot = None
        if self.sink is not None:
            self.sink.stop()
            self.sink = None

    @classmethod
    def readiness(cls) -> Readiness:
        missing = [name for name, found in (("thunderbird", thunderbird_path()), ("dovecot-imapd", dovecot_path()))
                   if found is None]
        if missing:
            return Readiness(False, f"{' and '.join(missing)} not installed (apt-get install {' '.join(missing)})")
        return Readiness(True, "a headless Thunderbird over Marionette on a private Dovecot IMAP server")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        (workspace.root / "report.txt").write_text("Quarterly numbers: revenue up 4%.\n", encoding="utf-8")
        build_maildir(workspace.resolve(DEFAULT_DOCUMENT), {"folders": ["Archive"], "messages": [
            {"subject": "Invoice 1042", "from": "Billing <billing@example.com>", "read": False,
             "attachments": [{"name": "invoice-1042.pdf", "content_type": "application/pdf",
                              "text": "%PDF-1.4\n% invoice 1042: 120.00 EUR\n%%EOF\n"}]},
            {"subject": "Lunch on Friday?", "from": "Bob <bob@example.com>", "read": True}]})
        return DEFAULT_DOCUMENT


def _keep_old(target: Path, copy: Path) -> tuple[Path, Path | None]:
    """Before a batch writes ``target``: what to delete on failure (the file, or the first folder the save
    will create) and a copy of the file there now (None if nothing)."""
    missing = [parent for parent in target.parents if not parent.exists()]
    if missing:
        return missing[-1], None
    if not target.is_file():
        return target, None
    shutil.copy2(target, copy)
    return target, copy


def _put_back(files: list[tuple[Path, Path | None]]) -> None:
    """Undo a failed batch's saved attachments: old files return, new files and folders go."""
    for target, old in reversed(files):
        if old is not None:
            shutil.copy2(old, target)
        elif target.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)


__all__ = ["ThunderbirdAdapter"]
