"""Construct schemas: the second, independent declaration of every layout (parse and build).

They mirror specs/*.ksy field for field (same names), so the two parsers can be compared
structure by structure. Strings are kept as raw bytes here, as in the Kaitai specs; Java's
modified UTF-8 is decoded by fileindex.java_utf.
"""
