"""An editor for the tests: `catalog lsp` started as a real process on stdio and driven by
pytest-lsp's client, with the few requests an editor makes, placed by text (the n-th
occurrence of a needle in a file) rather than by numbers."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CATALOG = [sys.executable, "-c", "from catalog.cli.app import main; main()"]


class Editor:
    def __init__(self, client: LanguageClient, root: Path):
        self.client, self.root = client, root

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def at(self, rel: str, needle: str, nth: int = 0, into: int = 0) -> types.Position:
        """The position ``into`` characters into the ``nth`` occurrence of ``needle``."""
        text = (self.root / rel).read_text(encoding="utf-8")
        at = -1
        for _ in range(nth + 1):
            at = text.index(needle, at + 1)
        line = text.count("\n", 0, at)
        return types.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1) + into)

    def open(self, rel: str) -> str:
        path = self.root / rel
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="sql", version=1, text=path.read_text(encoding="utf-8"))))  # fmt: skip
        return path.as_uri()

    def edited(self, rel: str) -> None:
        """The file's text on disk, as the editor's buffer (one whole-text change)."""
        path = self.root / rel
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=path.read_text(encoding="utf-8"))]))  # fmt: skip

    def save(self, rel: str) -> None:
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel))))

    async def hover(self, rel: str, pos: types.Position) -> str | None:
        got = await self.client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel)), position=pos))
        return got.contents.value if got is not None else None

    async def definition(self, rel: str, pos: types.Position) -> list[tuple[str, int, int]]:
        got = await self.client.text_document_definition_async(types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel)), position=pos))
        return self.places(got)

    async def references(self, rel: str, pos: types.Position, declaration: bool = False) -> list[tuple[str, int, int]]:
        got = await self.client.text_document_references_async(types.ReferenceParams(
            context=types.ReferenceContext(include_declaration=declaration), text_document=types.TextDocumentIdentifier(uri=self.uri(rel)), position=pos))  # fmt: skip
        return self.places(got)

    async def lenses(self, rel: str) -> list[tuple[int, str, str, list[Any]]]:
        got = await self.client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel))))
        return [(lens.range.start.line, lens.command.title, lens.command.command, lens.command.arguments[1:]) for lens in got or ()]

    async def command(self, name: str, *args: Any) -> Any:
        return await self.client.workspace_execute_command_async(types.ExecuteCommandParams(command=name, arguments=list(args)))

    def places(self, got: Any) -> list[tuple[str, int, int]]:
        """(file relative to the project, line, character) of each location."""
        if got is None:
            return []
        got = got if isinstance(got, (list, tuple)) else [got]
        return [(Path(types_uri_path(g.uri)).relative_to(self.root).as_posix(), g.range.start.line, g.range.start.character) for g in got]

    def messages(self) -> list[str]:
        return [m.message for m in self.client.messages]

    async def until(self, check: Callable[[], Any], timeout: float = 60.0) -> Any:
        """Poll ``check`` (sync or async) until it returns something true."""
        end = time.monotonic() + timeout
        while True:
            got = check()
            if asyncio.iscoroutine(got):
                got = await got
            if got or time.monotonic() > end:
                return got
            await asyncio.sleep(0.1)


def types_uri_path(uri: str) -> str:
    from pygls.uris import to_fs_path

    return to_fs_path(uri) or uri


@contextlib.asynccontextmanager
async def editor(root: Path, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[Editor]:
    """`catalog lsp ARGS` with ``root`` as the workspace, initialized, shut down after."""
    import os

    # a hover waits for the first lineage as long as the tests' projects take to read, unless told
    wait = () if "--hover-wait" in args else ("--hover-wait", "600")
    config = ClientServerConfig(server_command=[*CATALOG, "lsp", *wait, *args], server_env={**os.environ, **(env or {})})
    client = await config.start()
    client.lens_refreshes = 0

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(ls: LanguageClient, params: None) -> None:
        ls.lens_refreshes += 1

    try:
        await asyncio.wait_for(client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri())), 120)  # fmt: skip
        yield Editor(client, root)
        if client._server is not None and client._server.returncode is None:  # not killed by the test
            await asyncio.wait_for(client.shutdown_session(), 60)
    finally:
        server = client._server  # a test that failed before shutdown: the server stops with it
        if server is not None and server.returncode is None:
            server.kill()
            # asyncio's wait() also waits for the server's pipes to close: bounded, so that a
            # process the server left behind holding them fails the test instead of hanging it
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(server.wait(), 10)
            for task in client._async_tasks:
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
            await asyncio.wait_for(client.stop(), 10)
