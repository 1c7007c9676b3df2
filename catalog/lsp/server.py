"""The language server: column lineage in the editor, for the model, snapshot and analysis
``.sql`` files and the schema YAML of dbt projects.

Hover on a column (its alias or select item, a source's column in YAML): type, description,
PII, transformation, status, one hop upstream with the count back to sources and seeds, the
readers downstream. Go to definition: where its upstream columns are written; references:
where the columns that read it are written. Code lenses run `impact` and `trace`, whose answer
opens as a Markdown document. Diagnostics: the model's unresolved and unknown columns.

Nothing reaches the client as a crash: a failure is a ``window/showMessage`` with one line and
the server goes on answering.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from catalog import __version__
from catalog.errors import CatalogError
from catalog.lsp.answers import FileAnswers, Named, Where
from catalog.lsp.positions import Span
from catalog.lsp.sources import Options, Project, find_root

T = TypeVar("T")
FIRST_WAIT = 120.0  # seconds a request waits for a project's first view (a large target is analyzed first)
WATCH_EVERY = 1.0
COMMANDS = ("catalog.impact", "catalog.trace")


class CatalogServer(LanguageServer):
    def __init__(self, options: Options):
        super().__init__("catalog", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.options = options
        self.projects: dict[Path, Project] = {}
        self.outside: set[str] = set()  # files outside any dbt project already told of
        self._projects_lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.answers_dir = Path(tempfile.mkdtemp(prefix="catalog-lsp-"))

    # ------------------------------------------------------------------ projects
    def project_of(self, uri: str) -> tuple[Project, Path] | None:
        path = Path(to_fs_path(uri) or uri).resolve()
        root = find_root(path.parent)
        with self._projects_lock:  # asked from the request threads at once
            if root is None:
                if uri not in self.outside:
                    self.outside.add(uri)
                    self.tell(f"catalog lsp: {path} is not inside a dbt project (no dbt_project.yml above it): no lineage for it", False)
                return None
            if root not in self.projects:
                self.projects[root] = Project(root, self.options, self.tell, self.changed, self.log)
            return self.projects[root], path

    def tell(self, text: str, error: bool) -> None:
        """A message to the user, from any thread."""
        kind = types.MessageType.Error if error else types.MessageType.Warning
        self._soon(lambda: self.window_show_message(types.ShowMessageParams(type=kind, message=text)))

    def log(self, text: str) -> None:
        """A line for the editor's log, from any thread."""
        self._soon(lambda: self.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=text)))

    def changed(self, project: Project) -> None:
        """A new view is in use (from its loading thread): fresh diagnostics and lenses."""
        for uri in list(self.workspace.text_documents):
            if find_root(Path(to_fs_path(uri) or uri).resolve().parent) == project.root:
                guarded(self, self.publish)(uri)

        def refresh() -> None:
            lens = self.client_capabilities.workspace and self.client_capabilities.workspace.code_lens
            if lens and lens.refresh_support:
                self.workspace_code_lens_refresh(None)

        self._soon(refresh)

    def _soon(self, work: Callable[[], None]) -> None:
        if self.loop is None:
            return
        self.loop.call_soon_threadsafe(guarded(self, work))

    def answers(self, uri: str, wait: float = 0.0) -> FileAnswers | None:
        found = self.project_of(uri)
        if found is None:
            return None
        project, path = found
        loaded = project.current(wait=wait)
        if loaded is None:
            return None
        return FileAnswers(loaded, project.root, path, self.workspace.get_text_document(uri).source, project.findings)

    def named_at(self, params: types.TextDocumentPositionParams, wait: float = FIRST_WAIT) -> tuple[FileAnswers, Named] | None:
        """The file's answers and the column named at the position (waiting ``wait`` seconds for a first view)."""
        file = self.answers(params.text_document.uri, wait)
        named = file.named(params.position.line, params.position.character) if file else None
        return (file, named) if file is not None and named is not None else None

    def publish(self, uri: str) -> None:
        """The file's diagnostics, made here (in a thread: a stored build is asked) and sent
        from the server's loop."""
        file = self.answers(uri)
        if file is None:
            return
        diagnostics = [
            types.Diagnostic(range=_range(span), message=message, source="catalog",
                             severity=types.DiagnosticSeverity.Error if error else types.DiagnosticSeverity.Warning)
            for span, error, message in file.diagnostics()
        ]  # fmt: skip
        self._soon(lambda: self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)))


def guarded(server: CatalogServer, work: Callable[..., T], default: Any = None) -> Callable[..., T]:
    """``work``, its failure told as a message (never a crash)."""

    @functools.wraps(work)
    def run(*args: Any) -> T:
        try:
            return work(*args)
        except CatalogError as e:
            server.tell(f"catalog lsp: {e}", True)
        except Exception as e:  # noqa: BLE001 - the last resort: the server goes on answering
            if os.environ.get("CATALOG_DEBUG"):
                raise
            server.tell(f"catalog lsp: unexpected {type(e).__name__}: {e} (set CATALOG_DEBUG=1 to see where)", True)
        return default

    return run


async def in_thread(server: CatalogServer, work: Callable[[], T]) -> T | None:
    """``work`` in a thread (it may wait for a view or walk a large graph), guarded."""
    return await asyncio.to_thread(guarded(server, work))


async def watch(server: CatalogServer) -> None:
    """Look at each project's manifest (and active build) every :data:`WATCH_EVERY` seconds,
    so that a `dbt compile` or a new build shows without a question from the editor."""
    while True:
        await asyncio.sleep(WATCH_EVERY)
        for project in list(server.projects.values()):
            guarded(server, project.refresh)()


def _range(span: Span) -> types.Range:
    return types.Range(start=types.Position(line=span.line, character=span.start), end=types.Position(line=span.line, character=span.end))


def _location(w: Where) -> types.Location:
    return types.Location(uri=from_fs_path(str(w.path)) or str(w.path), range=_range(w.span))


def make_server(options: Options) -> CatalogServer:
    server = CatalogServer(options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: CatalogServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        folders = [f.uri for f in ls.workspace.folders.values()] or ([ls.workspace.root_uri] if ls.workspace.root_uri else [])
        for uri in folders:  # start reading each project's view before the first question
            root = find_root(Path(to_fs_path(uri) or uri).resolve())
            with ls._projects_lock:
                if root is None or root in ls.projects:
                    continue
                ls.projects[root] = Project(root, ls.options, ls.tell, ls.changed, ls.log)
            ls.projects[root].refresh()
        asyncio.get_running_loop().create_task(watch(ls))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: CatalogServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.loop = ls.loop or asyncio.get_running_loop()
        await in_thread(ls, lambda: ls.publish(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: CatalogServer, params: types.DidChangeTextDocumentParams) -> None:
        await in_thread(ls, lambda: ls.publish(params.text_document.uri))  # the places of the edited text

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: CatalogServer, params: types.DidSaveTextDocumentParams) -> None:
        found = guarded(ls, ls.project_of)(params.text_document.uri)
        if found is not None:
            found[0].saved = True  # a stored project: a manifest written after this is checked against the active build
            found[0].refresh(force=True)  # and its active build looked at now
            await in_thread(ls, lambda: ls.publish(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CatalogServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CatalogServer, params: types.HoverParams) -> types.Hover | None:
        def work() -> types.Hover | None:
            if (at := ls.named_at(params, ls.options.hover_wait)) is None:
                found = ls.project_of(params.text_document.uri)
                note = found[0].loading() if found else None
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=note)) if note else None
            file, named = at
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=file.hover(named)), range=_range(named.span))

        return await in_thread(ls, work)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: CatalogServer, params: types.DefinitionParams) -> list[types.Location] | None:
        def work() -> list[types.Location] | None:
            at = ls.named_at(params)
            return [_location(w) for w in at[0].definitions(at[1])] if at else None

        return await in_thread(ls, work)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: CatalogServer, params: types.ReferenceParams) -> list[types.Location] | None:
        def work() -> list[types.Location] | None:
            at = ls.named_at(params)
            return [_location(w) for w in at[0].references(at[1], params.context.include_declaration)] if at else None

        return await in_thread(ls, work)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: CatalogServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        uri = params.text_document.uri

        def work() -> list[types.CodeLens]:
            file = ls.answers(uri, FIRST_WAIT)
            return [
                types.CodeLens(range=_range(span), command=types.Command(title=title, command=command, arguments=[uri, *args]))
                for span, title, command, args in (file.lenses() if file else [])
            ]

        return await in_thread(ls, work)

    for name in COMMANDS:
        server.command(name)(_command(name.split(".")[1]))
    return server


def _command(kind: str) -> Callable[..., Any]:
    """`impact` or `trace` of columns, as the CLI's Markdown answer in a document opened in the
    editor (``window/showDocument``); returns ``{"uri", "text"}``."""

    async def run(ls: CatalogServer, *args: Any) -> dict[str, str] | None:
        def work() -> tuple[Path, str] | None:
            if len(args) < 2 or not all(isinstance(a, str) for a in args):
                raise CatalogError(f"catalog.{kind} takes a file URI and one or more columns (MODEL.COLUMN)")
            found = ls.project_of(args[0])
            loaded = found[0].current(wait=FIRST_WAIT) if found else None
            if loaded is None:
                return None
            from catalog.report.answers import answer_markdown

            asker, names = loaded.asker, list(args[1:])
            answer = asker.impact(names) if kind == "impact" else asker.trace(names)
            text = answer_markdown(answer, kind)
            first = asker.resolve(names[0]).label if kind == "impact" or ":" not in names[0] else names[0]
            path = ls.answers_dir / f"{kind} {first}{' +' + str(len(names) - 1) if len(names) > 1 else ''}.md".replace("/", "_")
            path.write_text(text, encoding="utf-8")
            return path, text

        done = await in_thread(ls, work)
        if done is None:
            return None
        path, text = done
        uri = from_fs_path(str(path)) or str(path)
        window = ls.client_capabilities.window
        if window and window.show_document and window.show_document.support:
            ls.window_show_document(types.ShowDocumentParams(uri=uri, take_focus=True), callback=lambda *_: None)
        return {"uri": uri, "text": text}

    run.__name__ = kind
    return run
