"""The observation of a mailbox: the account, its folders, a page of one folder's messages,
contacts and filters, built from the state asil_mail.js reports."""

from __future__ import annotations

from typing import Any

from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 25
CONTACT_LIMIT = 30
MESSAGE_ACTIONS = ["set_flags", "tag_messages", "move_messages", "copy_messages", "delete_messages",
                   "save_attachment"]
FOLDER_ACTIONS = ["navigate", "create_folder"]
COMPOSE_ACTIONS = ["edit_compose", "attach_to_compose", "remove_compose_attachment", "save_compose_draft",
                   "send_compose", "close_compose"]
BODY_SHOWN = 4000  # characters of a compose window's body in its element; meta.body_length says when longer


def message_element(item: dict[str, Any]) -> Element:
    value = {key: item[key] for key in ("read", "flagged", "tags") if item.get(key) or key != "tags"}
    meta = {key: item[key] for key in ("from", "to", "cc", "date", "snippet", "replied", "attachments")
            if item.get(key)}
    return Element(id=item["id"], type="message", label=item["subject"], value=value, data_type="message",
                   meta=meta)


def folder_element(item: dict[str, Any], current: str) -> Element:
    meta: dict[str, Any] = {"total": item["total"], "unread": item["unread"]}
    if item.get("special"):
        meta["special"] = item["special"]
    if item["path"] == current:
        meta["shown"] = True
    return Element(id=item["path"], type="folder", label=item["path"].rsplit("/", 1)[-1], value=item["total"],
                   data_type="message_count", editable=False, meta=meta)


def contact_element(item: dict[str, Any]) -> Element:
    value = {key: val for key, val in item.items() if key != "id"}
    return Element(id=f"contact:{item['id']}", type="contact", label=item.get("display_name") or item.get("email"),
                   value=value, data_type="contact", actions=["edit_contact", "delete_contact"])


def filter_element(item: dict[str, Any]) -> Element:
    value = {key: item[key] for key in ("enabled", "match", "conditions", "actions")}
    return Element(id=f"filter:{item['name']}", type="filter", label=item["name"], value=value,
                   data_type="filter", editable=False)


def compose_element(item: dict[str, Any]) -> Element:
    """An open compose window: what its To, Cc, Subject, body and attachment fields show."""
    body = item["body"]
    value = {"to": item["to"], "cc": item["cc"], "subject": item["subject"], "body": body[:BODY_SHOWN],
             "attachments": [{k: a[k] for k in ("name", "content_type", "size")} for a in item["attachments"]]}
    meta: dict[str, Any] = {"unsaved": item["unsaved"]}
    if item.get("draft"):
        meta["draft"] = item["draft"]
    if item.get("kind") not in (None, "new"):  # a reply, forward or draft: what it answers or continues
        meta["kind"] = item["kind"]
    if item.get("original"):
        meta["original"] = item["original"]
    if len(body) > BODY_SHOWN:
        meta["body_length"] = len(body)
    return Element(id=item["id"], type="compose_window", label=item["subject"] or "(no subject)", value=value,
                   data_type="compose", actions=COMPOSE_ACTIONS, meta=meta)


def build_observation(state: dict[str, Any], *, step: int, document: str, offset: int, limit: int,
                      search: str | None, service: dict[str, Any]) -> Observation:
    current = state["folder"]
    account = Element(id="@account", type="account", label=state["identity"], editable=False,
                      value={"email": state["identity"], "folders": len(state["folders"])},
                      actions=["create_folder", "open_compose", "save_draft", "send_message", "add_contact",
                               "create_filter"],
                      meta={"tags": state["tags"]})
    elements = [account]
    elements += [folder_element(f, current) for f in state["folders"]]
    elements += [message_element(m) for m in state["messages"]]
    elements += [contact_element(c) for c in state["contacts"]]
    elements += [filter_element(f) for f in state["filters"]]
    compose = state.get("compose", [])
    elements += [compose_element(w) for w in compose]
    total, shown = state["total"], len(state["messages"])
    window = f"messages {offset + 1}-{offset + shown} of {total}" if shown else f"no messages shown of {total}"
    summary = (f"Mailbox {state['identity']}: {len(state['folders'])} folders; folder {current!r} "
               f"{'(search ' + repr(search) + ') ' if search else ''}shows {window}, newest first; "
               f"{state['contact_total']} contacts, {len(state['filters'])} filters"
               f"{'; open compose windows: ' + ', '.join(w['id'] for w in compose) if compose else ''}.")
    return Observation(
        metadata=Metadata(app="thunderbird", source="service", step=step),
        app_state=AppState(view=current, active_document=document, document_path=document, dirty=False,
                           details={"search": search} if search else {}),
        elements=elements,
        environment={"message_actions": MESSAGE_ACTIONS, "draft_actions": ["open_draft"],
                     "tags": state["tags"], "contacts_total": state["contact_total"],
                     "contacts_shown": len(state["contacts"]), "services": service},
        navigation=Navigation(views=[f["path"] for f in state["folders"]],
                              paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
