"""Iteration order of ``java.util.HashMap`` (JDK 8+), for byte-identical output (spec §11).

Java writers iterate HashMaps when they lay out containers and bitmap bodies, so reproducing
their bytes means reproducing the order in which a HashMap built by the same sequence of
``put`` / ``computeIfAbsent`` calls iterates. That order depends only on the keys' hashCodes,
their ``compareTo`` (inside tree bins), and the sequence of calls, never on values.

The emulation follows the JDK source: buckets are linked lists (``next``); a bucket reaching 8
nodes is resized (capacity < 64) or turned into a red-black tree whose root is moved to the
front of the list; tree inserts link the new node right after its parent; resizes split each
bucket into lo/hi lists keeping their order and untreeify halves of 6 nodes or fewer.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from fileindex.java_numbers import int32

K = TypeVar("K", bound=Hashable)

_INITIAL_CAPACITY = 16
_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


def spread(hash_code: int) -> int:
    """``HashMap.hash``: h ^ (h >>> 16), as a signed int (tree bins compare it signed)."""
    h = hash_code & 0xFFFFFFFF
    return int32(h ^ (h >> 16))


class _Node:
    __slots__ = ("hash", "key", "next", "prev", "parent", "left", "right", "red", "tree")

    def __init__(self, hash_: int, key, next_=None):
        self.hash = hash_
        self.key = key
        self.next: _Node | None = next_
        self.prev: _Node | None = None
        self.parent: _Node | None = None
        self.left: _Node | None = None
        self.right: _Node | None = None
        self.red = False
        self.tree = False


class JavaHashMapOrder(Generic[K]):
    """A Java HashMap's bucket structure (keys only); iterate it for Java's order.

    ``compare(a, b)`` is the keys' ``compareTo`` (negative, zero, positive); it is only used
    inside tree bins.
    """

    def __init__(self, hash_code: Callable[[K], int], compare: Callable[[K, K], int] | None = None):
        self._hash_code = hash_code
        self._compare = compare or _natural
        self._table: list[_Node | None] = []
        self._size = 0
        self._keys: set[K] = set()

    @property
    def capacity(self) -> int:
        return len(self._table)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        for node in self._table:
            while node is not None:
                yield node.key
                node = node.next

    def _threshold(self) -> int:
        return self.capacity * 3 // 4

    # -- operations -------------------------------------------------------------------------

    def compute_if_absent(self, key: K) -> None:
        """``computeIfAbsent``: resize check first (even for present keys), then head insertion."""
        if not self._table or self._size > self._threshold():
            self._resize()
        if key in self._keys:
            return
        h = spread(self._hash_code(key))
        index = h & (self.capacity - 1)
        first = self._table[index]
        self._keys.add(key)
        self._size += 1
        if first is not None and first.tree:
            self._put_tree_val(first, h, key)
            return
        bin_count = 0
        node = first
        while node is not None:
            bin_count += 1
            node = node.next
        self._table[index] = _Node(h, key, first)
        if bin_count >= _TREEIFY_THRESHOLD - 1:
            self._treeify_bin(h)

    def put(self, key: K) -> None:
        """``put`` of a new key: tail insertion (or tree insertion), then the size check."""
        if not self._table:
            self._resize()
        if key in self._keys:
            return
        h = spread(self._hash_code(key))
        index = h & (self.capacity - 1)
        first = self._table[index]
        self._keys.add(key)
        if first is None:
            self._table[index] = _Node(h, key)
        elif first.tree:
            self._put_tree_val(first, h, key)
        else:
            bin_count = 0
            node = first
            while node.next is not None:
                node = node.next
                bin_count += 1
            node.next = _Node(h, key)
            if bin_count >= _TREEIFY_THRESHOLD - 1:
                self._treeify_bin(h)
        self._size += 1
        if self._size > self._threshold():
            self._resize()

    # -- resizing ---------------------------------------------------------------------------

    def _resize(self) -> None:
        old = self._table
        old_capacity = len(old)
        table: list[_Node | None] = [None] * (old_capacity * 2 if old else _INITIAL_CAPACITY)
        self._table = table
        for j, node in enumerate(old):
            if node is None:
                continue
            if node.next is None:
                table[node.hash & (len(table) - 1)] = node
            elif node.tree:
                self._split_tree(node, j, old_capacity)
            else:
                lo, hi = self._split_list(node, old_capacity)
                table[j], table[j + old_capacity] = lo, hi

    @staticmethod
    def _split_list(node: _Node | None, bit: int):
        lo_head = lo_tail = hi_head = hi_tail = None
        while node is not None:
            following = node.next
            node.next = None
            if node.hash & bit == 0:
                if lo_tail is None:
                    lo_head = node
                else:
                    lo_tail.next = node
                lo_tail = node
            else:
                if hi_tail is None:
                    hi_head = node
                else:
                    hi_tail.next = node
                hi_tail = node
            node = following
        return lo_head, hi_head

    def _split_tree(self, first: _Node, index: int, bit: int) -> None:
        lo: list[_Node] = []
        hi: list[_Node] = []
        node: _Node | None = first
        while node is not None:
            following = node.next
            (lo if node.hash & bit == 0 else hi).append(node)
            node = following
        for nodes, at, other in ((lo, index, hi), (hi, index + bit, lo)):
            if not nodes:
                continue
            for before, after in zip(nodes, nodes[1:] + [None], strict=True):
                before.next = after
                if after is not None:
                    after.prev = before
            nodes[0].prev = None
            if len(nodes) <= _UNTREEIFY_THRESHOLD:
                for n in nodes:
                    n.tree = False
                    n.parent = n.left = n.right = n.prev = None
                self._table[at] = nodes[0]
            else:
                self._table[at] = nodes[0]
                if other:  # otherwise the tree is intact
                    self._treeify(nodes[0])

    # -- tree bins --------------------------------------------------------------------------

    def _treeify_bin(self, h: int) -> None:
        if self.capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        index = h & (self.capacity - 1)
        head = self._table[index]
        previous = None
        node = head
        while node is not None:
            node.tree = True
            node.prev = previous
            previous = node
            node = node.next
        if head is not None:
            self._treeify(head)

    def _direction(self, h: int, key, node: _Node) -> int:
        if node.hash > h:
            return -1
        if node.hash < h:
            return 1
        order = self._compare(key, node.key)
        if order == 0:
            raise AssertionError("equal keys inside one tree bin")  # tieBreakOrder is never needed
        return -1 if order < 0 else 1

    def _treeify(self, head: _Node) -> None:
        root: _Node | None = None
        node: _Node | None = head
        while node is not None:
            following = node.next
            node.left = node.right = None
            node.tree = True
            if root is None:
                node.parent = None
                node.red = False
                root = node
            else:
                parent = root
                while True:
                    direction = self._direction(node.hash, node.key, parent)
                    child = parent.left if direction <= 0 else parent.right
                    if child is None:
                        node.parent = parent
                        if direction <= 0:
                            parent.left = node
                        else:
                            parent.right = node
                        root = _balance_insertion(root, node)
                        break
                    parent = child
            node = following
        assert root is not None  # the loop placed head at least
        self._move_root_to_front(root)

    def _put_tree_val(self, first: _Node, h: int, key) -> None:
        root = first
        while root.parent is not None:
            root = root.parent
        parent = root
        while True:
            direction = self._direction(h, key, parent)
            child = parent.left if direction <= 0 else parent.right
            if child is None:
                following = parent.next
                node = _Node(h, key, following)
                node.tree = True
                if direction <= 0:
                    parent.left = node
                else:
                    parent.right = node
                parent.next = node
                node.parent = node.prev = parent
                if following is not None:
                    following.prev = node
                self._move_root_to_front(_balance_insertion(root, node))
                return
            parent = child

    def _move_root_to_front(self, root: _Node) -> None:
        index = root.hash & (self.capacity - 1)
        first = self._table[index]
        if root is first:
            return
        self._table[index] = root
        before, after = root.prev, root.next
        if after is not None:
            after.prev = before
        if before is not None:
            before.next = after
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None


def _rotate_left(root: _Node, p: _Node) -> _Node:
    r = p.right
    if r is not None:
        rl = p.right = r.left
        if rl is not None:
            rl.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
    return root


def _rotate_right(root: _Node, p: _Node) -> _Node:
    left = p.left
    if left is not None:
        lr = p.left = left.right
        if lr is not None:
            lr.parent = p
        pp = left.parent = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
    return root


def _balance_insertion(root: _Node, x: _Node) -> _Node:
    """``TreeNode.balanceInsertion``, transcribed: red-black fix-up after inserting x."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = xp.parent if xp is not None else None
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = xp.parent if xp is not None else None
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


def _natural(a, b) -> int:
    return (a > b) - (a < b)


def compute_if_absent_order_fast(hash_codes, trailing_call: bool = False):
    """Indices of keys (given by hashCode, in first-insertion order) in the order Java iterates them.

    Without tree bins or treeify-resizes the order is simple: buckets ascending at the final
    capacity, later insertions first within a bucket (head insertion; resizes keep relative
    order). This checks, capacity by capacity, that no bucket ever reached 8 keys, which is when
    Java would treeify (or resize early); then it returns the order with numpy. It returns None
    when that cannot be ruled out, and the caller falls back to the full emulation. The order is
    an int64 numpy array of indices.
    """
    import numpy as np

    hashes = np.asarray(hash_codes, dtype=np.int64) & 0xFFFFFFFF
    spread_hashes = hashes ^ (hashes >> 16)
    n = len(spread_hashes)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    capacity, inserted, stage_end = _INITIAL_CAPACITY, 0, 0
    while True:
        # computeIfAbsent resizes before inserting once size > 0.75 * capacity
        stage_end = min(n, capacity * 3 // 4 + 1)
        counts = np.bincount(spread_hashes[:stage_end] & (capacity - 1), minlength=capacity)
        if counts.max() >= _TREEIFY_THRESHOLD:
            return None
        inserted = stage_end
        if inserted >= n:
            break
        capacity *= 2
    if trailing_call and n > capacity * 3 // 4:
        capacity *= 2
    # bucket ascending, then the latest insertion first: sort bucket << 32 | (n - 1 - index) in place
    packed = ((spread_hashes & (capacity - 1)) << 32) | (n - 1 - np.arange(n, dtype=np.int64))
    packed.sort()
    return n - 1 - (packed & 0xFFFFFFFF)


def compute_if_absent_order(
    keys: Iterable[K], hash_code: Callable[[K], int], compare: Callable[[K, K], int] | None = None,
    *, trailing_call: bool = False,
) -> list[K]:
    """Java's iteration order of a HashMap filled by ``computeIfAbsent`` in this key sequence.

    Only first occurrences change the structure, with one exception: a call for a present key
    still resizes when the map is over its threshold. ``trailing_call`` says that at least one
    call followed the last new key (a repeated key after it), which performs that last resize.
    """
    order: JavaHashMapOrder[K] = JavaHashMapOrder(hash_code, compare)
    for key in keys:
        order.compute_if_absent(key)
    if trailing_call and order._table and order._size > order._threshold():
        order._resize()
    return list(order)


def put_order(keys: Iterable[K], hash_code: Callable[[K], int],
              compare: Callable[[K, K], int] | None = None) -> list[K]:
    """Java's iteration order of a HashMap filled by ``put`` in this sequence."""
    order: JavaHashMapOrder[K] = JavaHashMapOrder(hash_code, compare)
    for key in keys:
        order.put(key)
    return list(order)
