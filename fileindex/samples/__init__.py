"""Sample containers written by Java, bundled for ``fileindex samples`` and the README examples."""
