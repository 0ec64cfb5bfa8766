"""RoaringBitmap portable serialization, framing only; mirrors specs/roaring_bitmap.ksy.

https://github.com/RoaringBitmap/RoaringFormatSpec
"""
from construct import Array, Bytes, Check, If, Int16ul, Int32ul, Struct

NO_RUN_COOKIE = 12346
RUN_COOKIE = 12347


def _has_runs(ctx) -> bool:
    return ctx.cookie & 0xFFFF == RUN_COOKIE


def _num_containers(ctx) -> int:
    return (ctx.cookie >> 16) + 1 if _has_runs(ctx) else ctx.num_containers_no_run


def _is_run(ctx) -> bool:
    parent, i = ctx._, ctx._._index
    return _has_runs(parent) and parent.run_flags[i // 8] & (1 << (i % 8)) != 0


def _data_size(ctx) -> int:
    if _is_run(ctx):
        return 4 * ctx.num_runs
    card = ctx._.descriptions[ctx._._index].card_minus_one + 1
    return 2 * card if card <= 4096 else 8192


container_description = Struct("key" / Int16ul, "card_minus_one" / Int16ul)

container = Struct(
    "num_runs" / If(_is_run, Int16ul),
    "data" / Bytes(_data_size),
)

roaring_bitmap = Struct(
    "cookie" / Int32ul,
    Check(lambda ctx: ctx.cookie == NO_RUN_COOKIE or _has_runs(ctx)),
    "num_containers_no_run" / If(lambda ctx: not _has_runs(ctx), Int32ul),
    "run_flags" / If(_has_runs, Bytes(lambda ctx: (_num_containers(ctx) + 7) // 8)),
    "descriptions" / Array(_num_containers, container_description),
    "offsets" / If(lambda ctx: not _has_runs(ctx) or _num_containers(ctx) >= 4, Array(_num_containers, Int32ul)),
    "containers" / Array(_num_containers, container),
)

