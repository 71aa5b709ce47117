"""Runs inside the sandbox with the system's /usr/bin/python3 (where pyuno imports): connects to the
task's LibreOffice over its pipe, binds ``doc`` to the open document, and runs the step's code.

Arguments: the pipe name and the document's URL; the code comes on stdin. A failure of the code is
reported on stderr as one line after ``FAILURE_MARK`` (the traceback's last line) with exit code 3.
This file is passed to the interpreter as source (``python3 -c``), so it imports nothing of ASIL.
"""

import sys
import traceback
from typing import Any

FAILURE_MARK = "ASIL-UNO-FAILURE: "
CODE_FAILED = 3


def _document(desktop: Any, url: str) -> Any:
    components = desktop.getComponents().createEnumeration()
    while components.hasMoreElements():
        component = components.nextElement()
        if hasattr(component, "getURL") and component.getURL() == url:
            return component
    return None


def main() -> None:
    pipe, url = sys.argv[1], sys.argv[2]
    source = sys.stdin.read()
    import uno

    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    doc = _document(desktop, url)
    if doc is None:
        print(FAILURE_MARK + f"LibreOffice has no open document at {url}", file=sys.stderr)
        sys.exit(CODE_FAILED)
    scope = {"__name__": "__uno_step__", "uno": uno, "ctx": ctx, "desktop": desktop, "doc": doc}
    try:
        exec(compile(source, "<uno step>", "exec"), scope)
    except BaseException:  # the code's own failure (SystemExit too): one line back to the agent
        lines = traceback.format_exc().strip().splitlines()
        print("\n".join(lines[-12:]), file=sys.stderr)
        # pyuno names exception classes after the module that raised them, here the step itself
        print(FAILURE_MARK + lines[-1].replace("__uno_step__.", ""), file=sys.stderr)
        sys.exit(CODE_FAILED)


if __name__ == "__main__":  # python3 -c runs it as __main__; importing it runs nothing
    main()
