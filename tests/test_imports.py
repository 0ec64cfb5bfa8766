"""Each entry point imports what it uses when it uses it (issue #54): run in a new process, the modules it
leaves in ``sys.modules`` are held to its list, what it must have imported (so that the test shows the
work was done) and what it must not have (index types it did not meet, checkers and exhaustive verifiers,
engines, Spark, pyarrow.compute where no row is filtered). ``tools/bench_import.py`` times the same cold
starts beside ``import pyarrow.parquet``."""
import decimal
import fnmatch
import json
import subprocess
import sys

import pytest
from conftest import ROOT

import fileindex

TABLE = "tests/tables/parquet/append_with_bitmap.db/append_with_bitmap"  # bitmap on f0, no other index
TABLE_BSI = "tests/tables/parquet/append_with_bsi.db/append_with_bsi"  # bsi on f1, f4
TABLE_BLOOM = "tests/tables/parquet/append_with_bloomfilter.db/append_with_bloomfilter"  # bloom filters on f0-f4
BITMAP_V2 = "fileindex/samples/str_mixed__bitmap_v2.index"  # one bitmap body
PARQUET_FILE = f"{TABLE}/bucket-0/data-5816f838-a213-4d34-89c3-2cab0fa8c0cb-0.parquet"

# never imported by an entry point that does not run them
SPARK_AND_ENGINES = ["pyspark*", "py4j*", "polars*", "duckdb*", "construct*", "fileindex.spark*", "fileindex.specs*"]
DEEP_CHECKS = ["fileindex.indexes.*.check", "fileindex.indexes.*.exhaustive", "fileindex.indexes.deep_check",
               "fileindex.pipeline.exhaustive", "fileindex.pipeline.verify"]
OTHER_TYPES = ["fileindex.indexes.bloom_filter*", "fileindex.indexes.bsi*", "fileindex.indexes.range_bitmap*"]
DEBUG_READERS = [f"fileindex.generated.{spec}" for spec in ("file_index_format", "bitmap", "bloom_filter", "bsi",
                                                            "range_bitmap", "roaring_bitmap")]
NOT_READING = ["pyarrow.compute", "pyarrow.dataset", "pyarrow.acero", "pandas*"]
TABLES = ["fileindex.scan.table", "fileindex.table.metadata", "fileindex.table.store"]  # (the CLI names table.errors)
OTHER_COMMANDS = ["fileindex.cli.check", "fileindex.cli.build", "fileindex.cli.kit", "fileindex.cli.spark*"]
NO_INDEX_BODIES = ["fileindex.indexes.bitmap*", *OTHER_TYPES, "fileindex.generated.fast.bitmap*"]
# what a local table's read never needs: pyarrow.parquet imports pyarrow.fs with the object stores' filesystems and
# ssl; argparse imports shutil to size a help text (fileindex.cli.app sizes it without)
NOT_READING_LOCALLY = ["pyarrow.parquet*", "pyarrow.fs", "pyarrow._fs", "pyarrow._s3fs", "pyarrow._azurefs",
                       "pyarrow._gcsfs", "ssl", "shutil"]
# what a cold read no longer imports (#54): dataclasses (its records are fileindex.frozen's; dataclasses compiles six
# methods a class and imports inspect); hashlib (OpenSSL) is imported by fastavro once a read decodes a manifest
COLD_CUTS = ["dataclasses"]
# what a command line's read imports no more (#54, cold4), each imported by a module that uses it in a function only
# (fileindex.lazy.import_deferring): inspect (with ast, dis, tokenize: 34 M instructions; pyarrow._compute's, for
# user-defined functions, and the Kaitai debug tree's, for failures), socket (with selectors: 32 M; pyarrow.util's,
# for a test helper), ipaddress (6 M; urllib.parse's, for bracketed hosts). A read computing with numpy imports inspect
READ_CUTS = ["inspect", "ast", "dis", "tokenize", "socket", "selectors", "ipaddress"]
# what a read decoding manifests imports of fastavro no more (#54, cold5): its package's __init__ (the writer, the JSON
# reader and writer, validation: about 20 M instructions) and the bzip2 and xz codecs its reader imports at its top
# (fileindex.table.metadata.avro_reader; fastavro gets blocks decompressed already)
AVRO_CUTS = ["fastavro.read", "fastavro.write", "fastavro._write*", "fastavro.json_*", "fastavro.validation",
             "fastavro._read_py", "bz2", "lzma"]
# what a program's `from fileindex import PaimonTable` imports no more (#54, cold6), each imported at the top of a
# module that uses it in functions a read never calls (fileindex.DEFERRED_BY_THE_API): socket (pyarrow.util's),
# ctypes (numpy's core, for an array's .ctypes), ipaddress (urllib.parse's)
API_CUTS = ["socket", "selectors", "ctypes", "_ctypes", "ipaddress"]
# what a command line's read imports no more (#54, cold7): pickle (pyarrow.lib's, for a buffer's PickleBuffer and
# extension types' serialization; a stand-in there), OpenSSL's hashes (_hashlib: fastavro's schema module imports
# hashlib, which falls back on the interpreter's own digests while the command runs)
CLI_CUTS = ["pickle", "_pickle", "_compat_pickle", "_hashlib"]
# what a read imports no more (#54, cold16), each imported where it is used: the index options' parsers (with their
# regular expressions: a build's), Java's hash of a bucket key (a fixed-bucket table's, where a predicate pins its key)
READ_UNUSED = ["fileindex.indexes.options", "fileindex.java.hash", "fileindex.java.string_buffers"]
# what a read imports no more (#54, cold17): platform (its regular expressions: 8 M instructions; pyarrow's, for
# show_info, and uuid's, for the system's name, answered by its stand-in: fileindex.lazy.ANSWERED), backports.zstd's
# package (its enums and file classes: 3 M; the manifests' blocks are decompressed by its C module alone),
# unicodedata (a shared library: the predicate parser's, for an error's caret)
COLD17_CUTS = ["platform", "backports.zstd._zstdfile", "backports.zstd._streams", "unicodedata"]

ENTRY_POINTS = {
    "import fileindex": (
        "import fileindex",
        ["fileindex"],
        ["fileindex.*", "pyarrow*", "numpy*", "pyroaring*", "kaitaistruct*"],
    ),
    "from fileindex import PaimonTable": (
        "from fileindex import PaimonTable",
        [fileindex._API["PaimonTable"], "pyarrow"],  # the module that defines it, wherever that is
        [*SPARK_AND_ENGINES, *DEEP_CHECKS, *NO_INDEX_BODIES, *DEBUG_READERS, *NOT_READING, "kaitaistruct*",
         "thrift*", "fastavro*", "logging", "subprocess", "concurrent.futures*", "fileindex.kit*", "fileindex.cli*",
         "fileindex.reference*", "fileindex.arrow.parquet_pages", "fileindex.table.orc_helper",
         "fileindex.container.writer", "fileindex.writing.outputs", "fileindex.indexes.type_fit", *COLD_CUTS,
         "hashlib", "_hashlib", *API_CUTS, *READ_UNUSED, *COLD17_CUTS],
    ),
    "fileindex --help": (
        "from fileindex.cli.app import build_parser; build_parser().format_help()",
        ["fileindex.cli.read", "fileindex.cli.check"],
        [*SPARK_AND_ENGINES, "pyarrow*", "numpy*", "pyroaring*", "kaitaistruct*", "fileindex.indexes*",
         "fileindex.pipeline*", "fileindex.reference*", "subprocess", "logging", "uuid"],
    ),
    "fileindex read --where --json": (  # (the rows filtered by Arrow's kernels, called without pyarrow.compute)
        f"sys.argv[1:] = ['read', '{TABLE}', '--where', \"f0 = 'Alice'\", '--json']; main()",  # (as a process runs it)
        ["fileindex.indexes.bitmap.reader", "fileindex.scan.truth", "fastavro._read", "pyarrow._compute"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, *DEEP_CHECKS, *OTHER_TYPES, *DEBUG_READERS, *OTHER_COMMANDS,
         "fileindex.indexes.*.writer", "fileindex.reference*", "pyarrow.dataset", "pyarrow.acero", "pyarrow.compute",
         "numpy.ma", *COLD_CUTS, *READ_CUTS, *AVRO_CUTS, *CLI_CUTS, *COLD17_CUTS],
    ),
    "fileindex read --where, a bloom filter's table": (  # (its reader probes bits: no option parsed, no key hashed)
        f"sys.argv[1:] = ['read', '{TABLE_BLOOM}', '--where', \"f0 = 'Alice'\", '--json']; main()",
        ["fileindex.indexes.bloom_filter.reader", "fileindex.indexes.bloom_filter.keys", "fastavro._read"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, *DEEP_CHECKS, *DEBUG_READERS, *OTHER_COMMANDS, *READ_UNUSED,
         "fileindex.indexes.bitmap*", "fileindex.indexes.bsi*", "fileindex.indexes.range_bitmap*",
         "fileindex.indexes.*.writer", "pyarrow.compute", *COLD_CUTS, *READ_CUTS, *AVRO_CUTS, *CLI_CUTS,
         *COLD17_CUTS],
    ),
    "fileindex read --where, filtered by Arrow": (  # (no numpy: pyarrow imported without it, see cli/unimported)
        f"sys.argv[1:] = ['read', '{TABLE}', '--where', 'f1 >= 20', '--json']; main()",
        ["fileindex.scan.truth", "fileindex.arrow.compute", "pyarrow._compute"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, "numpy*", "pandas*", "pyarrow.compute", *DEEP_CHECKS, *OTHER_TYPES,
         *OTHER_COMMANDS, *COLD_CUTS, *READ_CUTS, *AVRO_CUTS, *CLI_CUTS],
    ),
    "fileindex read --where, no index": (  # (f1, f3 unindexed: their columns probed, matched by numpy, filtered)
        f"sys.argv[1:] = ['read', '{TABLE}', '--where', 'f1 = 10 AND f3 > 12.0', '--json']; main()",
        ["fileindex.scan.truth", "fileindex.arrow.compute", "pyarrow._compute"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, *DEEP_CHECKS, *OTHER_TYPES, *OTHER_COMMANDS,
         "fileindex.indexes.*.writer", "pyarrow.compute", "numpy.ma", "pandas*", *COLD_CUTS],
    ),
    "fileindex read --order-by --limit": (  # (a top-N computes with numpy: not its masked arrays, np.unique's)
        f"sys.argv[1:] = ['read', '{TABLE_BSI}', '--order-by', 'f1 DESC', '--limit', '2', '--json']; main()",
        ["fileindex.scan.answers", "numpy"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, "numpy.ma", "pandas*", *AVRO_CUTS],
    ),
    "the primary-key merge, imported": (  # (numpy on its first merge: a command line imports pyarrow without it)
        "from fileindex.cli.unimported import import_pyarrow_without_numpy; import_pyarrow_without_numpy(); "
        "import fileindex.scan.primary_keys, fileindex.merge.reader",
        ["fileindex.merge.reader", "fileindex.merge.columns", "fileindex.merge.aggregators", "pyarrow._compute"],
        ["numpy*", "pandas*", *SPARK_AND_ENGINES],
    ),
    "fileindex --version": (  # (printed before any subcommand's parser is built: none of their modules)
        "sys.argv[1:] = ['--version']; main()",
        ["fileindex.cli.app"],
        ["fileindex.cli.read", "fileindex.cli.table", "fileindex.cli.build", "fileindex.scan*", *TABLES,
         "pyarrow*", "numpy*"],
    ),
    "a scan's reader threads": (  # (fileindex.parallel's own pool: concurrent.futures imports logging, traceback)
        "from fileindex.scan.table_scan import _in_order\n"
        "assert list(_in_order(lambda item: item * 2, list(range(6)), 2)) == [0, 2, 4, 6, 8, 10]",
        ["fileindex.parallel"],
        ["concurrent.futures*", "logging", "traceback"],
    ),
    "a Parquet footer by the C decoder": (  # (TCompactProtocol's module imports uuid, and that platform)
        f"from fileindex.arrow.parquet_pages import PagedFooter; PagedFooter.read('{PARQUET_FILE}')",
        ["thrift.protocol.fastbinary", "fileindex.generated.parquet_thrift.ttypes"],
        ["thrift.protocol.TCompactProtocol"],  # (uuid and platform come with pyarrow anyway)
    ),
    "fileindex table --where": (
        f"main(['table', '{TABLE}', '--where', \"f0 = 'Alice'\"])",
        ["fileindex.indexes.bitmap.reader", "fastavro._read"],
        [*SPARK_AND_ENGINES, *NOT_READING_LOCALLY, *DEEP_CHECKS, *OTHER_TYPES, *DEBUG_READERS, *NOT_READING,
         "fileindex.indexes.*.writer", "fileindex.reference*", "fileindex.scan.table_scan", *AVRO_CUTS],
    ),
    "fileindex query": (
        f"main(['query', '{BITMAP_V2}', '--schema', 'c STRING', '--where', \"c = 'a'\"])",
        ["fileindex.indexes.bitmap.reader"],
        [*SPARK_AND_ENGINES, *DEEP_CHECKS, *OTHER_TYPES, *DEBUG_READERS, *NOT_READING, "fileindex.indexes.*.writer",
         *TABLES, "fileindex.pipeline*", "fastavro*"],
    ),
    "fileindex inspect": (
        f"main(['inspect', '{BITMAP_V2}'])",
        ["fileindex.container.head"],
        [*SPARK_AND_ENGINES, *DEEP_CHECKS, *OTHER_TYPES, *DEBUG_READERS, *NOT_READING, "fileindex.indexes.*.reader",
         "fileindex.indexes.*.writer", *TABLES, "fileindex.pipeline*", "kaitaistruct*"],
    ),
    "fileindex check": (
        f"main(['check', '{BITMAP_V2}', '--schema', 'c STRING'])",
        ["fileindex.indexes.bitmap.check", "fileindex.indexes.deep_check"],
        [*SPARK_AND_ENGINES, *OTHER_TYPES, "fileindex.indexes.*.exhaustive", *TABLES,
         "fileindex.pipeline*", "fastavro*"],
    ),
}

RUN = """
import atexit, json, sys
listing = sys.argv[1]


def listed():  # (at exit: a command line's own read ends without returning, its exit handlers run)
    with open(listing, "w") as out:
        json.dump(sorted(sys.modules), out)


atexit.register(listed)
from fileindex.cli import main
{code}
"""


def imported_by(code: str, tmp_path) -> list[str]:
    listing = tmp_path / "modules.json"
    # `from fileindex.cli import main` is part of every command; the two imports are held without it
    program = RUN.format(code=code) if "main(" in code else RUN.replace(
        "from fileindex.cli import main\n", "").format(code=code)
    run = subprocess.run([sys.executable, "-c", program, str(listing)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(listing.read_text())


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_an_entry_point_imports_what_it_uses(entry, tmp_path):
    code, required, forbidden = ENTRY_POINTS[entry]
    modules = imported_by(code, tmp_path)
    assert [pattern for pattern in required if not fnmatch.filter(modules, pattern)] == [], "not imported"
    assert [(pattern, fnmatch.filter(modules, pattern)) for pattern in forbidden
            if fnmatch.filter(modules, pattern)] == [], f"{entry} imports what it does not use"


def test_an_index_type_is_imported_by_its_first_lookup(tmp_path):
    """The registry knows the names; reading a type's entry imports its package, and the package imports
    its reader (or checker, or writer) only when it is called."""
    code = ("from fileindex.indexes.registry import INDEX_TYPES\n"
            "assert list(INDEX_TYPES) == ['bloom-filter', 'bitmap', 'bsi', 'range-bitmap'] and 'bsi' in INDEX_TYPES\n"
            "assert INDEX_TYPES['bsi'].name == 'bsi'")
    modules = imported_by(code, tmp_path)
    assert "fileindex.indexes.bsi" in modules
    assert not fnmatch.filter(modules, "fileindex.indexes.bsi.*")
    assert not [m for m in modules if m.split(".")[:3] in (["fileindex", "indexes", "bitmap"],
                                                            ["fileindex", "indexes", "bloom_filter"],
                                                            ["fileindex", "indexes", "range_bitmap"])]


def test_a_deferred_module_is_imported_by_its_first_use(tmp_path):
    """pyarrow._compute holds inspect as a stand-in, out of sys.modules once it is imported: its first use there
    imports the real module, and an import elsewhere, later, gets the real one."""
    code = ("from fileindex.cli.unimported import import_pyarrow_without_numpy; import_pyarrow_without_numpy()\n"
            "import sys, pyarrow._compute as kernels\n"
            "from fileindex.lazy import DeferredModule\n"
            "assert 'inspect' not in sys.modules and isinstance(kernels.inspect, DeferredModule)\n"
            "assert kernels.inspect.getfullargspec(lambda a, b=1: a).args == ['a', 'b']\n"
            "import inspect\n"
            "assert kernels.inspect.signature is inspect.signature and not isinstance(inspect, DeferredModule)")
    modules = imported_by(code, tmp_path)
    assert "inspect" in modules


def test_a_package_is_initialized_by_its_first_use(tmp_path):
    """fastavro's reader module is imported without its package's __init__ (its writer, JSON and validation); the
    package's first use runs it in the same module object, so `import fastavro` anywhere after gets the whole API
    and the reader module imported before; a bzip2 container (bz2 a stand-in in the reader) still decodes."""
    code = ("import io, sys\n"
            "from fileindex.table.metadata import avro_reader\n"
            "reader = avro_reader()\n"
            "assert 'fastavro.write' not in sys.modules and 'bz2' not in sys.modules\n"
            "import fastavro\n"
            "assert fastavro._read.reader is reader and fastavro.read.reader is reader\n"
            "fields = [{'name': 'a', 'type': 'int'}]\n"
            "schema = fastavro.parse_schema({'type': 'record', 'name': 'r', 'fields': fields})\n"
            "out = io.BytesIO()\n"
            "fastavro.writer(out, schema, [{'a': 1}, {'a': 2}], codec='bzip2')\n"
            "assert [row['a'] for row in reader(io.BytesIO(out.getvalue()))] == [1, 2]")
    modules = imported_by(code, tmp_path)
    assert {"fastavro", "fastavro.write", "fastavro._read", "bz2"} <= set(modules)


def test_a_package_imported_before_is_used_as_it_is(tmp_path):
    code = ("import sys, fastavro\n"
            "from fileindex.table.metadata import avro_reader\n"
            "assert avro_reader() is fastavro.reader and sys.modules['fastavro'] is fastavro")
    imported_by(code, tmp_path)


def test_a_program_gets_what_the_api_deferred_by_its_first_use(tmp_path):
    """numpy's core and pyarrow's util hold ctypes and socket as stand-ins after `from fileindex import PaimonTable`:
    an array's .ctypes, a later `import ctypes` or `import socket` and a bracketed URL host work as without them."""
    code = ("import sys\n"
            "from fileindex import PaimonTable\n"
            "assert not {'ctypes', 'socket', 'ipaddress'} & set(sys.modules)\n"
            "import numpy as np\n"
            "values = np.arange(3.0)\n"
            "assert values.ctypes.data == values.__array_interface__['data'][0]\n"
            "import ctypes, socket, urllib.parse\n"
            "assert values.ctypes.data_as(ctypes.POINTER(ctypes.c_double))[2] == 2.0\n"
            "assert socket.AF_INET and urllib.parse.urlsplit('http://[::1]:80/x').hostname == '::1'\n"
            "from fileindex.lazy import DeferredModule\n"
            "assert not isinstance(sys.modules['ctypes'], DeferredModule)")
    modules = imported_by(code, tmp_path)
    assert {"ctypes", "socket", "ipaddress"} <= set(modules)


def test_a_stand_in_answers_what_an_import_asks_as_the_module_would(tmp_path):
    """uuid, which pyarrow.lib imports, asks platform for the system's name at its import: the stand-in answers it
    as platform.system() does, without importing platform; afterwards the stand-in gives the real module's
    attributes (pyarrow's show_info asks platform for the machine too), and the answer is the real one."""
    code = ("import sys\n"
            "from fileindex import PaimonTable\n"
            "import uuid, pyarrow\n"
            "assert 'platform' not in sys.modules and 'uuid' in sys.modules\n"
            "from fileindex.lazy import DeferredModule\n"
            "assert isinstance(pyarrow._platform, DeferredModule) and 'system' not in vars(pyarrow._platform)\n"
            "answered = uuid._platform_system\n"
            "import os, platform\n"
            "assert answered == platform.system() == os.uname().sysname and uuid._LINUX == (answered == 'Linux')\n"
            "assert pyarrow._platform.machine() == platform.machine() and pyarrow._platform.system is platform.system")
    modules = imported_by(code, tmp_path)
    assert "platform" in modules


def test_zstd_decompresses_manifests_without_its_package_until_it_is_used(tmp_path):
    """The manifests' zstd blocks are decompressed by backports.zstd's C module, its package's __init__ not run; the
    package's first use runs it, and its decompressor is the one the manifests used."""
    code = (f"import sys\n"
            f"from fileindex import PaimonTable\n"
            f"assert PaimonTable('{TABLE}').scan().to_arrow().num_rows > 0\n"
            f"if sys.version_info < (3, 14):\n"
            f"    assert 'backports.zstd._zstdfile' not in sys.modules\n"
            f"    from backports import zstd\n"
            f"    from fileindex.table import avro_blocks\n"
            f"    assert zstd.ZstdDecompressor is avro_blocks.ZstdDecompressor and zstd.CompressionParameter\n"
            f"    assert zstd.decompress(zstd.compress(b'abc' * 100)) == b'abc' * 100")
    modules = imported_by(code, tmp_path)
    assert sys.version_info >= (3, 14) or "backports.zstd._zstdfile" in modules


DICTIONARY_READ = """
import decimal, sys
{before}
import pyarrow as pa
from fileindex.arrow.data_files import DataFileReader
got = DataFileReader({path!r}).read_rows({rows}, ["id", "amount"])
assert got.column("id").to_pylist() == [5, 201] and got.column("amount").to_pylist() == [decimal.Decimal("0.05"),
                                                                                         decimal.Decimal("2.01")]
"""


@pytest.mark.parametrize("numpy_imported", [False, True])
def test_dictionary_encoded_pages_are_read_without_numpy_or_what_a_read_does_not_use(tmp_path, numpy_imported):
    """A few rows of dictionary-encoded numbers (a 300-entry dictionary; a DECIMAL stored as an integer) read from
    their pages: in a command line's process (pyarrow without numpy) by pyarrow from the pages copied for it,
    without importing numpy (0.3 G instructions, more than the whole read); where numpy is imported already, decoded
    here (dictionary_pages), without numpy's masked arrays (pa.array of a numpy array) or pyarrow.compute
    (Array.cast)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = [n % 300 for n in range(12_000)]
    table = pa.table({"id": pa.array(values, pa.int64()),
                      "amount": pa.array([decimal.Decimal(n).scaleb(-2) for n in values], pa.decimal128(12, 2))})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, write_page_index=True, data_page_size=1, write_batch_size=500,
                   store_decimal_as_integer=True)
    # (the rows as a numpy array where numpy is imported: pa.array of a list would import pandas where installed)
    # (pandas hidden: where installed, pyarrow imports it, and it numpy.ma, on a first pa.scalar or pa.array)
    before, rows = ("from fileindex.cli.unimported import _Unavailable; sys.meta_path.insert(0, _Unavailable('pandas'))"
                    "\nimport numpy", "numpy.array([5, 11_001])") if numpy_imported else (
        "from fileindex.cli.unimported import import_pyarrow_without_numpy; import_pyarrow_without_numpy()",
        "pa.array([5, 11_001], pa.int64())")
    modules = imported_by(DICTIONARY_READ.format(before=before, rows=rows, path=str(path)), tmp_path)
    if numpy_imported:
        assert "fileindex.arrow.dictionary_pages" in modules
        assert not {"numpy.ma", "numpy.ma.core", "pyarrow.compute"} & set(modules)
    else:
        assert not fnmatch.filter(modules, "numpy*") and "fileindex.arrow.dictionary_pages" not in modules


PANDAS_LOOKED_FOR = """
import sys
from fileindex import PaimonTable


class Recording:  # (records where pandas is looked for; imports nothing itself)
    asked = []

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            self.asked.append(name)


sys.meta_path.insert(0, Recording())
table = PaimonTable({table!r})
for where in {wheres!r}:
    table.scan(where).to_arrow()
assert Recording.asked == [], Recording.asked[:3]
"""


def test_a_programs_read_does_not_have_pyarrow_look_for_pandas(tmp_path):
    """pyarrow's pa.scalar and pa.array (and Schema.empty_table, which calls it) ask its pandas shim whether a value
    is a pandas array wherever numpy is imported, and the shim imports pandas, where it is installed, to find out
    (0.4 s of CPU, #54, cold7): a program's read builds its literals and empty tables from their bytes
    (fileindex.arrow.scalars). Held by where pandas is looked for, installed or not."""
    wheres = ["f0 = 'Alice'", "f0 = 'Nobody'", "f1 IN (10, 20)", "f3 > 12.0 AND f2 = 1", "f0 IS NULL", None]
    imported_by(PANDAS_LOOKED_FOR.format(table=TABLE, wheres=wheres), tmp_path)


def test_a_command_lines_read_defers_pickle_to_its_first_use(tmp_path):
    """pyarrow.lib holds pickle as a stand-in in a command line's process: a buffer's pickling imports it there."""
    code = ("from fileindex.cli.unimported import import_pyarrow_without_numpy; import_pyarrow_without_numpy()\n"
            "import sys, pyarrow as pa\n"
            "assert 'pickle' not in sys.modules\n"
            "import pickle\n"
            "assert pickle.loads(pickle.dumps(pa.py_buffer(b'abc'), protocol=5)).to_pybytes() == b'abc'\n"
            "assert pa.lib.pickle.PickleBuffer is pickle.PickleBuffer")
    imported_by(code, tmp_path)


def test_a_command_line_builds_the_parser_of_its_command_alone(tmp_path):
    """A command line naming its command builds the top-level parser and that command's only (#54, cold9): each other
    subcommand's parser was made for nothing, and each looked up its help titles' translations (gettext: four failed
    ``stat`` calls a title where none is installed, 180 of a cold read's)."""
    built = tmp_path / "parsers.json"
    code = ("import argparse\n"
            "parsers = []\n"
            "making = argparse.ArgumentParser.__init__\n"
            "def made(self, *args, **kwargs):\n"
            "    making(self, *args, **kwargs)\n"
            "    parsers.append(self.prog)\n"
            "argparse.ArgumentParser.__init__ = made\n"
            f"atexit.register(lambda: open({str(built)!r}, 'w').write(json.dumps(parsers)))\n"
            f"sys.argv[1:] = ['read', '{TABLE}', '--where', \"f0 = 'Alice'\", '--json']; main()")
    imported_by(code, tmp_path)
    assert json.loads(built.read_text()) == ["fileindex", "fileindex read"]


def test_a_command_lines_read_compiles_no_source(tmp_path):
    """A cold read calls no ``compile()`` (#54, cold10): a process's first call builds Python's AST types (10 M
    instructions), and typing calls it for each string annotation of a NamedTuple's fields (``from __future__ import
    annotations`` in its module) and each string parameter of a generic (``PredicateVisitor["np.ndarray"]``)."""
    compiled = tmp_path / "compiled.json"
    code = ("import builtins\n"
            "sources = []\n"
            "compiling = builtins.compile\n"
            "def recorded(source, *args, **kwargs):\n"
            "    caller = sys._getframe(1).f_globals.get('__name__', '')\n"
            "    if not caller.startswith('importlib'):  # (a module compiled from source: no bytecode cached)\n"
            "        sources.append(f'{caller}: {str(source)[:80]}')\n"
            "    return compiling(source, *args, **kwargs)\n"
            "builtins.compile = recorded\n"
            f"atexit.register(lambda: open({str(compiled)!r}, 'w').write(json.dumps(sources)))\n"
            f"sys.argv[1:] = ['read', '{TABLE}', '--where', \"f0 = 'Alice' OR f1 IN (10, 20) OR f3 > 12.0\", "
            "'--json']; main()")
    imported_by(code, tmp_path)
    assert json.loads(compiled.read_text()) == []


def test_a_read_compiles_the_patterns_of_what_it_parses_only(tmp_path):
    """The regular expressions of timestamp literals and of Java's UTF-8 encoding are compiled by their first use
    (#54, cold16: about 0.5 ms of a cold read), not as their modules are imported: a read of a string's equality
    compiles neither; one of a timestamp compiles the offset's."""
    from fileindex.java import utf
    from fileindex.predicate import literals

    compiled = tmp_path / "patterns.json"
    lazy = [getattr(one, "pattern", one) for one in (literals._OFFSET, literals._NOT_AN_OFFSET, utf._ASTRAL)]
    code = ("import re\n"
            "patterns = []\n"
            "compiling = re._compile\n"
            "def recorded(pattern, flags):\n"
            "    patterns.append(pattern if isinstance(pattern, str) else '')\n"
            "    return compiling(pattern, flags)\n"
            "re._compile = recorded\n"
            f"atexit.register(lambda: open({str(compiled)!r}, 'w').write(json.dumps(patterns)))\n"
            f"sys.argv[1:] = ['read', '{TABLE_BLOOM}', '--where', WHERE, '--json']; main()")
    imported_by(code.replace("WHERE", "\"f0 = 'Alice'\""), tmp_path)
    assert not set(lazy) & set(json.loads(compiled.read_text()))
    imported_by(code.replace("WHERE", "\"f4 = TIMESTAMP '2024-01-01 00:00:00'\""), tmp_path)
    assert lazy[0] in json.loads(compiled.read_text())


def test_a_package_imported_without_its_init_is_whole_to_every_thread(tmp_path, monkeypatch):
    """``import_submodule`` defers a package's ``__init__`` to the first name asked of it: a thread asking while
    another runs it waits for the whole package (reader threads met backports.zstd half made: no ZstdError)."""
    import sys
    import threading

    from fileindex.lazy import import_submodule

    package = tmp_path / "slowpackage"
    package.mkdir()
    (package / "__init__.py").write_text("import time\nfrom slowpackage import sub\ntime.sleep(0.2)\nWHOLE = True\n")
    (package / "sub.py").write_text("PART = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slowpackage", raising=False)
    monkeypatch.delitem(sys.modules, "slowpackage.sub", raising=False)
    assert import_submodule("slowpackage.sub").PART == 1
    seen: list[object] = []
    start = threading.Barrier(4)

    def ask() -> None:
        start.wait()
        try:
            seen.append(sys.modules["slowpackage"].WHOLE)
        except AttributeError as err:
            seen.append(err)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [True] * 4
