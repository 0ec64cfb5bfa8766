"""Arrow input: Arrow ↔ Paimon types (``types``), values as index keys (``values``), the value of one
key in each map of a map column (``maps``), and Parquet/ORC data files read by column or by row group
(``data_files``). May import: the base modules only.
"""
