"""The conformance kit: a versioned corpus any implementation of Paimon's file index can run.

* :mod:`fileindex.kit.corpus`: the corpus layout, its version and the canonical answer shapes;
* :mod:`fileindex.kit.export`: ``fileindex kit export`` (Tier 1 containers from the Java-written
  vectors, the negative corpus, JSON Schemas, a reproducible tarball);
* :mod:`fileindex.kit.tables`: Tier 2, Java-written tables and the verdicts of their live files;
* :mod:`fileindex.kit.rules`: cases whose answers follow from a rule, not a Java recording;
* :mod:`fileindex.kit.derived`: Tier 1 cases derived from a container's recorded ones (NotBetween, null literals);
* :mod:`fileindex.kit.hashes`: ``hashes.json``, Java's FastHash per type;
* :mod:`fileindex.kit.provenance`: who produced each expected answer (``expected_from``) and its ``spec``;
* :mod:`fileindex.kit.release`: README.md (with the adapter contract), LICENSE, NOTICE and CHANGELOG.md;
* :mod:`fileindex.kit.schemas`: the JSON Schemas of every JSON file and of the adapters' answers;
* :mod:`fileindex.kit.negative`: the negative corpus (``bad/``) and its rules;
* :mod:`fileindex.kit.adapter`: this project's adapter (``fileindex kit adapter``);
* :mod:`fileindex.kit.protocol`: driving an adapter command (one call per request, or a batch with request
  ids), within a timeout and the run's budget; ``serve``, the batch loop of an adapter written in Python;
* :mod:`fileindex.kit.runner`: ``fileindex kit run``, producer × consumer;
* :mod:`fileindex.kit.plan`: ``--only`` patterns and progress within a phase;
* :mod:`fileindex.kit.report`: the matrix in the terminal, as JSON, as HTML and as Markdown.

The adapter contract and the corpus layout are described in docs/kit.md.
"""
