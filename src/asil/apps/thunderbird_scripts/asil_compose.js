// ASIL's compose-window operations, installed after asil_mail.js into the same main window. They
// drive Thunderbird's own message compose windows (messengercompose.xhtml with its gMsgCompose),
// the way its WebExtension compose API does: open one with nsIMsgComposeParams, read and change it
// with GetComposeDetails/SetComposeDetails, attach with AddAttachments, save with SaveAsDraft, send
// with SendMessage, open a draft with MailServices.compose.OpenComposeWindow. Windows are named
// "compose:N" in the order they were opened; they live only as long as this Thunderbird runs.
(function () {
  const { MailServices } = ChromeUtils.importESModule("resource:///modules/MailServices.sys.mjs");
  const mail = window.ASIL_MAIL;
  const { ACCOUNT, invalid, failed, within, until, refresh, folderPath, messages, specialFolder } = mail.lib;
  const COMPOSE_URL = "chrome://messenger/content/messengercompose/messengercompose.xhtml";
  let nextId = 1;

  const identity = () => MailServices.accounts.getAccount(ACCOUNT).defaultIdentity;
  function windows() {
    const found = [...Services.wm.getEnumerator("msgcompose")].filter((w) => !w.closed && w.composeEditorReady);
    for (const w of found) if (!w.asilComposeId) w.asilComposeId = nextId++;  // one Thunderbird opened itself
    return found.sort((a, b) => a.asilComposeId - b.asilComposeId);
  }
  const windowId = (w) => `compose:${w.asilComposeId}`;
  // Replies and forwards open with Thunderbird's own compose types, as its Reply, Reply All and Forward
  // commands do; the window's gComposeType says which kind it is.
  const T = Ci.nsIMsgCompType;
  const RELATED = { reply: T.ReplyToSender, reply_all: T.ReplyAll, forward_inline: T.ForwardInline,
                    forward_attachment: T.ForwardAsAttachment };
  const KINDS = new Map([[T.New, "new"], [T.Draft, "draft"], [T.Reply, "reply"],
                         ...Object.entries(RELATED).map(([kind, type]) => [type, kind])]);
  // The message a reply or forward was opened from, as a message id ("INBOX#3"), while it still exists.
  function originalOf(w) {
    const uri = w.gMsgCompose.originalMsgURI;
    if (!uri || !RELATED[KINDS.get(w.gComposeType)]) return null;
    try {
      const hdr = MailServices.messageServiceFromURI(uri).messageURIToMsgHdr(uri);
      return hdr ? `${folderPath(hdr.folder)}#${hdr.messageKey}` : null;
    } catch (e) {
      return null;  // moved or deleted since
    }
  }
  function composeWindow(id) {
    const found = windows().find((w) => windowId(w) === id);
    if (!found) {
      const open = windows().map(windowId);
      throw invalid(`There is no open compose window ${JSON.stringify(id)}.`,
                    open.length ? `Open compose windows: ${open.join(", ")}.` : "No compose window is open; open_compose or open_draft opens one.");
    }
    return found;
  }
  function ready(w) {
    return within(new Promise((r) => { if (w.composeEditorReady) r(); else w.addEventListener("compose-editor-ready", r, { once: true }); }),
                  "Opening the compose window");
  }
  const addresses = (header) => MailServices.headerParser.makeFromDisplayAddress(header || "").map((a) => a.toString());
  const plainBody = (w) => w.gMsgCompose.editor.outputToString("text/plain", 0);
  const attachmentsOf = (w) => [...w.gAttachmentBucket.itemChildren].map((item) => item.attachment);
  // The Drafts message a window edits ("Drafts#3"): saving replaces it, sending deletes it.
  function draftOf(w) {
    const uri = w.gMsgCompose.compFields.draftId;
    const drafts = specialFolder(Ci.nsMsgFolderFlags.Drafts);
    if (!uri || !drafts || !uri.startsWith(drafts.baseMessageURI + "#")) return null;
    return `${folderPath(drafts)}#${uri.slice(drafts.baseMessageURI.length + 1)}`;
  }
  function describe(w) {
    const d = w.GetComposeDetails();
    return { id: windowId(w), to: addresses(d.to), cc: addresses(d.cc), subject: d.subject || "", body: plainBody(w),
             attachments: attachmentsOf(w).map((a) => ({ name: a.name, content_type: a.contentType || "", size: a.size, url: a.url })),
             draft: draftOf(w), kind: KINDS.get(w.gComposeType) || "new", original: originalOf(w),
             references: w.gMsgCompose.compFields.references || "", unsaved: !!(w.gContentChanged || w.gMsgCompose.bodyModified) };
  }
  function attachmentFor(file) {  // a workspace file (checked by the adapter), or a url when windows are reopened
    const part = Cc["@mozilla.org/messengercompose/attachment;1"].createInstance(Ci.nsIMsgAttachment);
    if (file.url) {
      part.url = file.url;
      if (file.size >= 0) part.size = file.size;
    } else {
      const local = Cc["@mozilla.org/file/local;1"].createInstance(Ci.nsIFile);
      local.initWithPath(file.path);
      part.url = Services.io.newFileURI(local).spec;
      part.size = local.fileSize;
    }
    part.name = file.name;
    part.contentType = file.content_type || "";
    return part;
  }
  function refuseDuplicates(w, files) {
    const names = new Set(attachmentsOf(w).map((a) => a.name));
    for (const file of files) {
      if (names.has(file.name)) throw invalid(`${windowId(w)} already has an attachment named ${JSON.stringify(file.name)}.`, "Attach each file once; attachments already there are listed in the window's value.");
      names.add(file.name);
    }
  }
  // Waits for the end of a save or send in window w: Thunderbird announces it with
  // mail:composeSendProgressStop; a failure before that arrives as compose-prepare-message-completed
  // with an exception.
  function operationEnd(w, what) {
    let observer, onPrepared;
    const done = new Promise((resolve, reject) => {
      observer = { observe(subject) { if (subject.wrappedJSObject.composeWindow === w) resolve(); } };
      onPrepared = (event) => { if (event.detail && event.detail.exception) reject(failed(`${what} failed: ${event.detail.exception}`)); };
      Services.obs.addObserver(observer, "mail:composeSendProgressStop");
      w.addEventListener("compose-prepare-message-completed", onPrepared);
    });
    const cleanup = () => {
      Services.obs.removeObserver(observer, "mail:composeSendProgressStop");
      if (!w.closed) w.removeEventListener("compose-prepare-message-completed", onPrepared);
    };
    return within(done, what).finally(cleanup);
  }

  async function openWindow(p) {
    const params = Cc["@mozilla.org/messengercompose/composeparams;1"].createInstance(Ci.nsIMsgComposeParams);
    const fields = Cc["@mozilla.org/messengercompose/composefields;1"].createInstance(Ci.nsIMsgCompFields);
    fields.to = (p.to || []).join(", ");
    fields.cc = (p.cc || []).join(", ");
    fields.subject = p.subject || "";
    fields.body = p.body || "";
    fields.references = p.references || "";  // a reopened reply stays a reply (In-Reply-To comes from it)
    params.type = Ci.nsIMsgCompType.New;
    params.format = Ci.nsIMsgCompFormat.PlainText;
    params.identity = identity();
    params.composeFields = fields;
    const w = Services.ww.openWindow(null, COMPOSE_URL, "_blank", "all,chrome,dialog=no,status,toolbar", params);
    await ready(w);
    w.asilComposeId = p.number || nextId++;
    nextId = Math.max(nextId, w.asilComposeId + 1);
    if ((p.attachments || []).length) await w.AddAttachments(p.attachments.map(attachmentFor), false);
    // What it was opened with is its starting content, as for Thunderbird's mailto: and extension windows.
    w.gContentChanged = false;
    w.gMsgCompose.bodyModified = false;
    return w;
  }

  // A reply or forward of message p.id: Thunderbird fills To, Subject, the quoted or forwarded text (or
  // the message as an attachment) and References itself. ForwardInline goes through
  // OpenComposeWindow, as Thunderbird's WebExtension API does (bug 1513824); the others through
  // nsIMsgComposeParams with originalMsgURI, as there.
  async function openRelated(p) {
    const [{ folder: f, headers: [hdr] }] = await messages([p.id]);
    const type = RELATED[p.kind], uri = f.getUriForMsg(hdr);
    const before = new Set([...Services.wm.getEnumerator("msgcompose")]);
    if (type === T.ForwardInline) {
      MailServices.compose.OpenComposeWindow(null, hdr, uri, type, Ci.nsIMsgCompFormat.Default, identity(), null, null);
    } else {
      const params = Cc["@mozilla.org/messengercompose/composeparams;1"].createInstance(Ci.nsIMsgComposeParams);
      params.type = type;
      params.format = Ci.nsIMsgCompFormat.PlainText;
      params.identity = identity();
      params.originalMsgURI = uri;
      params.composeFields = Cc["@mozilla.org/messengercompose/composefields;1"].createInstance(Ci.nsIMsgCompFields);
      Services.ww.openWindow(null, COMPOSE_URL, "_blank", "all,chrome,dialog=no,status,toolbar", params);
    }
    const isIt = (x) => !before.has(x) && !x.closed && x.composeEditorReady && x.gComposeType === type &&
                        x.gMsgCompose.originalMsgURI === uri;
    const w = await until(() => [...Services.wm.getEnumerator("msgcompose")].find(isIt), `Opening the ${p.kind.replace("_", " ")} of ${p.id}`);
    w.asilComposeId = nextId++;
    w.gContentChanged = false;  // what Thunderbird filled in is the window's starting content
    w.gMsgCompose.bodyModified = false;
    return w;
  }

  Object.assign(mail.operations, {
    async check_related(p) {
      const [{ folder: f }] = await messages([p.id]);
      if (f.flags & Ci.nsMsgFolderFlags.Drafts) throw invalid(`${p.id} is a draft; only received or sent messages can be replied to or forwarded.`, "Open a draft with open_draft instead.");
      return null;
    },
    async compose_related(p) {
      await mail.operations.check_related(p);
      return [windowId(await openRelated(p))];
    },
    async compose_list() { return windows().map(describe); },
    async check_compose(p) {
      const w = composeWindow(p.window);
      if (p.attachments) refuseDuplicates(w, p.attachments);
      if (p.name !== undefined && !attachmentsOf(w).some((a) => a.name === p.name)) {
        throw invalid(`${windowId(w)} has no attachment named ${JSON.stringify(p.name)}.`, `Its attachments: ${attachmentsOf(w).map((a) => JSON.stringify(a.name)).join(", ") || "none"}.`);
      }
      return null;
    },
    async check_draft(p) {
      const [{ folder: f }] = await messages([p.id]);
      if (!(f.flags & Ci.nsMsgFolderFlags.Drafts)) throw invalid(`${p.id} is not a draft: only messages in the Drafts folder open as drafts.`, "Navigate to 'Drafts' to see the drafts' ids.");
      return null;
    },
    async compose_open(p) { return [windowId(await openWindow(p))]; },
    async compose_edit(p) {
      const w = composeWindow(p.window);
      const values = { identityKey: null };
      if (p.to) values.to = p.to.join(", ");
      if (p.cc) values.cc = p.cc.join(", ");
      if (typeof p.subject === "string") values.subject = p.subject;
      if (typeof p.body === "string") values.plainTextBody = p.body;
      w.SetComposeDetails(values);
      return [windowId(w)];
    },
    async compose_attach(p) {
      const w = composeWindow(p.window);
      refuseDuplicates(w, p.attachments);
      await w.AddAttachments(p.attachments.map(attachmentFor));
      return [windowId(w)];
    },
    async compose_detach(p) {
      const w = composeWindow(p.window);
      await mail.operations.check_compose(p);
      const item = [...w.gAttachmentBucket.itemChildren].find((i) => i.attachment.name === p.name);
      await w.RemoveAttachments([item]);
      return [windowId(w)];
    },
    async compose_save(p) {
      const w = composeWindow(p.window);
      const drafts = specialFolder(Ci.nsMsgFolderFlags.Drafts);
      const end = operationEnd(w, "Saving the draft");
      await w.SaveAsDraft();
      await end;
      await until(() => draftOf(w), "Storing the draft in Drafts");
      await refresh(drafts);
      return [windowId(w), folderPath(drafts)];
    },
    async check_send(p) {
      const w = composeWindow(p.window);
      const d = w.GetComposeDetails();
      if (!addresses(d.to).length) throw invalid(`${windowId(w)} has no recipient in To.`, "Set 'to' with edit_compose first.");
      // Thunderbird would stop and ask whether to send without a subject; an agent gives one instead.
      if (!(d.subject || "").trim()) throw invalid(`${windowId(w)} has no subject.`, "Set 'subject' with edit_compose first.");
      return null;
    },
    async compose_send(p) {
      await mail.operations.check_send(p);
      const w = composeWindow(p.window);
      const id = windowId(w), draft = draftOf(w);
      const end = operationEnd(w, "Sending");
      await w.SendMessage();
      await end;
      await until(() => w.closed, "Closing the compose window after sending");
      const sent = specialFolder(Ci.nsMsgFolderFlags.SentMail);
      await refresh(sent);
      const changed = [id, folderPath(sent)];
      if (draft) { await refresh(specialFolder(Ci.nsMsgFolderFlags.Drafts)); changed.push(draft); }
      return changed;
    },
    async check_close(p) {
      const w = composeWindow(p.window);
      if (describe(w).unsaved && !p.discard) throw invalid(`${windowId(w)} has unsaved changes.`, "Save it with save_compose_draft (or send it) first, or pass discard=true to close it and lose them.");
      return null;
    },
    async compose_close(p) {
      await mail.operations.check_close(p);
      const w = composeWindow(p.window);
      w.gContentChanged = false;  // the changes are saved, or the caller chose to discard them
      w.gMsgCompose.bodyModified = false;
      w.close();
      await until(() => w.closed, "Closing the compose window");
      return [p.window];
    },
    // Before Thunderbird quits: its "save changes?" question on quit would wait forever headless.
    async compose_discard_all() {
      for (const w of windows()) { w.gContentChanged = false; w.gMsgCompose.bodyModified = false; w.close(); }
      return null;
    },
    async draft_open(p) {
      await mail.operations.check_draft(p);
      const [{ folder: f, headers: [hdr] }] = await messages([p.id]);
      const already = windows().find((w) => draftOf(w) === p.id);
      if (already) return [windowId(already)];  // Thunderbird, too, shows the window that has it open
      const before = new Set(windows());
      MailServices.compose.OpenComposeWindow(null, hdr, f.getUriForMsg(hdr), Ci.nsIMsgCompType.Draft, Ci.nsIMsgCompFormat.Default,
                                             identity(), null, null);
      const isNew = (w) => !before.has(w) && !w.asilComposeId;
      const w = await until(() => [...Services.wm.getEnumerator("msgcompose")].find((x) => isNew(x) && x.composeEditorReady), `Opening draft ${p.id}`);
      w.asilComposeId = nextId++;
      return [windowId(w)];
    },
  });
})();
