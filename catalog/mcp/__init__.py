"""``catalog mcp``: a read-only Model Context Protocol server over the catalog.

:mod:`catalog.mcp.tools` answers each tool's question from a stored build
(:mod:`catalog.mcp.stored`) or a dbt target analyzed in memory (:mod:`catalog.mcp.view`),
:mod:`catalog.mcp.server` registers them with the SDK's ``MCPServer``. Every answer is
bounded and says so (:mod:`catalog.mcp.pages`), and so is what an agent sends
(:mod:`catalog.mcp.limits`).
"""
