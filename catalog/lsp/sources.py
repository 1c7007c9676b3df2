"""Where `catalog lsp` answers from, for each dbt project the editor has files of: the
project's active build stored in Neo4j, or its ``target/`` analyzed in memory.

In memory the answers are a :class:`~catalog.mcp.view.ProjectView` (the one ``catalog mcp``
reads) of the whole target; stored, a :class:`~catalog.lsp.stored.StoredBuild` asks Neo4j per
question (or, with ``whole_build``, the whole build is read into a view first). Either is
swapped for a new one without a restart: in memory when ``target/manifest.json`` changes
(after ``dbt compile``), stored when the project's active build changes (checked at most every
:data:`CHECK_EVERY` seconds, and on each save). A changed manifest is read once it has stayed
the same for :data:`SETTLE` seconds (dbt writes it while it compiles). Loading runs in a
thread; the editor is answered from the one in use meanwhile. A failure (no manifest, a half-written one,
no build, Neo4j down) is told once as a message and leaves the view in use as it was.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.errors import CatalogError
from catalog.lsp.stored import FILE_KINDS, Answering, StoredBuild
from catalog.store.keys import quote_column

if TYPE_CHECKING:
    from catalog.check import CheckReport, Finding
    from catalog.mcp.stored import Stored
    from catalog.mcp.view import ProjectView
    from catalog.query import Answer, ColumnId
    from catalog.settings import Neo4jSettings

_NONE = object()  # no load has failed yet
CHECK_EVERY = 2.0  # seconds between two looks at a stored project's active build
SETTLE = 0.5  # seconds a changed manifest stays the same before it is read (dbt may be writing it)


ORPHAN_CHECK = 0.5  # seconds between two looks of the analyzer's process at its server


_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_stopped = False


def _analyzer() -> ProcessPoolExecutor:
    """One process, started afresh (spawn), that analyzes targets for the server: the analysis
    forks its workers, which a process running the server's threads must not do."""
    global _pool
    with _pool_lock:
        if _stopped:  # a load thread asking while the server stops: no process is started any more
            raise CatalogError("the language server is stopping")
        if _pool is None or getattr(_pool, "_broken", False):
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_may_fork, initargs=(os.getpid(),))
        return _pool


def _may_fork(server: int) -> None:
    """In the analyzer's process (one thread): a spawned process inherits ``spawn`` as its start
    method, which would make the analysis run its models one by one; it may fork its workers.

    The analyzer leads a process group of its own, which the workers it forks join, and ends
    that group as soon as its server is gone (stopped, killed or crashed): nothing the server
    started outlives it, nor holds the editor's pipes open."""
    multiprocessing.set_start_method(None, force=True)
    os.setpgid(0, 0)
    threading.Thread(target=_end_with, args=(server,), name="catalog-lsp-server-watch", daemon=True).start()


def _end_with(server: int) -> None:
    """In the analyzer's process: wait for the server's end, then end the process group."""
    while os.getppid() == server:
        time.sleep(ORPHAN_CHECK)
    os.killpg(0, signal.SIGKILL)


def stop_analyzer() -> None:
    """End the analyzer's process and the workers it forked, even in the middle of an analysis
    (the server is stopping); no analyzer is started after this."""
    global _pool, _stopped
    with _pool_lock:
        pool, _pool, _stopped = _pool, None, True
    if pool is not None:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            try:
                os.killpg(process.pid, signal.SIGKILL)  # the analyzer and its workers
            except OSError:  # not yet its group's leader (or gone): the process alone
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)


def _check_target(settings: Neo4jSettings, target: Path, name: str, jobs: int | None) -> CheckReport:
    """`catalog check` of ``target`` against the active build of ``name`` (in the analyzer's
    process: the analysis forks), by the use case the CLI and the MCP server call."""
    from catalog.check_change import check_change

    from catalog.store.graph import open_graph

    return check_change(target, project=name, jobs=jobs, graph=lambda: open_graph(settings, settings.timeout)).report


def find_root(path: Path) -> Path | None:
    """The dbt project folder (with ``dbt_project.yml``) that holds ``path``."""
    for folder in (path, *path.parents):
        if (folder / "dbt_project.yml").is_file():
            return folder
    return None


def project_name(root: Path) -> str | None:
    """The ``name`` of ``root/dbt_project.yml`` (None when it cannot be read)."""
    import yaml

    try:
        doc = yaml.safe_load((root / "dbt_project.yml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    name = doc.get("name") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else None


@dataclass
class Loaded(Answering):
    """One view in use and what is derived from it once."""

    view: ProjectView
    signature: Any  # the manifest's (mtime, size), or the build id
    origin: str  # for messages: "target/manifest.json" or "build 7 in Neo4j"
    package: str | None = None  # the dbt project's own package: its files first when two packages name the same path
    files: dict[str, str] = field(default_factory=dict)  # file, relative to the project folder -> unique id
    _answers: dict[tuple[str, str], Answer] = field(default_factory=dict)

    def __post_init__(self) -> None:
        package = self.package or self.view.project
        for uid, node in sorted(self.view.nodes.items(), key=lambda kv: kv[0].split(".")[1] != package):
            if node.path and node.kind in FILE_KINDS:
                self.files.setdefault(Path(node.path).as_posix(), uid)

    @property
    def size(self) -> str:
        return f"{len(self.view.nodes)} nodes"

    @property
    def asker(self) -> ProjectView:
        """What `impact` and `trace` of the code lenses' commands ask."""
        return self.view

    def around(self, rel: str) -> tuple[ProjectView | None, str | None]:
        """The view and the unique id of the node written in the file ``rel`` (relative to the
        project folder; None when no node is)."""
        return self.view, self.files.get(rel)

    def view_of(self, uid: str) -> ProjectView:
        """The view that answers about the node ``uid``."""
        return self.view

    def yaml_named(self, node: str, column: str) -> ColumnId:
        return self.view.resolve(f"{self.view.resolve_node(node).unique_id}.{quote_column(column)}")



@dataclass(frozen=True)
class Options:
    memory: bool
    project: str | None = None  # the stored project (default: dbt_project.yml's name)
    dialect: str | None = None
    jobs: int | None = None
    stored: Stored | None = None  # one connection for every project folder
    hover_wait: float = 1.5  # seconds a hover waits for the first view before it says the lineage is loading
    whole_build: bool = False  # stored: read the whole active build into memory first instead of asking per question


class Project:
    """One dbt project folder and the view its answers come from."""

    def __init__(
        self, root: Path, options: Options, tell: Callable[[str, bool], None], changed: Callable[[Project], None],
        log: Callable[[str], None] = lambda text: None,
    ):  # fmt: skip
        """``tell(text, error)``: show the user a message; ``changed(project)``: a new view is in
        use; ``log(text)``: a line for the editor's log (what is being read, what answers)."""
        self.root = root
        self.options = options
        self.name = options.project or project_name(root)
        self.tell = tell
        self.log = log
        self.changed = changed
        self.loaded: Loaded | StoredBuild | None = None
        self.problem: str | None = None
        self._failed: Any = _NONE  # the signature whose load failed (not tried again)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._reading = False  # a load is under way (its thread may outlive it by a moment)
        self._tried = threading.Event()  # the first load has ended, well or not
        self._started = 0.0  # when the load under way started
        self._checked = 0.0
        # stored builds: `catalog check` of target/ against the active build, run when the
        # manifest changes after a file of the project was saved (a `dbt compile` after an edit)
        self.findings: dict[str, list[Finding]] = {}  # unique id -> its findings
        self.saved = False
        self._compiled = self._manifest_signature()  # the manifest the findings are of
        self._seen: tuple[Any, float] = (self._compiled, 0.0)  # the manifest's signature, and since when
        self._checking: threading.Thread | None = None

    @property
    def manifest(self) -> Path:
        return self.root / "target" / "manifest.json"

    def current(self, wait: float = 0.0, force: bool = False) -> Loaded | StoredBuild | None:
        """The view in use, after starting a reload when the manifest or the active build
        changed; ``wait``: seconds to wait for the first load."""
        self.refresh(force)
        if self.loaded is None and wait:
            self._tried.wait(wait)
        return self.loaded

    def refresh(self, force: bool = False) -> None:
        if self.options.memory:
            sig = self._manifest_signature()
            if (self.loaded is not None and sig == self.loaded.signature) or (sig == self._failed and not force):
                return
            if (self.loaded is not None or self._failed is not _NONE) and not self._settled(sig):
                return  # changed since the last look: read once dbt has written it
        else:
            self._check_if_compiled()
            now = time.monotonic()
            if not force and now - self._checked < CHECK_EVERY:
                return
            self._checked = now
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._load, name=f"catalog-lsp-load {self.root.name}", daemon=True)
            self._started = time.monotonic()
            self._reading = True
            self._thread.start()

    def loading(self) -> str | None:
        """What a hover says while the project's first view is read: what, and for how long so far."""
        if self.loaded is not None or not self._reading:
            return None
        name = repr(self.name) if self.name else "the project"
        what = (f"analyzing {self.manifest}" if self.options.memory else f"reading the active build of {name} from Neo4j" if self.options.whole_build
                else f"asking Neo4j for the active build of {name}")  # fmt: skip
        return (f"_catalog lsp is {what} ({time.monotonic() - self._started:.0f} s so far): the lineage of this file "
                "answers once it is read. Hover again in a moment._")

    def _check_if_compiled(self) -> None:
        sig = self._manifest_signature()
        if not self.saved or sig is None or sig == self._compiled or not self._settled(sig):
            return
        with self._lock:
            if self._checking is not None and self._checking.is_alive():
                return
            self._compiled = sig
            self._checking = threading.Thread(target=self._check, name=f"catalog-lsp-check {self.root.name}", daemon=True)
            self._checking.start()

    def _check(self) -> None:
        """The findings of `catalog check` of target/ against the project's active build."""
        from collections import defaultdict

        stored = self.options.stored
        assert stored is not None
        try:
            name = stored.catalog(self.name, None).project
            report = _analyzer().submit(_check_target, stored.settings, self.root / "target", name, self.options.jobs).result()
        except CatalogError as e:
            stored.lost(e)
            self.tell(f"catalog lsp: check of {self.manifest} against the active build: {e}", True)
            return
        except Exception as e:  # noqa: BLE001 - the server goes on answering; the user is told
            self.tell(f"catalog lsp: check of {self.manifest} against the active build: unexpected {type(e).__name__}: {e}", True)
            return
        found: dict[str, list[Finding]] = defaultdict(list)
        for f in report.findings:
            found[f.unique_id].append(f)
        self.findings = dict(found)
        self.changed(self)

    def _settled(self, sig: Any) -> bool:
        """Whether the manifest's signature ``sig`` has stayed the same for :data:`SETTLE`
        seconds: a manifest changing between two looks is still being written."""
        now = time.monotonic()
        if sig != self._seen[0]:
            self._seen = (sig, now)
        return now - self._seen[1] >= SETTLE

    def _manifest_signature(self) -> tuple[int, int] | None:
        try:
            st = self.manifest.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _load(self) -> None:
        started = time.monotonic()
        try:
            if self.options.memory:
                self.log(f"catalog lsp: analyzing {self.manifest}")
            loaded = self._read_memory() if self.options.memory else self._read_stored()
        except CatalogError as e:
            if self.options.stored is not None:
                self.options.stored.lost(e)
            self._fail(str(e))
        except Exception as e:  # noqa: BLE001 - the server goes on answering; the user is told
            self._fail(f"unexpected {type(e).__name__}: {e}")
        else:
            if loaded is not None:
                self.loaded, self.problem, self._failed = loaded, None, _NONE
                self.log(f"catalog lsp: answering from {loaded.origin}, {loaded.size}, read in {time.monotonic() - started:.1f} s")
                self.changed(self)
        finally:
            self._reading = False  # before a request waiting on _tried asks loading()
            self._tried.set()

    def _fail(self, problem: str) -> None:
        if self.options.memory:
            self._failed = self._manifest_signature()
        kept = f"; answering from {self.loaded.origin} meanwhile" if self.loaded is not None else ""
        text = f"catalog lsp: {problem}{kept}"
        if text != self.problem:
            self.problem = text
            self.tell(text, True)

    def _read_memory(self) -> Loaded | None:
        from catalog.mcp.stored import InMemory, analyzed_input, analyzed_lineages

        sig = self._manifest_signature()
        if sig is None:
            raise CatalogError(f"{self.manifest} does not exist: run `dbt compile` (or `dbt build`) in {self.root} first")
        target = self.root / "target"
        # the analyzer hands back plain tuples, made into records here: the records themselves
        # (hundreds of MB pickled at 20,000 models) took longer to send than to analyze
        packed = _analyzer().submit(analyzed_lineages, target, self.options.dialect, self.options.jobs).result()
        source = InMemory(target, data=analyzed_input(target, self.options.dialect, packed=packed))
        if self._manifest_signature() != sig:  # written again while it was read: read the newer one next
            return None
        return Loaded(source.view(None, None), sig, f"{self.manifest} (in memory)", project_name(self.root))

    def _read_stored(self) -> Loaded | StoredBuild | None:
        """The active build, asked per question (or read whole with ``whole_build``)."""
    
        stored = self.options.stored
        assert stored is not None
        catalog = stored.catalog(self.name, None)
        if self.loaded is not None and self.loaded.signature == catalog.build_id:
            if isinstance(self.loaded, Loaded) or self.loaded.catalog.graph is catalog.graph:
                return None  # the same build (asked per question: over the same connection)
        origin = f"build {catalog.build_id} of {catalog.project!r} in Neo4j"
        if not self.options.whole_build:
            return StoredBuild(catalog, origin, project_name(self.root))
        return Loaded(stored.view(catalog.project, catalog.build_id), catalog.build_id, origin, project_name(self.root))
