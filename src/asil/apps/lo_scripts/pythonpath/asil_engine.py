"""What ASIL's LibreOffice engines (asil_calc, asil_writer, asil_impress) share; runs inside LibreOffice.

LibreOffice's script provider puts this ``pythonpath`` folder on ``sys.path`` when it loads a
script beside it, so the engines import it. An :class:`Engine` holds one app's open documents
under short keys (``doc1``...), turns a JSON request into an op call and its JSON answer, and
runs a batch of ops atomically against a stored snapshot. The script provider injects
``XSCRIPTCONTEXT`` only into the engine scripts, so they pass a function that returns their desktop.
Standard library and UNO only.
"""

import json
import traceback

import uno
from com.sun.star.beans import PropertyValue


class EngineError(Exception):
    """A refusal the agent should read: ``code``, one-sentence ``message``, optional ``hint``."""

    def __init__(self, code, message, hint=None):
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


def props(**values):
    """UNO PropertyValue tuple from keyword arguments."""
    out = []
    for name, value in values.items():
        prop = PropertyValue()
        prop.Name, prop.Value = name, value
        out.append(prop)
    return tuple(out)


def load_hidden(desktop, url, filter_name=None):
    """Open a document invisibly, with macros off and links not updated (through ``filter_name`` if given)."""
    extra = {"FilterName": filter_name} if filter_name else {}
    return desktop.loadComponentFromURL(url, "_blank", 0, props(Hidden=True, MacroExecutionMode=0, UpdateDocMode=0,
                                                                **extra))


class Engine:
    """One application's open documents and the request loop around its ops."""

    def __init__(self, service, kind, save_filter, desktop):
        self.service = service  # e.g. com.sun.star.text.TextDocument
        self.desktop = desktop  # () -> LibreOffice's desktop
        self.kind = kind  # "text document", as told to the user
        self.save_filter = save_filter  # the native ODF filter: writer8, calc8, impress8
        self.docs = {}
        self.counter = 0
        self.ops = {}

    # ------------------------------------------------------------ requests
    def dispatch(self, payload, before=None, after=None):
        """``{"op": ..., ...}`` -> ``{"ok": ..., ...}``; ``before(op)``/``after(op, request)`` hooks, any error
        runs ``before(None)`` so caches are dropped."""
        try:
            request = json.loads(payload)
            name = request.pop("op")
            if before:
                before(name)
            result = self.ops[name](**request)
            if after:
                after(name, request)
            return json.dumps({"ok": True, "result": result})
        except EngineError as exc:
            if before:
                before(None)
            return json.dumps({"ok": False, "error": {"code": exc.code, "message": exc.message, "hint": exc.hint}})
        except Exception:
            if before:
                before(None)
            return json.dumps({"ok": False, "error": {"code": "engine_error", "message": traceback.format_exc()}})

    # ------------------------------------------------------------ documents
    def open(self, url):
        """Load ``url`` and register it; a file of the wrong kind is closed and refused."""
        try:
            doc = load_hidden(self.desktop(), url)
            if doc is not None and not doc.supportsService(self.service):
                # An ODF variant that LibreOffice opens in a sibling module (an .odt written from HTML opens
                # in Writer/Web): open it through the application's own ODF filter, as Writer's File > Open
                # with the "ODF Text Document" type does.
                doc.close(True)
                doc = load_hidden(self.desktop(), url, self.save_filter)
        except Exception as exc:
            raise EngineError("bad_document", f"LibreOffice could not open the file ({type(exc).__name__}).") from None
        if doc is None or not doc.supportsService(self.service):
            if doc is not None:
                doc.close(True)
            raise EngineError("bad_document", f"The file is not a {self.kind} LibreOffice can open.")
        return self.register(doc), doc

    def register(self, doc):
        self.counter += 1
        key = f"doc{self.counter}"
        self.docs[key] = doc
        return key

    def doc(self, key):
        try:
            return self.docs[key]
        except KeyError:
            raise EngineError("no_document", "The document is not open in LibreOffice.") from None

    # close, save, export and restore are also ops (see use_ops), so they take the request's ``doc`` key.
    def close(self, doc):
        found = self.docs.pop(doc, None)
        if found is not None:
            found.close(True)
        return True

    def save(self, doc, url):
        document = self.doc(doc)
        document.storeToURL(url, props(FilterName=self.save_filter))
        document.setModified(False)
        return True

    def export(self, doc, url, filter_name, page=None):
        """Store a copy through an export filter (PDF, PNG...), optionally of one page only."""
        args = {"FilterName": filter_name}
        if page is not None:
            args["FilterData"] = uno.Any("[]com.sun.star.beans.PropertyValue", props(PageRange=str(page)))
        self.doc(doc).storeToURL(url, props(**args))
        return True

    def restore(self, doc, url, dirty):
        """Replace the open document by a stored copy (undo of a failed batch, and the like)."""
        old = self.doc(doc)
        new = load_hidden(self.desktop(), url)
        old.close(True)
        self.docs[doc] = new
        new.setModified(bool(dirty))
        return True

    def batch(self, key, steps, snapshot_url, restore, after_step=None):
        """Run ``steps`` in order; on any failure ``restore(key, snapshot_url, dirty)`` brings back the snapshot."""
        document = self.doc(key)
        dirty = document.isModified()
        document.storeToURL(snapshot_url, props(FilterName=self.save_filter))
        for index, step in enumerate(steps):
            request = dict(step)
            op = self.ops[request.pop("op")]
            try:
                op(doc=key, **request)
            except EngineError as exc:
                restore(key, snapshot_url, dirty)
                raise EngineError(exc.code, f"Batch step {index + 1} failed and the batch was undone: {exc.message}",
                                  exc.hint) from None
            except Exception:
                restore(key, snapshot_url, dirty)
                raise
            finally:
                if after_step:
                    after_step()
        return True

    def use_ops(self, namespace):
        """The engine's own close, save, export and restore, then the module's ``op_*`` functions (which may
        replace them)."""
        self.ops = {"close": self.close, "save": self.save, "export": self.export, "restore": self.restore}
        self.ops.update({name[3:]: func for name, func in namespace.items() if name.startswith("op_")})
        return self.ops
