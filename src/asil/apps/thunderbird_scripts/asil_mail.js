// ASIL's mail operations, installed once into Thunderbird's main chrome window over Marionette.
// Each request runs `window.ASIL_MAIL.run(op, params)`; it resolves to {ok, result} or
// {ok: false, kind: "invalid"|"failed", message, hint}. Folders are named by their path under
// the IMAP account ("INBOX", "Projects/2026"); messages by "<folder path>#<IMAP UID>".
(function () {
  const { MailServices } = ChromeUtils.importESModule("resource:///modules/MailServices.sys.mjs");
  const { MsgHdrToMimeMessage } = ChromeUtils.importESModule("resource:///modules/gloda/MimeMessage.sys.mjs");
  const { NetUtil } = ChromeUtils.importESModule("resource://gre/modules/NetUtil.sys.mjs");
  const ACCOUNT = "account1";
  const WAIT_MS = 20000;

  class Refusal extends Error {
    constructor(kind, message, hint) { super(message); this.kind = kind; this.hint = hint || null; }
  }
  const invalid = (message, hint) => new Refusal("invalid", message, hint);
  const failed = (message, hint) => new Refusal("failed", message, hint);

  const server = () => MailServices.accounts.getAccount(ACCOUNT).incomingServer.QueryInterface(Ci.nsIImapIncomingServer);
  const root = () => server().rootFolder;
  const prefix = () => root().URI + "/";
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function urlListener(resolve) {
    return { OnStartRunningUrl() {}, OnStopRunningUrl(url, status) { resolve(status); },
             QueryInterface: ChromeUtils.generateQI(["nsIUrlListener"]) };
  }
  function copyListener(resolve) {
    return { onStartCopy() {}, onProgress() {}, setMessageKey() {}, getMessageId() { return null; },
             onStopCopy(status) { resolve(status); },
             QueryInterface: ChromeUtils.generateQI(["nsIMsgCopyServiceListener"]) };
  }
  async function within(promise, what) {
    let timer;
    const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(failed(`${what} did not finish within ${WAIT_MS / 1000} s.`)), WAIT_MS); });
    try { return await Promise.race([promise, timeout]); } finally { clearTimeout(timer); }
  }
  async function until(test, what) {
    const end = Date.now() + WAIT_MS;
    while (Date.now() < end) { const v = test(); if (v) return v; await sleep(25); }
    throw failed(`${what} did not happen within ${WAIT_MS / 1000} s.`);
  }
  function checkStatus(status, what) {
    if (status !== 0 && status !== undefined) throw failed(`${what} failed (status 0x${(status >>> 0).toString(16)}).`, "Is the IMAP server running?");
  }

  // ---------------------------------------------------------------- folders and messages
  const folderPath = (f) => decodeURIComponent(f.URI.slice(prefix().length));
  // Only folders the server listed: Thunderbird keeps local placeholders (such as a Junk folder it
  // created for itself) that the IMAP server does not have.
  // INBOX first, then by path: the same order after every restart.
  const order = (f) => (folderPath(f) === "INBOX" ? "" : folderPath(f).toLowerCase());
  function folders() {
    return root().descendants.filter((f) => f.QueryInterface(Ci.nsIMsgImapMailFolder).verifiedAsOnlineFolder)
      .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  }
  function folder(path) {
    const found = folders().find((f) => folderPath(f) === path);
    if (!found) throw invalid(`There is no folder ${JSON.stringify(path)}.`, `Folders: ${folders().map(folderPath).join(", ")}.`);
    return found;
  }
  async function refresh(f) {
    // A SELECT with its own listener: it runs after the commands already queued for this folder, so
    // when it ends the server has them. (The folder-level updateFolderWithListener shares one
    // listener slot between URLs and can lose it.)
    const status = await within(new Promise((r) => MailServices.imap.selectFolder(f, urlListener(r), null)), `Updating ${folderPath(f)}`);
    checkStatus(status, `Updating folder ${folderPath(f)}`);
  }
  async function discover() {
    const status = await within(new Promise((r) => MailServices.imap.discoverAllFolders(root(), urlListener(r), null)), "Folder discovery");
    checkStatus(status, "Listing the IMAP folders");
  }
  function header(f, uid) {
    const db = f.msgDatabase;
    const hdr = db.containsKey(uid) ? db.getMsgHdrForKey(uid) : null;
    if (!hdr || hdr.flags & Ci.nsMsgMessageFlags.Expunged) return null;
    return hdr;
  }
  // "INBOX#12" -> [folder, header]; groups several ids by folder.
  async function messages(ids) {
    const groups = new Map();
    for (const id of ids) {
      const cut = id.lastIndexOf("#");
      const path = id.slice(0, cut), uid = Number(id.slice(cut + 1));
      if (cut < 1 || !Number.isInteger(uid) || uid < 1) throw invalid(`${JSON.stringify(id)} is not a message id.`, "Message ids look like 'INBOX#12' (folder path, '#', IMAP UID).");
      const f = folder(path);
      if (!groups.has(f.URI)) { groups.set(f.URI, { folder: f, headers: [] }); }
      const hdr = header(f, uid);
      if (!hdr) throw invalid(`There is no message ${JSON.stringify(id)}.`, `Observe folder ${path} to see its messages' ids.`);
      groups.get(f.URI).headers.push(hdr);
    }
    return [...groups.values()];
  }
  const tagName = (key) => { try { return MailServices.tags.getTagForKey(key); } catch (e) { return key; } };
  function describe(f, hdr, preview) {
    const F = Ci.nsMsgMessageFlags;
    const keywords = (hdr.getStringProperty("keywords") || "").split(" ").filter((k) => k && !k.startsWith("$") || /^\$label\d$/.test(k));
    const item = { id: `${folderPath(f)}#${hdr.messageKey}`, subject: hdr.mime2DecodedSubject, from: hdr.mime2DecodedAuthor,
                   to: hdr.mime2DecodedRecipients, date: new Date(hdr.date / 1000).toISOString().slice(0, 16) + "Z",
                   read: !!(hdr.flags & F.Read), flagged: !!(hdr.flags & F.Marked), tags: keywords.map(tagName) };
    if (hdr.ccList) item.cc = hdr.ccList;
    if (hdr.flags & F.Replied) item.replied = true;
    if (preview) item.snippet = (hdr.getStringProperty("preview") || "").slice(0, 120);
    return item;
  }
  async function page(f, offset, limit, search) {
    // Read each header's date and key once (XPCOM getters are the cost at thousands of messages).
    let rows = [];
    for (const h of f.messages) if (!(h.flags & Ci.nsMsgMessageFlags.Expunged)) rows.push([h.date, h.messageKey, h]);
    if (search) {
      const needle = search.toLowerCase();
      rows = rows.filter(([, , h]) => (h.mime2DecodedSubject + " " + h.mime2DecodedAuthor).toLowerCase().includes(needle));
    }
    rows.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    const headers = rows;
    const shown = rows.slice(offset, offset + limit).map((row) => row[2]);
    const missing = shown.filter((h) => !h.getStringProperty("preview")).map((h) => h.messageKey);
    if (missing.length) {
      try {
        await within(new Promise((r) => { if (!f.fetchMsgPreviewText(missing, urlListener(r))) r(0); }), "Fetching previews");
      } catch (e) { /* snippets are a courtesy; the page is still right without them */ }
    }
    const described = [];
    for (const h of shown) {
      const item = describe(f, h, true);
      const found = await attachments(f, h);
      if (found.length) item.attachments = found.map(({ name, content_type, size }) => ({ name, content_type, size }));
      described.push(item);
    }
    return { total: headers.length, messages: described };
  }

  // ---------------------------------------------------------------- attachments
  // Thunderbird's own MIME parser (the one Gloda and the attachment pane use) lists a message's
  // attachments; it fetches the message over IMAP. Only messages Thunderbird flagged as having
  // attachments are parsed, and a message's parts never change, so the lists are cached.
  const attachmentCache = new Map();
  async function attachments(f, hdr) {
    if (!(hdr.flags & Ci.nsMsgMessageFlags.Attachment)) return [];
    const key = `${f.URI}#${hdr.messageKey}#${hdr.messageId}`;
    if (!attachmentCache.has(key)) {
      const parts = await within(new Promise((resolve) => {
        MsgHdrToMimeMessage(hdr, null, (h, mime) => resolve(mime ? mime.allUserAttachments : null), true, { saneBodySize: true });
      }), "Reading the attachments");
      if (!parts) throw failed("Thunderbird could not read the message's MIME parts.", "Is the IMAP server running?");
      attachmentCache.set(key, parts.map((a) => ({ name: a.name, content_type: a.contentType, size: a.size, url: a.url })));
    }
    return attachmentCache.get(key);
  }
  async function attachment(id, name) {
    const [{ folder: f, headers: [hdr] }] = await messages([id]);
    const found = await attachments(f, hdr);
    const match = found.find((a) => a.name === name);
    if (!match) {
      throw invalid(`Message ${id} has no attachment named ${JSON.stringify(name)}.`,
                    found.length ? `Its attachments: ${found.map((a) => JSON.stringify(a.name)).join(", ")}.` : "It has no attachments.");
    }
    return match;
  }
  // The decoded bytes of one part, through its attachment URL (Thunderbird's IMAP part fetch and MIME decoder).
  async function partBytes(url) {
    return within(new Promise((resolve, reject) => {
      const channel = NetUtil.newChannel({ uri: url, loadUsingSystemPrincipal: true });
      NetUtil.asyncFetch(channel, (stream, status) => {
        if (status) { reject(failed(`Fetching the attachment failed (status 0x${(status >>> 0).toString(16)}).`, "Is the IMAP server running?")); return; }
        try { resolve(NetUtil.readInputStreamToString(stream, stream.available())); } finally { stream.close(); }
      });
    }), "Fetching the attachment");
  }

  // ---------------------------------------------------------------- address book and filters
  const book = () => MailServices.ab.getDirectory("jsaddrbook://abook.sqlite");
  // Names and the primary email have card attributes; the other fields live in the card's vCard.
  const CARD_ATTRIBUTES = { first_name: "firstName", last_name: "lastName", display_name: "displayName", email: "primaryEmail" };
  const VCARD_FIELDS = { phone: "tel", nickname: "nickname", company: "org", notes: "note" };
  function contact(card) {
    const item = { id: card.UID };
    for (const [key, attribute] of Object.entries(CARD_ATTRIBUTES)) if (card[attribute]) item[key] = card[attribute];
    for (const [key, name] of Object.entries(VCARD_FIELDS)) {
      const value = card.vCardProperties.getFirstValue(name);
      if (value) item[key] = Array.isArray(value) ? value.join(" ") : value;
    }
    return item;
  }
  function cardById(id) {
    const card = book().childCards.find((c) => c.UID === id) ||
                 book().childCards.find((c) => (c.primaryEmail || "").toLowerCase() === id.toLowerCase());
    if (!card) throw invalid(`There is no contact ${JSON.stringify(id)}.`, "Contact ids are listed under contacts in the observation.");
    return card;
  }
  function fillCard(card, fields) {
    for (const [key, value] of Object.entries(fields)) {
      if (value === null || value === undefined) continue;
      if (key in CARD_ATTRIBUTES) card[CARD_ATTRIBUTES[key]] = value;
      if (key in VCARD_FIELDS) {
        card.vCardProperties.clearValues(VCARD_FIELDS[key]);
        if (value) card.vCardProperties.addValue(VCARD_FIELDS[key], value);
      }
    }
  }
  const ATTRIBS = { subject: "Subject", from: "Sender", to: "To", cc: "CC", to_or_cc: "ToOrCC", body: "Body" };
  const OPS = { contains: "Contains", does_not_contain: "DoesntContain", is: "Is", is_not: "Isnt", begins_with: "BeginsWith", ends_with: "EndsWith" };
  const ACTIONS = { move_to_folder: "MoveToFolder", copy_to_folder: "CopyToFolder", mark_read: "MarkRead", mark_flagged: "MarkFlagged",
                    add_tag: "AddTag", delete: "Delete", stop: "StopExecution" };
  const reverse = (table, group) => Object.fromEntries(Object.entries(table).map(([k, v]) => [Ci[group][v], k]));
  function filterInfo(filter) {
    const attribs = reverse(ATTRIBS, "nsMsgSearchAttrib"), ops = reverse(OPS, "nsMsgSearchOp"), acts = reverse(ACTIONS, "nsMsgFilterAction");
    const conditions = filter.searchTerms.map((t) => ({ field: attribs[t.attrib] || String(t.attrib), op: ops[t.op] || String(t.op), value: t.value.str }));
    const actions = filter.sortedActionList.map((a) => {
      const item = { type: acts[a.type] || String(a.type) };
      if (a.type === Ci.nsMsgFilterAction.MoveToFolder || a.type === Ci.nsMsgFilterAction.CopyToFolder) item.folder = decodeURIComponent(a.targetFolderUri.slice(prefix().length));
      if (a.type === Ci.nsMsgFilterAction.AddTag) item.tag = tagName(a.strValue);
      return item;
    });
    const all = filter.searchTerms.every((t) => t.booleanAnd);
    return { name: filter.filterName, enabled: filter.enabled, match: all ? "all" : "any", conditions, actions };
  }
  const filterList = () => server().getFilterList(null);
  function filters() { const list = filterList(), out = []; for (let i = 0; i < list.filterCount; i++) out.push(filterInfo(list.getFilterAt(i))); return out; }

  function tagKey(name, create) {
    const known = MailServices.tags.getAllTags().find((t) => t.tag.toLowerCase() === name.toLowerCase());
    if (known) return known.key;
    if (!create) throw invalid(`There is no tag ${JSON.stringify(name)}.`, `Tags: ${MailServices.tags.getAllTags().map((t) => t.tag).join(", ")}.`);
    MailServices.tags.addTag(name, "", "");
    return MailServices.tags.getKeyForTag(name);
  }

  // ---------------------------------------------------------------- compose
  function compose(params, mode, what) {
    const identity = MailServices.accounts.getAccount(ACCOUNT).defaultIdentity;
    const fields = Cc["@mozilla.org/messengercompose/composefields;1"].createInstance(Ci.nsIMsgCompFields);
    fields.from = MailServices.headerParser.makeMimeAddress(identity.fullName, identity.email);
    fields.to = (params.to || []).join(", ");
    fields.cc = (params.cc || []).join(", ");
    fields.subject = params.subject || "";
    fields.body = params.body || "";
    fields.forcePlainText = true;
    fields.useMultipartAlternative = false;
    for (const file of params.attachments || []) {  // checked by the adapter: files inside the workspace
      const local = Cc["@mozilla.org/file/local;1"].createInstance(Ci.nsIFile);
      local.initWithPath(file.path);
      const part = Cc["@mozilla.org/messengercompose/attachment;1"].createInstance(Ci.nsIMsgAttachment);
      part.url = Services.io.newFileURI(local).spec;
      part.name = file.name;
      part.contentType = file.content_type;
      fields.addAttachment(part);
    }
    const send = Cc["@mozilla.org/messengercompose/send;1"].createInstance(Ci.nsIMsgSend);
    let stopped, copied;
    const sent = new Promise((r) => { stopped = r; });
    const stored = new Promise((r) => { copied = r; });
    const listener = {
      onStartSending() {}, onProgress() {}, onStatus() {}, onGetDraftFolderURI() {}, onSendNotPerformed(id, status) { stopped(status || 1); },
      onTransportSecurityError() {}, onStopSending(id, status) { stopped(status); },
      onStartCopy() {}, setMessageKey() {}, getMessageId() { return null; }, onStopCopy(status) { copied(status); },
      QueryInterface: ChromeUtils.generateQI(["nsIMsgSendListener", "nsIMsgCopyServiceListener"]),
    };
    send.createAndSendMessage(null, identity, ACCOUNT, fields, false, false, mode, null, "text/plain", fields.body, null, null,
                              listener, null, "", Ci.nsIMsgCompType.New);
    compose.listener = listener;
    return (async () => {
      // Saving a draft reports nothing to this listener when it works, so the caller watches the
      // Drafts folder instead; a failure still arrives here.
      if (mode === Ci.nsIMsgSend.nsMsgSaveAsDraft) { sent.then((status) => { if (status) listener.failure = status; }); return; }
      checkStatus(await within(sent, what), what);
      checkStatus(await within(stored, `${what} (copy to Sent)`), `${what} (copy to Sent)`);
    })();
  }
  const specialFolder = (flag) => root().getFolderWithFlags(flag);
  function newFolder(p) {
    const parent = p.parent ? folder(p.parent) : root();
    const path = (p.parent ? p.parent + "/" : "") + p.name;
    if (folders().some((f) => folderPath(f).toLowerCase() === path.toLowerCase())) throw invalid(`The folder ${JSON.stringify(path)} already exists.`, "Choose another name.");
    return [parent, path];
  }

  // ---------------------------------------------------------------- the operations
  const OPERATIONS = {
    async setup(p) {
      const s = server();
      s.password = p.password;
      s.port = p.imap_port;
      MailServices.outgoingServer.defaultServer.QueryInterface(Ci.nsISmtpServer).port = p.smtp_port;
      await discover();
      for (const f of folders()) if (!(f.flags & Ci.nsMsgFolderFlags.ImapNoselect)) await refresh(f);
      return { folders: folders().map(folderPath) };
    },
    async ports(p) {
      server().port = p.imap_port;
      server().closeCachedConnections();
      return null;
    },
    async state(p) {
      const f = folder(p.folder);
      if (p.refresh) await refresh(f);
      const list = folders().map((g) => ({ path: folderPath(g), total: g.getTotalMessages(false), unread: g.getNumUnread(false),
                                           special: g.flags & Ci.nsMsgFolderFlags.SpecialUse ? g.localizedName : null }));
      const key = (c) => `${(c.displayName || c.primaryEmail || "").toLowerCase()}\u0000${c.UID}`;
      const cards = book().childCards.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      return { folders: list, folder: p.folder, ...(await page(f, p.offset, p.limit, p.search)),
               contacts: cards.slice(0, p.contact_limit).map(contact), contact_total: cards.length,
               filters: filters(), tags: MailServices.tags.getAllTags().map((t) => t.tag),
               identity: MailServices.accounts.getAccount(ACCOUNT).defaultIdentity.email,
               compose: OPERATIONS.compose_list ? await OPERATIONS.compose_list() : [] };
    },
    async check_messages(p) { await messages(p.ids); return null; },
    async check_folder(p) { folder(p.folder); return null; },
    async check_attachment(p) { const a = await attachment(p.id, p.name); return { size: a.size }; },
    async fetch_attachment(p) {
      const a = await attachment(p.id, p.name);
      return { content_type: a.content_type, data: btoa(await partBytes(a.url)) };
    },
    async check_contact(p) { cardById(p.id); return null; },
    async check_tags(p) { for (const t of p.tags) tagKey(t, false); return null; },
    async move(p) {
      const dest = folder(p.folder);
      for (const { folder: src, headers } of await messages(p.ids)) {
        if (src.URI === dest.URI) continue;
        checkStatus(await within(new Promise((r) => MailServices.copy.copyMessages(src, headers, dest, p.move, copyListener(r), null, false)), p.move ? "Moving" : "Copying"), p.move ? "Moving" : "Copying");
      }
      await refresh(dest);
      return [dest].map(folderPath);
    },
    async delete(p) {
      const changed = [];
      for (const { folder: src, headers } of await messages(p.ids)) {
        checkStatus(await within(new Promise((r) => src.deleteMessages(headers, null, p.permanent, false, copyListener(r), false)), "Deleting"), "Deleting");
        if (p.permanent) src.QueryInterface(Ci.nsIMsgImapMailFolder).expunge(null, null);
        await refresh(src);
        changed.push(folderPath(src));
      }
      const trash = specialFolder(Ci.nsMsgFolderFlags.Trash);
      if (trash && !p.permanent) { await refresh(trash); changed.push(folderPath(trash)); }
      return changed;
    },
    async flags(p) {
      for (const { folder: f, headers } of await messages(p.ids)) {
        if (p.read !== null && p.read !== undefined) f.markMessagesRead(headers, p.read);
        if (p.flagged !== null && p.flagged !== undefined) f.markMessagesFlagged(headers, p.flagged);
        await refresh(f);
      }
      return p.ids;
    },
    async tag(p) {
      const add = (p.add || []).map((t) => tagKey(t, true)), remove = (p.remove || []).map((t) => tagKey(t, false));
      for (const { folder: f, headers } of await messages(p.ids)) {
        if (add.length) f.addKeywordsToMessages(headers, add.join(" "));
        if (remove.length) f.removeKeywordsFromMessages(headers, remove.join(" "));
        await refresh(f);
      }
      return p.ids;
    },
    async check_new_folder(p) { newFolder(p); return null; },
    async create_folder(p) {
      const [parent, path] = newFolder(p);
      parent.createSubfolder(p.name, null);
      await until(() => folders().some((f) => folderPath(f) === path), `Creating folder ${path}`);
      return [path];
    },
    async draft(p) {
      const drafts = specialFolder(Ci.nsMsgFolderFlags.Drafts);
      const before = drafts.getTotalMessages(false);
      await compose(p, Ci.nsIMsgSend.nsMsgSaveAsDraft, "Saving the draft");
      const end = Date.now() + WAIT_MS;
      do { await refresh(drafts); } while (drafts.getTotalMessages(false) <= before && !compose.listener.failure &&
                                           Date.now() < end && !(await sleep(50)));
      if (drafts.getTotalMessages(false) <= before) throw failed("The draft did not arrive in the Drafts folder.", "Is the IMAP server running?");
      return [folderPath(drafts)];
    },
    async send(p) {
      await compose(p, Ci.nsIMsgSend.nsMsgDeliverNow, "Sending");
      const sentFolder = specialFolder(Ci.nsMsgFolderFlags.SentMail);
      await refresh(sentFolder);
      return [folderPath(sentFolder)];
    },
    async add_contact(p) {
      const { VCardUtils } = ChromeUtils.importESModule("resource:///modules/VCardUtils.sys.mjs");
      const card = VCardUtils.vCardToAbCard("BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n");
      fillCard(card, p.fields);
      if (!card.displayName) card.displayName = [p.fields.first_name, p.fields.last_name].filter(Boolean).join(" ") || p.fields.email;
      if (p.uid) card.UID = p.uid;  // seeded contacts: stable ids across resets
      const added = book().addCard(card);
      return [added.UID];
    },
    async edit_contact(p) {
      const card = cardById(p.id);
      fillCard(card, p.fields);
      book().modifyCard(card);
      return [card.UID];
    },
    async delete_contact(p) { const card = cardById(p.id); book().deleteCards([card]); return [card.UID]; },
    async check_filter(p) {
      for (const a of p.actions) {
        if (a.folder) folder(a.folder);
        if (a.type === "add_tag") tagKey(a.tag, false);
      }
      const list = filterList();
      for (let i = 0; i < list.filterCount; i++) {
        if (list.getFilterAt(i).filterName === p.name) throw invalid(`A filter named ${JSON.stringify(p.name)} already exists.`, "Choose another name.");
      }
      return null;
    },
    async create_filter(p) {
      await OPERATIONS.check_filter(p);
      const list = filterList();
      const filter = list.createFilter(p.name);
      for (const c of p.conditions) {
        const term = filter.createTerm();
        term.attrib = Ci.nsMsgSearchAttrib[ATTRIBS[c.field]];
        term.op = Ci.nsMsgSearchOp[OPS[c.op]];
        const value = term.value;
        value.attrib = term.attrib;
        value.str = c.value;
        term.value = value;
        term.booleanAnd = p.match === "all";
        filter.appendTerm(term);
      }
      for (const a of p.actions) {
        const action = filter.createAction();
        action.type = Ci.nsMsgFilterAction[ACTIONS[a.type]];
        if (a.folder) action.targetFolderUri = folder(a.folder).URI;
        if (a.type === "add_tag") action.strValue = tagKey(a.tag, false);
        filter.appendAction(action);
      }
      filter.enabled = p.enabled;
      filter.filterType = Ci.nsMsgFilterType.InboxRule | Ci.nsMsgFilterType.Manual;
      list.insertFilterAt(list.filterCount, filter);
      list.saveToDefaultFile();
      return [`filter:${p.name}`];
    },
    async flush() {
      // Write the address book and filters to disk now; Thunderbird batches writes otherwise.
      filterList().saveToDefaultFile();
      Services.prefs.savePrefFile(null);  // custom tag names live in prefs
      return null;
    },
  };

  // asil_compose.js (installed next) adds its operations to these and uses the same helpers.
  window.ASIL_MAIL = {
    operations: OPERATIONS,
    lib: { ACCOUNT, WAIT_MS, invalid, failed, within, until, sleep, refresh, folder, folderPath, messages, specialFolder },
    async run(op, params) {
      try {
        if (!(op in OPERATIONS)) throw invalid(`Unknown operation ${op}.`);
        return { ok: true, result: await OPERATIONS[op](params || {}) };
      } catch (e) {
        if (e instanceof Refusal) return { ok: false, kind: e.kind, message: e.message, hint: e.hint };
        return { ok: false, kind: "failed", message: `Thunderbird raised: ${e.message || e}`, hint: null };
      }
    },
  };
})();
