"""Primary-key tables read as Paimon reads them: merge-on-read of a bucket's key-value files, and the pruning
Java's ``KeyValueFileStoreScan`` allows (docs/guide/primary-keys.md). May import ``fileindex.table`` and below.

* ``spec``: what a table's merge is, from its schema (``merge_spec``); engines and options not implemented
  here are refused in one line naming them;
* ``aggregators``, ``functions``: Java 0.9.0's field aggregators and merge functions, one key's records at a
  time (what the vectorised reader falls back to, and the reference the tests hold it to);
* ``columns``: aggregation of many keys at once, each field's function applied to the j-th record of every
  key in one numpy step;
* ``layout``: the key-value file layout (``_KEY_`` fields, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND``), a file
  handed to the merge (``KeyValueFile``) and the columns a merge must read;
* ``sections``: a bucket's files in key-range sections of sorted runs (Java's ``IntervalPartition``), and
  which files a batch scan reads;
* ``reader``: the streaming merge of a bucket (``merge_bucket``): Arrow batches in and out, memory bounded by
  a batch per sorted run;
* ``pruning``: which files of a bucket a predicate lets a scan drop, and by which rule (``prune_bucket``).
"""
