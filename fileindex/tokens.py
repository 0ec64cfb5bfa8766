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
