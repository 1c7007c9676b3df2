"""``catalog mcp --http``: streamable HTTP on 127.0.0.1 only, with the SDK's Host and Origin
checks (a page in a browser cannot reach the server through DNS rebinding) and, with a
token, every request needing ``Authorization: Bearer TOKEN``."""

from __future__ import annotations

import hmac
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

HOST = "127.0.0.1"


def http_app(server: MCPServer, port: int, token: str | None) -> Any:
    """The ASGI application serving ``server`` at ``/mcp``."""
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{HOST}:{port}", f"localhost:{port}"],
        allowed_origins=[f"http://{HOST}:{port}", f"http://localhost:{port}"],
    )
    app = server.streamable_http_app(transport_security=security, host=HOST)
    return BearerToken(app, token) if token else app


class BearerToken:
    """An ASGI wrapper that answers 401 to any HTTP request without the token."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})  # fmt: skip
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await self.app(scope, receive, send)


def serve_http(server: MCPServer, port: int, token: str | None) -> None:
    import uvicorn

    uvicorn.run(http_app(server, port, token), host=HOST, port=port, log_level="warning")
