"""Reading (kind, text, position) tokens front to back: shared by the type and predicate parsers."""
from __future__ import annotations

from fileindex.errors import UsageError

Token = tuple[str, str, int]


class TokenStream:
    """Tokens of one input. Subclasses tokenize, name the end of input and format errors."""

    end_of_input = "unexpected end of input"

    def __init__(self, text: str, tokens: list[Token]):
        self.text = text
        self.tokens = tokens
        self.index = 0

    def describe_error(self, message: str, position: int) -> str:
        return f"{message} at position {position}"

    def error(self, message: str, position: int | None = None, *, back: int = 0) -> UsageError:
        """An error at ``position``; by default at the current token (``back``: that many tokens before it)."""
        if position is None:
            token = self.peek(-back)
            position = token[2] if token else len(self.text)
        return UsageError(self.describe_error(message, position))

    def peek(self, ahead: int = 0) -> Token | None:
        i = self.index + ahead
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def next(self) -> Token:
        token = self.peek()
        if token is None:
            raise self.error(self.end_of_input)
        self.index += 1
        return token

    def accept_word(self, *words: str) -> bool:
        """Consume the next token if it is one of ``words`` (upper case; the input's case does not matter)."""
        return self._accept("word", lambda text: text.upper() in words)

    def accept_symbol(self, symbol: str) -> bool:
        return self._accept("symbol", lambda text: text == symbol)

    def expect_word(self, word: str) -> None:
        if not self.accept_word(word):
            raise self.error(f"expected {word}")

    def expect_symbol(self, symbol: str) -> None:
        if not self.accept_symbol(symbol):
            raise self.error(f"expected '{symbol}'")

    def _accept(self, kind: str, matches) -> bool:
        token = self.peek()
        if token and token[0] == kind and matches(token[1]):
            self.index += 1
            return True
        return False


_LOOKALIKES = str.maketrans("oil", "011")  # letters typed for the digits they resemble: fo for f0, col_l for col_1


def closest_name(name: str, names: list[str]) -> str | None:
    """The name ``name`` was likely meant as: the one spelt alike but for look-alike letters and digits, else the one
    name a single edit away, else difflib's closest (whose similarity ratio misses short names: fo and f0 are 0.5)."""
    import difflib

    folded = name.lower().translate(_LOOKALIKES)
    alike = [c for c in names if c.lower().translate(_LOOKALIKES) == folded]
    one_edit = [c for c in names if one_edit_apart(name, c)]
    for found in (alike, one_edit):
        if found:
            return found[0] if len(found) == 1 else None  # several (f for f0 and f1): none is the likely one
    close = difflib.get_close_matches(name, names, n=1)
    return close[0] if close else None


def one_edit_apart(a: str, b: str) -> bool:
    """``b`` is ``a`` with one character replaced, inserted or deleted, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if len(a) == len(b):
        return a[start + 1:] == b[start + 1:] or (a[start:start + 2] == b[start:start + 2][::-1]
                                                  and a[start + 2:] == b[start + 2:])
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1:] == shorter[start:]
