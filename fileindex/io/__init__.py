"""File access: the interface every read and write of a table goes through (:class:`FileIO`), its local
implementation (:data:`LOCAL`), and writing a file atomically."""
from fileindex.io.base import FileInfo, FileIO, InputFile, NotRegularError, OutsideError
from fileindex.io.local import LOCAL, LocalFileIO

__all__ = ["LOCAL", "FileIO", "FileInfo", "InputFile", "LocalFileIO", "NotRegularError", "OutsideError"]
