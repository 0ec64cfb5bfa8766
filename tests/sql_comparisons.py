"""SQL's answer for one row against a drawn comparison, by Python's exact arithmetic (ints, decimals), and the
predicate text of it: the reference of the finer-literal suites (DECIMAL, TIMESTAMP)."""
from __future__ import annotations


def sql_answer(value, operator: str, literals: list) -> bool:
    """Whether a row of ``value`` matches ``c OPERATOR literals`` (a null row matches nothing)."""
    if value is None:
        return False
    compared = {"=": value.__eq__, "<>": value.__ne__, "<": value.__lt__, "<=": value.__le__, ">": value.__gt__,
                ">=": value.__ge__}
    if operator in compared:
        return compared[operator](literals[0])
    if operator.endswith("IN"):
        return (value in literals) is (operator == "IN")
    return (literals[0] <= value <= literals[1]) is (operator == "BETWEEN")


def condition(operator: str, texts: list[str], column: str = "c") -> str:
    """The predicate text of ``column OPERATOR texts`` (IN lists parenthesised, BETWEEN's bounds joined by AND)."""
    if operator in ("IN", "NOT IN"):
        return f"{column} {operator} ({', '.join(texts)})"
    if operator.endswith("BETWEEN"):
        return f"{column} {operator} {texts[0]} AND {texts[1]}"
    return f"{column} {operator} {texts[0]}"
