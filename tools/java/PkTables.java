// Java Paimon 0.9.0 writing and reading primary-key tables for tools/pk_tables.py: our own harness over
// Paimon's public catalog and table API (compiled with KitAdapter.java, whose value spelling, predicate
// form and row JSON it shares). One JSON request per stdin line, one JSON answer per stdout line:
//   {"op":"create","warehouse":W,"table":T,"columns":[["id","INT"], ...],"primary_keys":[...],
//    "partition_keys":[...],"options":{...}}                          -> {"path":"<table root>"}
//   {"op":"commit","table":ROOT,"rows":[["+I", v, ...], ["-D", v, ...], ...]}
//                                                                     -> {"snapshot":n}  (one batch commit)
//       with "options":{...}: the commit runs with those table options (e.g. write-only, so no compaction)
//   {"op":"compact","table":ROOT}                                     -> {"snapshot":n}  (a full compaction
//       of every bucket that has files, run with write-only=false whatever the table says)
//   {"op":"bench","table":ROOT,"keys":N,"version":V,"every":K,"seed":S,"rare":R,"options":{...}}
//                                                                     -> {"snapshot":n}  (one batch commit of
//       generated rows of tools/bench_pk.py's table (id BIGINT, name STRING, cat STRING, v BIGINT): every key
//       below N (K = 1) or each with chance 1/K (java.util.Random(S)), name "n<V>-<id>", cat "c<id % 8>", but key R
//       (-1: none) is always written, with cat "rare"; v = V; too many rows to send as JSON)
//   {"op":"read","table":ROOT,"snapshot":n,"where":P or absent}       -> {"files":[name, ...],"rows":[[v, ...]]}
//       Java's batch read of snapshot n (ReadBuilder with the predicate as its filter, so Java's own pruning
//       decides what is read), keeping the rows Predicate.test accepts; files: the data files its plan reads
// With "index":true, a commit, compact or bench op gives each data file it writes its file index (the table's
// file-index.* options), as Paimon 1.x's KeyValueDataFileWriter does and 0.9.0's does not: 0.9.0's own
// DataFileIndexWriter over the file's value rows, embedded in the manifest entry up to
// file-index.in-manifest-threshold, else a sidecar <file>.index among the entry's extra files.
// Any failure answers {"error":"<class>: <message>"}.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fileindex.FileIndexOptions;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileIndexWriter;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataFilePathFactory;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Pair;

public class PkTables {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode answer = JSON.createObjectNode();
            try {
                JsonNode request = JSON.readTree(line);
                switch (request.get("op").asText()) {
                    case "create": answer.put("path", create(request)); break;
                    case "commit": answer.put("snapshot", commit(withOptions(table(request), request.get("options")),
                                                                 request.get("rows"), indexing(request))); break;
                    case "compact": answer.put("snapshot", compact(table(request), indexing(request))); break;
                    case "bench": answer.put("snapshot", bench(withOptions(table(request), request.get("options")),
                                                               request, indexing(request))); break;
                    case "read": read(table(request), request, answer); break;
                    default: throw new IllegalArgumentException("unknown op");
                }
            } catch (Throwable t) {
                if (Boolean.getBoolean("pk.debug")) t.printStackTrace();
                answer = JSON.createObjectNode();
                answer.put("error", KitAdapter.describe(t));
            }
            out.println(JSON.writeValueAsString(answer));
        }
    }

    static FileStoreTable table(JsonNode request) {
        return FileStoreTableFactory.create(LocalFileIO.create(), new Path(request.get("table").asText()));
    }

    static FileStoreTable withOptions(FileStoreTable table, JsonNode options) {
        if (options == null) return table;
        Map<String, String> dynamic = new HashMap<>();
        options.fields().forEachRemaining(e -> dynamic.put(e.getKey(), e.getValue().asText()));
        return table.copy(dynamic);
    }

    static String create(JsonNode request) throws Exception {
        Options catalogOptions = new Options();
        catalogOptions.set("warehouse", request.get("warehouse").asText());
        Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(catalogOptions));
        catalog.createDatabase("db", true);
        Schema.Builder schema = Schema.newBuilder();
        for (JsonNode column : request.get("columns"))
            schema.column(column.get(0).asText(), DataTypeJsonParser.parseAtomicTypeSQLString(column.get(1).asText()));
        schema.primaryKey(names(request.get("primary_keys")));
        schema.partitionKeys(names(request.get("partition_keys")));
        request.get("options").fields().forEachRemaining(e -> schema.option(e.getKey(), e.getValue().asText()));
        Identifier id = Identifier.create("db", request.get("table").asText());
        catalog.createTable(id, schema.build(), false);
        catalog.getTable(id);  // (the schema is validated when the table is loaded)
        return catalog.getTableLocation(id).toString().replaceFirst("^file:", "");
    }

    static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        if (array != null) for (JsonNode name : array) names.add(name.asText());
        return names;
    }

    static boolean indexing(JsonNode request) {
        return request.hasNonNull("index") && request.get("index").asBoolean();
    }

    static long commit(FileStoreTable table, JsonNode rows, boolean index) throws Exception {
        List<DataType> types = table.rowType().getFieldTypes();
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (IOManager disk = spillFolder(); BatchTableWrite write = withDisk(builder.newWrite(), disk);
             BatchTableCommit commit = builder.newCommit()) {
            for (JsonNode row : rows) {
                Object[] fields = new Object[types.size()];
                for (int i = 0; i < fields.length; i++) fields[i] = KitAdapter.value(types.get(i), row.get(i + 1));
                write.write(GenericRow.ofKind(RowKind.fromShortString(row.get(0).asText()), fields));
            }
            commit.commit(indexed(table, write.prepareCommit(), index));
        }
        return table.snapshotManager().latestSnapshotId();
    }

    static long bench(FileStoreTable table, JsonNode request, boolean index) throws Exception {
        long keys = request.get("keys").asLong(), rare = request.get("rare").asLong();
        int every = request.get("every").asInt();
        long version = request.get("version").asLong();
        java.util.Random draw = new java.util.Random(request.get("seed").asLong());
        BinaryString[] categories = new BinaryString[8];
        for (int i = 0; i < categories.length; i++) categories[i] = BinaryString.fromString("c" + i);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (IOManager disk = spillFolder(); BatchTableWrite write = withDisk(builder.newWrite(), disk);
             BatchTableCommit commit = builder.newCommit()) {
            for (long id = 0; id < keys; id++) {
                if (every > 1 && draw.nextInt(every) != 0 && id != rare) continue;
                BinaryString category = id == rare ? BinaryString.fromString("rare") : categories[(int) (id % 8)];
                write.write(GenericRow.of(id, BinaryString.fromString("n" + version + "-" + id), category, version));
            }
            commit.commit(indexed(table, write.prepareCommit(), index));
        }
        return table.snapshotManager().latestSnapshotId();
    }

    // first-row tables compact by lookup, which spills to a temporary folder (paimon-io-*), removed when the
    // IOManager closes (after the write: try-with-resources closes in reverse order)
    static IOManager spillFolder() {
        return IOManager.create(System.getProperty("java.io.tmpdir"));
    }

    static BatchTableWrite withDisk(BatchTableWrite write, IOManager disk) {
        write.withIOManager(disk);
        return write;
    }

    static long compact(FileStoreTable table, boolean index) throws Exception {
        FileStoreTable compacting = table.copy(Collections.singletonMap("write-only", "false"));
        Set<Pair<BinaryRow, Integer>> buckets = new LinkedHashSet<>();
        for (ManifestEntry entry : compacting.store().newScan().plan().files())
            buckets.add(Pair.of(entry.partition(), entry.bucket()));
        BatchWriteBuilder builder = compacting.newBatchWriteBuilder();
        try (IOManager disk = spillFolder(); BatchTableWrite write = withDisk(builder.newWrite(), disk);
             BatchTableCommit commit = builder.newCommit()) {
            for (Pair<BinaryRow, Integer> bucket : buckets) write.compact(bucket.getLeft(), bucket.getRight(), true);
            commit.commit(indexed(compacting, write.prepareCommit(), index));
        }
        return table.snapshotManager().latestSnapshotId();
    }

    static List<CommitMessage> indexed(FileStoreTable table, List<CommitMessage> messages, boolean index)
            throws Exception {
        FileIndexOptions options = new FileIndexOptions(table.coreOptions());
        if (!index || options.isEmpty()) return messages;
        List<CommitMessage> out = new ArrayList<>();
        for (CommitMessage message : messages) {
            CommitMessageImpl m = (CommitMessageImpl) message;
            DataFilePathFactory paths = table.store().pathFactory().createDataFilePathFactory(m.partition(), m.bucket());
            DataIncrement added = m.newFilesIncrement();
            CompactIncrement compacted = m.compactIncrement();
            out.add(new CommitMessageImpl(m.partition(), m.bucket(),
                    new DataIncrement(indexed(table, options, paths, added.newFiles()), added.deletedFiles(),
                                      added.changelogFiles()),
                    new CompactIncrement(compacted.compactBefore(),
                                         indexed(table, options, paths, compacted.compactAfter()),
                                         compacted.changelogFiles()),
                    m.indexIncrement()));
        }
        return out;
    }

    static List<DataFileMeta> indexed(FileStoreTable table, FileIndexOptions options, DataFilePathFactory paths,
                                      List<DataFileMeta> files) throws Exception {
        RowType values = table.rowType();
        InternalRowSerializer copier = new InternalRowSerializer(values);
        List<DataFileMeta> out = new ArrayList<>();
        for (DataFileMeta file : files) {
            if (file.embeddedIndex() != null || !file.extraFiles().isEmpty()) {  // (a file moved up a level keeps its index)
                out.add(file);
                continue;
            }
            Path path = paths.toPath(file.fileName());
            DataFileIndexWriter writer = DataFileIndexWriter.create(
                    table.fileIO(), DataFilePathFactory.dataFileToFileIndexPath(path), values, options);
            if (writer == null) {
                out.add(file);
                continue;
            }
            // the file's value fields by name (the key-value layout's _KEY_, _SEQUENCE_NUMBER, _VALUE_KIND left out),
            // row by row in the file's order, as the writer sees kv.value()
            FormatReaderContext context = new FormatReaderContext(table.fileIO(), path, file.fileSize());
            try (RecordReader<InternalRow> reader = table.coreOptions().fileFormat().createReaderFactory(values)
                    .createReader(context)) {
                reader.forEachRemaining(row -> writer.write(copier.copy(row)));
            }
            writer.close();
            DataFileIndexWriter.FileIndexResult result = writer.result();
            out.add(result.independentIndexFile() != null
                    ? file.copy(Collections.singletonList(result.independentIndexFile()))
                    : file.copy(result.embeddedIndexBytes()));
        }
        return out;
    }

    static void read(FileStoreTable table, JsonNode request, ObjectNode answer) throws Exception {
        Map<String, String> at = new HashMap<>();
        at.put("scan.snapshot-id", request.get("snapshot").asText());
        FileStoreTable snapshot = table.copy(at);
        RowType rowType = snapshot.rowType();
        ReadBuilder builder = snapshot.newReadBuilder();
        Predicate predicate = request.hasNonNull("where") ? KitAdapter.predicate(request.get("where"), rowType) : null;
        if (predicate != null) builder = builder.withFilter(predicate);
        List<Split> splits = builder.newScan().plan().splits();
        Set<String> files = new TreeSet<>();
        for (Split split : splits) for (DataFileMeta file : ((DataSplit) split).dataFiles()) files.add(file.fileName());
        ArrayNode names = answer.putArray("files");
        files.forEach(names::add);
        ArrayNode rows = answer.putArray("rows");
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(splits)) {
            reader.forEachRemaining(row -> {
                if (predicate != null && !predicate.test(row)) return;
                ArrayNode out = rows.addArray();
                for (int i = 0; i < rowType.getFieldCount(); i++) out.add(KitAdapter.json(rowType.getTypeAt(i), row, i));
            });
        }
    }
}
