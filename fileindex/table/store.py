"""Where a Paimon table's files are: the one object that owns a table's layout (table spec §1-§7), as
paimon-rust's ``FileIO`` with its path factory and pyiceberg's location provider do.

A :class:`TableStore` is a table root and a branch. The branch's own metadata (``schema/``, ``snapshot/``
with its ``LATEST``/``EARLIEST`` hints, ``tag/``) lies under :attr:`TableStore.meta`: the table root for
``main``, ``branch/branch-NAME/`` for any other (Paimon's ``BranchManager``). Manifests (``manifest/``),
index files (``index/``) and the bucket folders are the table's, shared by every branch. Every path of
the table layer is built here; the names put in these paths come from the metadata and are checked
where it is decoded (:mod:`fileindex.table.names`). Frozen and picklable: a Spark task gets a copy.

The store also holds the table's file access (:class:`~fileindex.io.FileIO`, local by default): every file
of the table is opened, read, listed or written through it, and the confinement rules of
docs/untrusted-tables.md are applied here once: a file is opened only if it is a regular file inside the
table root (after links, checked on the opened file), or, for a data file under an external path, inside
a root the caller allowed (``external_roots``) that the table's ``data-file.external-paths`` names.
Data files are named per bucket: a partition's folder is decoded once per store, not per file.
"""
from __future__ import annotations

import os
import stat
from fileindex.frozen import field, frozen, replace
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

from fileindex.errors import UsageError
from fileindex.io import LOCAL, FileIO, InputFile, OutsideError
from fileindex.io.locations import UriPath, parse_location
from fileindex.io.reach import current_reach, names_a_store, store_file_io
from fileindex.table.errors import TableError, UnsafeNameError
from fileindex.table.names import (
    inside,
    local_external_path,
    on_store,
    readable_external,
    whole_number,
)

if TYPE_CHECKING:
    from fileindex.table.metadata import ManifestEntry, Schema

MAIN = "main"
PREFETCH_REQUESTS = 8  # metadata files of a remote store fetched at once
# in external_roots: the folders the table's own option names (``--allow-external-paths`` without a ROOT)
DECLARED = "declared"
EXTERNAL_PATHS_OPTION = "data-file.external-paths"
BRANCH_PREFIX = "branch-"
# the folders under a table root that hold metadata, not data files (each branch's metadata is under branch/)
METADATA_FOLDERS = ("manifest", "snapshot", "schema", "tag", "index", "statistics", "changelog", "branch")


def is_table_root(path: str | Path) -> bool:
    """Whether ``path`` is a table root: a folder with ``snapshot/`` and ``schema/``; a store's URI is taken to
    name one (telling would cost requests: opening it says what is missing)."""
    if names_a_store(path):
        return True
    path = Path(path)
    return path.is_dir() and (path / "snapshot").is_dir() and (path / "schema").is_dir()


def table_holding(path: str | Path) -> Path | None:
    """The table root ``path`` lies in (or is), if any: where a report written there would replace or join the
    table's own files."""
    target = Path(os.path.realpath(path))
    return next((folder for folder in (target, *target.parents) if is_table_root(folder)), None)


def not_a_table(root: Path, missing: str) -> UsageError:
    """Why ``root`` is not a table root, saying what to give instead where that can be seen."""
    if not isinstance(root, (Path, str)) or "://" in str(root):  # a table on a store: no folder to look into
        return UsageError(f"{root} is not a Paimon table's root ({missing})")
    root = Path(root)
    if not root.exists():
        return UsageError(f"{root} does not exist: give a Paimon table's root folder{_uri_hint(str(root))}")
    if not root.is_dir():
        return _folder_near_tables(root) or UsageError(f"{root} is a file: give a Paimon table's root folder (the "
                                                       "one holding schema/ and snapshot/)")
    tables = sorted(p for p in root.iterdir() if is_table_root(p))
    if tables:
        return UsageError(f"{root} is not a table but holds tables (a database folder?): give one of "
                          f"{', '.join(str(t) for t in tables[:5])}")
    return _folder_near_tables(root) or UsageError(f"{root}: {missing}: not a Paimon table root (the folder holding "
                                                   "schema/ and snapshot/)")


def _uri_hint(given: str) -> str:
    """For a URI written with one slash (``file:/tmp/t``, as Hadoop prints paths; ``s3:/bucket``): the URI meant."""
    scheme, colon, rest = given.partition(":")
    if not colon or not scheme.isalnum() or len(scheme) < 2 or not rest.startswith("/") or rest.startswith("//"):
        return ""
    return f" (a URI takes two slashes: {scheme}://{rest if scheme.lower() == 'file' else rest[1:]})"


def _folder_near_tables(root: Path) -> UsageError | None:
    """For a folder or file inside a table (its ``bucket-0/``, ``snapshot/``): the table's root; for a folder of
    database folders (a warehouse): some of the tables in them."""
    inside = table_holding(root)
    if inside is not None:
        shown = inside if root.is_absolute() else Path(os.path.relpath(inside))
        kind = "a folder" if root.is_dir() else "a file"
        return UsageError(f"{root} is {kind} inside a table: give the table's root, {shown}")
    if not root.is_dir():
        return None
    try:
        tables = sorted(table for database in root.iterdir() if database.is_dir() for table in database.iterdir()
                        if is_table_root(table))
    except OSError:  # (a folder it may not list: no hint)
        return None
    if tables:
        return UsageError(f"{root} is not a table but holds folders of tables (a warehouse?): give a table, e.g. "
                          f"{', '.join(str(t) for t in tables[:3])}")
    return None




@frozen
class TableStore:
    """A table's layout: ``root`` is the table root, ``branch`` the branch whose metadata is read and written."""

    # a local folder; for a table on a store reached by URI (object stores, HDFS) a UriPath, which has the Path
    # operations the layout uses (typed as Path so the layout's paths keep one type; ``remote`` tells them apart)
    root: Path
    branch: str = MAIN
    io: FileIO = field(default=LOCAL, compare=False, repr=False)
    # folders whose data files under external paths may be read (local paths or file: URIs); none: no external path
    external_roots: tuple[str, ...] = field(default=(), compare=False)
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # per bucket (not pickled)

    def __getstate__(self) -> dict:
        return {**vars(self), "_memo": {}}

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    @classmethod
    def at(cls, location: str | Path, branch: str | None = None, *, external_roots: tuple[str, ...] = (),
           options: Mapping[str, str] | None = None, filesystem: Any = None) -> TableStore:
        """The store of the table at ``location`` (a path, a ``file://`` URI, or a store's URI: ``s3://``, ``gs://``,
        ``abfs://``... reached with Paimon's option keys in ``options``, the environment, or a ready
        ``filesystem``), of ``branch`` (None: main); a UsageError naming the table's branches for one it does
        not have, and one line for a scheme nobody reads."""
        if isinstance(location, str) and not location:  # (Path("") is the current folder: an unset $TABLE)
            raise UsageError("the table's path is empty: give a Paimon table's root folder")
        if options is None and filesystem is None:
            options, filesystem = current_reach()
        root, io = _root_and_io(location, options, filesystem)
        remote = isinstance(root, UriPath)
        roots = tuple(r if r == DECLARED else parse_location(r).uri if remote or on_store(r) else str(local_root(r))
                      for r in external_roots)
        if branch is None or branch == MAIN:
            return cls(root, io=io, external_roots=roots)
        if not branch.strip() or "/" in branch or "\\" in branch or branch in (".", ".."):
            raise UsageError(f"--branch {branch!r}: not a branch name (Paimon's branch names have no '/')")
        store = cls(root, branch, io, external_roots=roots)
        present = branch in store.branch_names() if remote else \
            store.io.info(str(store.meta)) is not None and os.path.isdir(store.meta)
        if not present:
            names = ", ".join([MAIN, *store.branch_names()])
            raise UsageError(f"--branch {branch}: {root} has no branch {branch} (its branches: {names})")
        inside(root, store.meta, "branch folder")
        return store

    @property
    def remote(self) -> bool:
        """Whether the table is on a store reached by URI (every request costs: nothing is listed or looked up
        that Paimon would not list or look up)."""
        return isinstance(self.root, UriPath)

    # -- branches -----------------------------------------------------------------------------------

    @property
    def meta(self) -> Path:
        """The folder holding the branch's ``schema/``, ``snapshot/`` and ``tag/`` (the root for main)."""
        return self.root if self.branch == MAIN else self.root / "branch" / f"{BRANCH_PREFIX}{self.branch}"

    def branch_names(self) -> list[str]:
        """The table's branches other than main, sorted."""
        return sorted(f.name[len(BRANCH_PREFIX):] for f in self.io.list(str(self.root / "branch"))
                      if f.name.startswith(BRANCH_PREFIX) and f.kind == "folder")

    def every_branch(self) -> list[TableStore]:
        """Main's store and every other branch's: their snapshots and tags name the shared manifests and files."""
        return [TableStore(self.root, io=self.io, external_roots=self.external_roots),
                *(TableStore(self.root, name, self.io, external_roots=self.external_roots)
                  for name in self.branch_names())]

    # -- the branch's metadata -----------------------------------------------------------------------

    @property
    def snapshot_dir(self) -> Path:
        return self.meta / "snapshot"

    def snapshot_file(self, snapshot_id: int) -> Path:
        return self.snapshot_dir / f"snapshot-{snapshot_id}"

    @property
    def latest_hint(self) -> Path:
        return self.snapshot_dir / "LATEST"

    @property
    def earliest_hint(self) -> Path:
        return self.snapshot_dir / "EARLIEST"

    def snapshot_ids(self) -> list[int]:
        """The ids of the branch's ``snapshot-N`` files, ascending (listing; the hints are not read)."""
        return self._numbered(self.snapshot_dir, "snapshot-")

    def snapshot_and_tag_files(self) -> list[Path]:
        """The branch's snapshot files, then its tag files (a tag is a snapshot under a name), each sorted."""
        return [*self._named(self.snapshot_dir, "snapshot-"), *self._named(self.meta / "tag", "tag-")]

    def schema_file(self, schema_id: int) -> Path:
        return self.meta / "schema" / f"schema-{schema_id}"

    def schema_ids(self) -> list[int]:
        """The ids of the branch's ``schema/schema-N`` files, ascending."""
        return self._numbered(self.meta / "schema", "schema-")

    def latest_schema_id(self) -> int:
        """The highest schema id; a UsageError when the folder is no table, a TableError for a table
        (it has snapshots) whose schema files are gone."""
        ids = self.schema_ids()
        if ids:
            return ids[-1]
        if self.snapshot_ids():
            raise TableError("schema/ (schema): no schema-N file")
        raise not_a_table(self.meta, "no schema/schema-N file")

    def _named(self, folder: Path, prefix: str) -> list[Path]:
        """The ``prefix``* entries of ``folder``, sorted (Paimon lists these folders too)."""
        return sorted(folder / f.name for f in self.io.list(str(folder)) if f.name.startswith(prefix))

    def _numbered(self, folder: Path, prefix: str) -> list[int]:
        """The N of every ``prefix``N file in ``folder``, ascending."""
        names = (p.name[len(prefix):] for p in self._named(folder, prefix))
        return sorted(int(n) for n in names if whole_number(n))

    def exists(self, path: Path) -> bool:
        return self.io.info(str(path)) is not None

    def is_file(self, path: Path) -> bool:
        """Whether a regular file (or a link, read only where it stays inside) is at ``path``."""
        found = self.io.info(str(path))
        return found is not None and (found.kind == "file" or found.kind == "link" and os.path.isfile(path))

    # -- the table's shared files ---------------------------------------------------------------------

    @property
    def manifest_dir(self) -> Path:
        folder = self._memo.get("manifest")  # (made once: a plan names every manifest from it)
        if folder is None:
            folder = self._memo["manifest"] = self.root / "manifest"
        return folder

    def manifest_file(self, name: str) -> Path:
        """A manifest, manifest list or index manifest named by the metadata (a plain name)."""
        return self.manifest_dir / name

    def index_file(self, name: str) -> Path:
        """A table-level index file (deletion vectors), under ``index/``."""
        return self.root / "index" / name

    def bucket_dir(self, partition: str | None, bucket: int) -> Path:
        """The folder of a bucket's data files: ``[partition path/]bucket-N`` under the root."""
        folder = self.root / partition if partition else self.root
        return folder / f"bucket-{bucket}"

    # -- data files, their sidecars and deletion vectors: named per bucket ------------------------------------

    def data_folder(self, entry: ManifestEntry, schema: Schema) -> str:
        """The bucket folder of a data file inside the table, relative to the root (a partition's path decoded
        once per store), checked to lie inside the root after links."""
        key = ("bucket", entry.partition, entry.bucket)
        folder = self._memo.get(key)
        if folder is None:
            partition = None
            if schema.partition_keys:
                from fileindex.java.binary_row import partition_path

                try:
                    partition = partition_path(entry.partition, schema)
                except UsageError:  # (a partition type not read here: not the metadata's fault)
                    raise
                except ValueError as err:
                    raise TableError(f"{entry.file_name}: its _PARTITION is not a row of the partition keys "
                                     f"{', '.join(schema.partition_keys)}: {err} (malformed metadata)") from None
            path = self.bucket_dir(partition, entry.bucket)
            self._inside(path, "the bucket folder")
            folder = self._memo[key] = str(path.relative_to(self.root))
        return folder

    def relative(self, entry: ManifestEntry, schema: Schema) -> str:
        """The data file as reported: relative to the table root, or its external path."""
        if entry.external_path:
            return entry.external_path
        return f"{self.data_folder(entry, schema)}/{entry.file_name}"

    def data_file(self, entry: ManifestEntry, schema: Schema) -> str:
        """Where the data file is: under the root, or its external path's local path (an UnsafeNameError for
        storage this reader cannot open)."""
        if entry.external_path:
            if on_store(entry.external_path):  # (a `..` or a query in it: refused here, like a `../` name)
                return parse_location(entry.external_path).uri
            return str(local_external_path(entry.external_path))
        return self.io.join(self._root_text(), self.data_folder(entry, schema), entry.file_name)

    def beside(self, entry: ManifestEntry, schema: Schema, name: str) -> str:
        """A file the manifest names beside the data file (its ``.index`` sidecar)."""
        if entry.external_path:
            return self.io.join(os.path.dirname(self.data_file(entry, schema)), name)
        return self.io.join(self._root_text(), self.data_folder(entry, schema), name)  # (one join per sidecar)

    def readable(self, entry: ManifestEntry) -> bool:
        """Whether the data file is on storage this store can open (an external path's scheme)."""
        return not entry.external_path or readable_external(entry.external_path)

    def allowed_roots(self, schema: Schema) -> tuple[str, ...]:
        """The folders data files under external paths may be read from: those the caller gave, and (given
        ``DECLARED``) those the table's ``data-file.external-paths`` names."""
        roots = [root for root in self.external_roots if root != DECLARED]
        if DECLARED in self.external_roots:
            declared = [r.strip() for r in schema.options.get(EXTERNAL_PATHS_OPTION, "").split(",") if r.strip()]
            roots += [parse_location(r).uri if on_store(r) else str(local_root(r)) for r in declared
                      if readable_external(r)]
        return tuple(roots)

    def external_refusal(self, entry: ManifestEntry, schema: Schema) -> str | None:
        """Why a data file under an external path may not be read (None: it is not external, or it may)."""
        if not entry.external_path or not self.readable(entry):
            return None
        roots = self.allowed_roots(schema)
        if not roots:
            return ("a data file under an external path, outside the table: allow its folder with "
                    "external_roots=[...] (--allow-external-paths [ROOT])")
        path = self.data_file(entry, schema)
        if not any(_store_contains(root, path) if on_store(path) else self.io.inside(root, path) for root in roots):
            return f"its external path lies outside the folders allowed ({', '.join(roots)})"
        return None

    def _within(self, entry: ManifestEntry, schema: Schema) -> tuple[str, ...] | None:
        """The folders a data file (or its sidecar) must lie in: None for the table root."""
        if not entry.external_path:
            return None
        refusal = self.external_refusal(entry, schema)
        if refusal is not None:
            raise UsageError(f"{entry.external_path}: {refusal}")
        return self.allowed_roots(schema)

    def open_data(self, entry: ManifestEntry, schema: Schema, *, whole: bool = False) -> InputFile:
        """The data file opened once for reading: a regular file inside the table (or an allowed external
        root), refused in one line otherwise; a missing one is the OSError the caller reports. ``whole``: on an
        object store, fetched whole by the GET that opens it (the size the manifest gives)."""
        path, within = self.data_file(entry, schema), self._within(entry, schema)
        # (on an object store: the size is the manifest's, no HEAD where the store has no suffix range)
        opener = getattr(self.io_of(path), "open_whole" if whole else "open_sized", None) if entry.file_size else None
        if opener is None:
            return self.open(path, "data file", within)
        try:
            return opener(path, entry.file_size, within=within or (self._root_text(),), what="data file")
        except OutsideError as err:
            raise _outside("data file", path, err, within) from None

    def open_beside(self, entry: ManifestEntry, schema: Schema, name: str) -> InputFile:
        """A sidecar of the data file opened as ``open_data`` opens the data file (on an object store by its
        first bytes, where a container's HEAD is and the first bodies: the others are fetched when asked for)."""
        path, within = self.beside(entry, schema, name), self._within(entry, schema)
        open_head = getattr(self.io_of(path), "open_head", None)
        if open_head is not None:
            from fileindex.container.file import HEAD_BYTES, first_bytes

            length = first_bytes(path)
            return open_head(path, within=within or (self._root_text(),), what="index file", length=length,
                             streamed=length > HEAD_BYTES)
        return self.open(path, "index file", within)

    def open(self, path: str, what: str, within: tuple[str, ...] | None = None) -> InputFile:
        """A file of the table opened once for reading, inside ``within`` (default: the table root); one
        leading outside is an UnsafeNameError in the words of docs/untrusted-tables.md."""
        try:
            return self.io_of(path).open_input(path, within=within or (self._root_text(),), what=what)
        except OutsideError as err:
            raise _outside(what, path, err, within) from None

    def io_of(self, path: str) -> FileIO:
        """The file access that reaches ``path``: the table's, or for a data file under an external path in another
        bucket or store, one made for that bucket (with the table's options or the caller's ``reaching``), kept."""
        if not on_store(path):
            return self.io
        location = parse_location(path)
        bucket = (location.store, location.bucket, location.account, location.host)
        own = getattr(self.io, "root", None)
        if own is not None and (own.store, own.bucket, own.account, own.host) == bucket:
            return self.io
        found = self._memo.get(("io", bucket))
        if found is None:
            found = self._memo[("io", bucket)] = _bucket_io(replace(location, key=""), self.io)
        return found

    def bucket_names(self, entry: ManifestEntry, schema: Schema) -> tuple[frozenset[str], frozenset[str]]:
        """(the files, the symlinks) in the data file's bucket folder, listed once per store."""
        folder = self.data_folder(entry, schema)
        key = ("files", folder)
        listing = self._memo.get(key)
        if listing is None:
            found = self.io.list(self.io.join(self._root_text(), folder))
            listing = self._memo[key] = (frozenset(f.name for f in found if f.kind == "file"),
                                         frozenset(f.name for f in found if f.kind == "link"))
        return listing

    def data_file_exists(self, entry: ManifestEntry, schema: Schema) -> bool:
        """Whether the data file is there: its bucket folder is listed once per store (a stat per file was a
        planning cost), an external path looked up. A symlink out of the table is refused. On a remote store
        nothing is listed or looked up (Paimon does neither): a missing file is found when it is opened."""
        if self.remote or (entry.external_path and on_store(entry.external_path)):
            return self.readable(entry)
        if entry.external_path:
            if not self.readable(entry):
                return False
            found = self.io.info(self.data_file(entry, schema))
            return found is not None and found.kind in ("file", "link")
        files, links = self.bucket_names(entry, schema)
        if entry.file_name in links:
            self._inside(self.data_file(entry, schema), "data file")
            return os.path.isfile(self.data_file(entry, schema))
        return entry.file_name in files

    def deletion_vector_file(self, name: str, bucket: int, *, in_data_dir: bool, external: str | None) -> Path:
        """A deletion-vector index file: under an external path, the bucket folder or ``index/``."""
        if external:
            return local_external_path(external)
        path = self.bucket_dir(None, bucket) / name if in_data_dir else self.index_file(name)
        return self._inside(path, "deletion-vector index file")

    def _root_text(self) -> str:
        text = self._memo.get("root")
        if text is None:
            text = self._memo["root"] = os.fspath(self.root)
        return text

    def _inside(self, path: str | Path, what: str) -> Any:
        """``inside(self.root, path, what)``, the root resolved once per store."""
        if self.remote:
            return inside(self.root, path, what)
        if self._plainly_inside(os.fspath(path)):
            return Path(path)
        return inside(self.root, path, what, real_root=self.real_root)

    @property
    def real_root(self) -> str:
        """The local root with its links resolved, once per store."""
        real_root = self._memo.get("real root")
        if real_root is None:
            real_root = self._memo["real root"] = os.path.realpath(self.root)
        return real_root

    def _plainly_inside(self, path: str) -> bool:
        """Whether ``path`` is named under the root through no link: each part below the root is a plain name
        that is no symlink (an ``lstat`` per part, a folder's once per store); False where it cannot be told so
        (the caller resolves it then). A part swapped for a link after this check is refused when the file is
        opened (``io.local`` checks where the opened file really is)."""
        root = self._root_text()
        if not path.startswith(root.rstrip(os.sep) + os.sep):
            return False
        checked = self._memo.setdefault("plain folders", set())
        at = root.rstrip(os.sep)
        for part in path[len(at) + 1:].split(os.sep):
            if part in ("", ".", ".."):
                return False
            at = f"{at}{os.sep}{part}"
            if at in checked:
                continue
            try:
                if stat.S_ISLNK(os.lstat(at).st_mode):
                    return False
            except OSError:
                return False  # (missing: the caller's resolution says where it would lead)
            checked.add(at)
        return True

    # -- metadata files ---------------------------------------------------------------------------------

    def shown(self, path: str | Path) -> str:
        """A file of the table as messages name it: relative to the branch's folder, else to the root
        (memoized: a plan names each metadata file in several messages it may raise)."""
        key = ("shown", path)
        text = self._memo.get(key)
        if text is None:
            text = self._memo[key] = self._relative_name(path)
        return text

    def _relative_name(self, path: str | Path) -> str:
        for folder in (self.meta, self.root):
            try:
                if isinstance(folder, UriPath):
                    return UriPath(str(path)).relative_to(folder)
                return _plainly_below(os.fspath(path), os.fspath(folder)) or str(Path(path).relative_to(folder))
            except ValueError:
                continue
        return str(path)

    def read_bytes(self, path: Path, what: str, limit: int, *, external: bool = False) -> bytes:
        """A whole metadata file: a regular file inside the table (``external``: inside a folder the caller
        allowed) of at most ``limit`` bytes."""
        within = tuple(r for r in self.external_roots if r != DECLARED) if external else (self._root_text(),)
        if not external:  # (checked before opening too: nothing outside the table is even opened)
            self._inside(path, what)
        elif not within:
            raise UsageError(f"{path}: a file under an external path, outside the table: allow its folder with "
                             "external_roots=[...] (--allow-external-paths ROOT)")
        prefetched = self._memo.pop(("prefetched", str(path)), None) if self.remote else None
        try:
            data = prefetched if prefetched is not None and len(prefetched) <= limit else \
                self.io.read_bytes(str(path), limit=limit, within=within, what=what)
        except OutsideError as err:
            raise _outside(what, str(path), err, within if external else None) from None
        if self.remote:
            self._memo[("bytes", str(path))] = len(data)
        return data

    def prefetch(self, paths: list[Path], limit: int) -> None:
        """On a remote store: fetch these metadata files together (a bounded pool of requests), each held for the
        one ``read_bytes`` of it that follows (a file that fails is left to that read, which reports it)."""
        if not self.remote or len(paths) < 2:
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(PREFETCH_REQUESTS) as pool:
            list(pool.map(lambda path: self.fetch_ahead(path, limit),
                          [p for p in paths if ("prefetched", str(p)) not in self._memo]))

    def fetch_ahead(self, path: Path, limit: int) -> None:
        """On a remote store: fetch a metadata file now (on another thread, beside a request it does not depend
        on), held for the one ``read_bytes`` of it that follows (a file that fails is left to that read, which
        reports it in the words of its caller)."""
        if not self.remote:
            return
        try:
            data = self.io.read_bytes(str(path), limit=limit, within=(self._root_text(),), what="metadata file")
        except Exception:  # (the read that follows raises it)
            return
        self._memo[("prefetched", str(path))] = data

    def bytes_read(self, path: Path | UriPath) -> int:
        """How many bytes ``read_bytes`` took from ``path`` on a remote store (what a cache weighs it by)."""
        return self._memo.get(("bytes", str(path)), 1 << 16)

        # -- writing ----------------------------------------------------------------------------------------

    def link(self, path: Path, data: bytes) -> bool:
        """Create ``path`` holding ``data`` only if it is absent, atomically (False: another writer has it):
        Paimon's commit point for snapshots and schemas, and how new manifests take fresh names."""
        return self.io.create(str(path), data)

    def write_latest_hint(self, snapshot_id: int) -> None:
        """Point the ``LATEST`` hint at ``snapshot_id`` (replaced atomically; readers check it anyway)."""
        self.io.replace(str(self.latest_hint), str(snapshot_id).encode())

    def delete(self, path: str | Path) -> None:
        """Remove a file this project wrote into the table (a manifest or sidecar of a commit that failed)."""
        self.io.delete(str(path))


def _root_and_io(location: str | os.PathLike, options: Mapping[str, str] | None,
                 filesystem: Any) -> tuple[Path, FileIO]:
    """A table root and the file access that reaches it: the local one for a path or ``file://`` URI (whatever
    the options), else the store's (:func:`fileindex.io.reach.store_file_io`)."""
    if isinstance(location, UriPath):
        location = str(location)
    text = os.fspath(location)
    if filesystem is None and "://" not in text:  # (a plain path: nothing parsed, as fast as before)
        return Path(text), LOCAL
    parsed = parse_location(text)
    if parsed.store == "local" and filesystem is None:
        return Path(parsed.key), LOCAL
    io = store_file_io(text, options, filesystem)
    assert io is not None  # (not a local path)
    return cast(Path, UriPath(parsed)), cast(FileIO, io)


def _store_contains(root: str, path: str) -> bool:
    """Whether ``path``, a store's URI, lies in the folder ``root`` (a store's URI; a local folder holds none)."""
    return on_store(root) and parse_location(root).contains(parse_location(path))


def _bucket_io(bucket: Any, table_io: FileIO) -> FileIO:
    """The file access of another bucket than the table's: with the table's store options where the table is on
    the same kind of store, else as the caller's ``reaching`` says."""
    from fileindex.io.object_store import ObjectStoreFileIO

    if isinstance(table_io, ObjectStoreFileIO) and table_io.root.store == bucket.store:
        return cast(FileIO, ObjectStoreFileIO(bucket, table_io.options))
    options, filesystem = current_reach()
    found = store_file_io(bucket.uri, options, filesystem)
    assert found is not None  # (an object store's URI)
    return cast(FileIO, found)


def _outside(what: str, path: str, err: OutsideError, within: tuple[str, ...] | None) -> UnsafeNameError:
    where = "the table" if within is None else f"the allowed folders ({', '.join(within)})"
    return UnsafeNameError(f"{what} {path} leads outside {where} (to {err.real or 'a file that moved'}, through a "
                           "symlink): refused; nothing was read or written there")


def local_root(location: str) -> Path:
    """A folder given as a local path or a ``file:`` URI."""
    parts = urlsplit(location.strip())
    if parts.scheme.lower() == "file":
        return Path(unquote(parts.path))
    if parts.scheme and len(parts.scheme) > 1:
        raise UsageError(f"{location}: {parts.scheme}:// storage is not readable here: give a local folder")
    return Path(location.strip())


def _plainly_below(path: str, folder: str) -> str | None:
    """``str(Path(path).relative_to(folder))`` where ``path`` names a file below ``folder`` with nothing for pathlib
    to normalize (no empty or ``.`` part), told from the strings (a plan names every metadata file it reads: building
    the two paths was 0.6 k bytecodes a file, #54); else None."""
    prefix = folder.rstrip(os.sep) + os.sep
    if not path.startswith(prefix) or len(path) == len(prefix) or folder.startswith("//"):  # ("//": a root of its own)
        return None
    rest = path[len(prefix):]
    return None if any(part in ("", ".") for part in rest.split(os.sep)) else rest
