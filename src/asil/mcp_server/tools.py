"""The MCP face of a served workspace: tools and resources on the official SDK's FastMCP (1.x).

Tools return ``CallToolResult`` themselves so bad input becomes a tool error with one clear
sentence (``isError``), never a protocol error or a crashed server. Tool functions are
synchronous: FastMCP runs them on the event loop thread, so every call into LibreOffice is
made from one thread, one at a time. (No ``from __future__ import annotations`` here: FastMCP
reads these signatures at runtime.)
"""

import base64
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any
from urllib.parse import quote, unquote

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent, ToolAnnotations
from mcp.types import Resource as MCPResource
from pydantic import AnyUrl, Field, ValidationError, WithJsonSchema

from asil.mcp_server import describe
from asil.mcp_server.documents import ServedWorkspace
from asil.protocol import Action, ActionFailed, ActionResult, AsilError

DOCUMENT_URI = "asil://documents/{path}"
SCHEMA_URI = "asil://schema/{app}"


def _action_input_schema() -> dict[str, Any]:
    action = Action.model_json_schema()
    return {"anyOf": [action, {"type": "array", "items": action, "minItems": 1}]}


DocumentArg = Annotated[str, Field(description="Path of the document inside the workspace, e.g. 'budget.ods'.")]
AppArg = Annotated[str | None, Field(description="The served app to open the document with; by file type when omitted.")]
ViewArg = Annotated[str | None, Field(description="View to show, e.g. a sheet name for calc.")]
OffsetArg = Annotated[int | None, Field(ge=0, description="First row (0-based) of the window.")]
LimitArg = Annotated[int | None, Field(ge=1, le=100, description="Rows in the window.")]
ActionArg = Annotated[Any, WithJsonSchema(_action_input_schema()),
                      Field(description="One action object, or a list of actions applied as one atomic batch.")]


class WorkspaceMCP(FastMCP[Any]):
    """FastMCP whose resource list includes the workspace's documents, read fresh on every request."""

    def __init__(self, served: ServedWorkspace, **settings: Any):
        super().__init__(**settings)
        self.served = served

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Sequence[ContentBlock] | dict[str, Any]:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            # FastMCP's own argument check failed: say it in one sentence, naming the valid arguments.
            tool = next((t for t in await self.list_tools() if t.name == name), None)
            valid = ", ".join(tool.inputSchema.get("properties", {})) if tool else ""
            raise ToolError(f"{describe_arguments_error(name, exc.__cause__)} Arguments of {name}: {valid}.") from None

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        for item in self.served.documents():
            listed.append(MCPResource(uri=AnyUrl(document_uri(item["path"])), name=item["path"], mimeType="application/json",
                                      description=f"{item['app']} document: its current observation as JSON"))
        return listed


def describe_arguments_error(tool: str, error: ValidationError) -> str:
    first = error.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "arguments"
    problem = "is missing" if first["type"] == "missing" else f"is wrong: {first['msg']}"
    return f"Argument {name!r} of {tool} {problem}."


def document_uri(path: str) -> str:
    return DOCUMENT_URI.format(path=quote(path, safe=""))


def build_server(served: ServedWorkspace, security: TransportSecuritySettings | None = None) -> WorkspaceMCP:
    """An MCP server for ``served``: tools documents, observe, act, validate, schema, render, and resources."""
    server = WorkspaceMCP(served, name="asil", instructions=describe.INSTRUCTIONS, log_level="WARNING",
                          transport_security=security)
    _register_reading_tools(server, served)
    _register_acting_tools(server, served)
    _register_resources(server, served)
    return server


def _register_reading_tools(server: WorkspaceMCP, served: ServedWorkspace) -> None:
    schemas = served.schemas()
    reading = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    @server.tool(description=describe.documents_description(), annotations=reading)
    def documents() -> CallToolResult:
        return _answer(lambda: {"documents": served.documents()})

    @server.tool(description=describe.observe_description(schemas), annotations=reading)
    def observe(document: DocumentArg, view: ViewArg = None, offset: OffsetArg = None, limit: LimitArg = None,
                app: AppArg = None) -> CallToolResult:
        return _answer(lambda: served.observe(document, app, view, offset, limit).to_agent_dict())

    @server.tool(description=describe.schema_description(schemas), annotations=reading)
    def schema(app: Annotated[str | None, Field(description="Served app; optional when only one is served.")] = None
               ) -> CallToolResult:
        return _answer(lambda: served.schema(app).model_dump(mode="json", exclude_none=True))

    @server.tool(description=describe.render_description(), annotations=reading)
    def render(document: DocumentArg, view: ViewArg = None, offset: OffsetArg = None, app: AppArg = None
               ) -> CallToolResult:
        try:
            png, observation = served.render(document, app, view, offset)
        except AsilError as exc:
            return _refusal(exc)
        note = f"{document}: {observation.summary}"
        return CallToolResult(content=[ImageContent(type="image", data=base64.b64encode(png).decode("ascii"),
                                                    mimeType="image/png"), TextContent(type="text", text=note)])


def _register_acting_tools(server: WorkspaceMCP, served: ServedWorkspace) -> None:
    schemas = served.schemas()

    @server.tool(description=describe.validate_description(), annotations=ToolAnnotations(readOnlyHint=True))
    def validate(document: DocumentArg, action: ActionArg, app: AppArg = None) -> CallToolResult:
        def check() -> dict[str, Any]:
            error = served.validate(document, action, app)
            return {"valid": True} if error is None else {"valid": False, "error": error.model_dump(exclude_none=True)}
        return _answer(check)

    changes = ToolAnnotations(readOnlyHint=served.policy.read_only, idempotentHint=False, openWorldHint=False,
                              destructiveHint=served.policy.allow_destructive)

    @server.tool(description=describe.act_description(schemas, served.policy), annotations=changes)
    def act(document: DocumentArg, action: ActionArg, ctx: Context, app: AppArg = None  # type: ignore[type-arg]
            ) -> CallToolResult:
        try:
            result = served.act(document, action, app, client=client_label(ctx))
        except AsilError as exc:
            return _refusal(exc)
        return _outcome(result)


def _register_resources(server: WorkspaceMCP, served: ServedWorkspace) -> None:
    for app, app_schema in served.schemas().items():
        text = json.dumps(app_schema.model_dump(mode="json", exclude_none=True), ensure_ascii=False, indent=1)
        server.resource(SCHEMA_URI.format(app=app), name=f"{app} action schema", mime_type="application/json",
                        description=f"Every action the {app} adapter accepts, with params, examples and tips.")(
            _constant(text))

    @server.resource(DOCUMENT_URI, name="document", mime_type="application/json",
                     description="A workspace document's current observation; the path is URL-encoded.")
    def read_document(path: str) -> str:
        return json.dumps(served.observe(unquote(path)).to_agent_dict(), ensure_ascii=False)


def _constant(text: str) -> Callable[[], str]:
    return lambda: text


def client_label(ctx: Context) -> str:  # type: ignore[type-arg]
    """Who called, for the audit log: the client's self-reported name/version from the MCP handshake,
    and over HTTP the peer address (``stdio`` when the client started the server itself)."""
    params = ctx.session.client_params
    info = params.clientInfo if params is not None else None
    name = f"{info.name}/{info.version}" if info is not None else "unknown"
    request = ctx.request_context.request
    peer = getattr(getattr(request, "client", None), "host", None) if request is not None else None
    return f"{name}@{peer or 'stdio'}"


# ---------------------------------------------------------------- results


def _answer(produce: Callable[[], dict[str, Any]]) -> CallToolResult:
    try:
        data = produce()
    except AsilError as exc:
        return _refusal(exc)
    return CallToolResult(content=[_json_text(data)], structuredContent=data)


def _outcome(result: ActionResult) -> CallToolResult:
    data = result.model_dump(mode="json", exclude_none=True, exclude={"observation"})
    if result.observation is not None:
        data["observation"] = result.observation.to_agent_dict()
    content: list[ContentBlock] = [_json_text(data)]
    if result.error is not None:  # the sentence first, so a client that shows only text shows the reason
        content.insert(0, TextContent(type="text", text=_sentence(result.error.message, result.error.hint)))
    return CallToolResult(content=content, structuredContent=data, isError=not result.ok)


def _refusal(exc: AsilError) -> CallToolResult:
    error = exc.to_error().model_dump(exclude_none=True)
    status = "error" if isinstance(exc, ActionFailed) else "invalid"
    return CallToolResult(content=[TextContent(type="text", text=_sentence(exc.message, exc.hint))],
                          structuredContent={"ok": False, "status": status, "error": error}, isError=True)


def _sentence(message: str, hint: str | None) -> str:
    return f"{message} {hint}" if hint else message


def _json_text(data: dict[str, Any]) -> TextContent:
    return TextContent(type="text", text=json.dumps(data, ensure_ascii=False))
