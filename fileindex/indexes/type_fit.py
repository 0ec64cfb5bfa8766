"""Which column types an index body fits. A body that fails to decode under the type it is given, but
decodes cleanly under another, is a schema that does not fit, not a malformed file."""
from __future__ import annotations

from fileindex import errors
from fileindex.indexes.index_type import IndexType
from fileindex.types import DataType, parse_type, quote_identifier

# one type per encoding an index body can have (DATE is INT's, TIMESTAMP(3) BIGINT's, CHAR STRING's)
CANDIDATES = tuple(parse_type(name) for name in
                   ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "STRING"))


def fitting_types(index: IndexType, body, given: DataType) -> list[DataType]:
    """The candidate types other than ``given`` under which ``body`` decodes and passes its deep check as the
    bytes Java writes (no note): what a damaged body happens to read as under another type is no evidence."""
    fits = []
    for candidate in CANDIDATES:
        if candidate.root == given.root:
            continue
        try:
            if index.check(body, candidate, base_offset=0, distinct=None).notes:
                continue
        except (errors.FileIndexError, ValueError, OverflowError, IndexError):
            continue
        fits.append(candidate)
    return fits


def misfit(index: IndexType, body, column: str, given: DataType,
           err: errors.FileIndexError) -> errors.SchemaMisfitError | None:
    """The schema error that explains ``err`` (raised decoding ``body`` as ``given``), or None when the bytes
    fit no other type either (then the body is malformed). A type the index type cannot have is always one."""
    fits = fitting_types(index, body, given)
    if not fits and not isinstance(err, errors.UnsupportedTypeError):
        return None
    cause = err.message if isinstance(err, errors.DecodeError) else str(err)
    return errors.SchemaMisfitError(misfit_message(column, given, index.name, fits, cause), column=column,
                                    given=given, fits=fits, index_type=index.name, cause=cause)


def misfit_message(column: str, given: DataType, index_type: str, fits: list[DataType], cause: str,
                   data_type: DataType | None = None) -> str:
    """What to write first (the data's type ``data_type`` where it is known and fits; the one type that fits; the
    types that do, which the index does not tell apart: a bsi of small values fits every wider integer type); what
    the decoder found (``cause``) only where no type fits (the error keeps it, ``SchemaMisfitError.cause``)."""
    name = quote_identifier(column.split("[")[0]) if column.endswith("]") else quote_identifier(column)
    if data_type is not None and any(_kept_as(data_type) == fit.root for fit in fits):
        told = f"; the data's type is {data_type}: leave {name} out of --schema"
    elif given.root == "DECIMAL" and any(fit.root == "BIGINT" for fit in fits):
        told = (f"; its bytes decode as BIGINT, which a DECIMAL of precision 18 or less is kept as (unscaled): "
                f"write --schema \"{quote_identifier(column)} DECIMAL(18, {given.scale})\" with the data's precision "
                "and scale")
    elif len(fits) == 1:
        told = f"; its bytes decode as {fits[0]}: write --schema \"{quote_identifier(column)} {fits[0]}\""
    elif fits:
        told = (f"; its bytes decode as {' or '.join(map(str, fits))} (the index does not tell which): write "
                f"--schema \"{quote_identifier(column)} TYPE\" with the data's type, or give --data DATA_FILE")
    else:
        told = f" ({cause})" if cause else ""
    return (f"the schema does not fit column {column!r}: it gives {given}, which its {index_type} index was not "
            f"built for{told}")


def _kept_as(data_type: DataType) -> str:
    """The root of the candidate type whose encoding an index keeps ``data_type``'s values in, where it is another
    (a compact DECIMAL's unscaled BIGINT)."""
    return "BIGINT" if data_type.root == "DECIMAL" and (data_type.precision or 0) <= 18 else data_type.root
