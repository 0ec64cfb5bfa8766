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
//   {"op":"read","table":ROOT,"snapshot":n,"where":P or absent}       -> {"files":[name, ...],"rows":[[v, ...]]}
//       Java's batch read of snapshot n (ReadBuilder with the predicate as its filter, so Java's own pruning
//       decides what is read), keeping the rows Predicate.test accepts; files: the data files its plan reads
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
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
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
                                                                 request.get("rows"))); break;
                    case "compact": answer.put("snapshot", compact(table(request))); break;
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

    static long commit(FileStoreTable table, JsonNode rows) throws Exception {
        List<DataType> types = table.rowType().getFieldTypes();
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = withDisk(builder.newWrite()); BatchTableCommit commit = builder.newCommit()) {
            for (JsonNode row : rows) {
                Object[] fields = new Object[types.size()];
                for (int i = 0; i < fields.length; i++) fields[i] = KitAdapter.value(types.get(i), row.get(i + 1));
                write.write(GenericRow.ofKind(RowKind.fromShortString(row.get(0).asText()), fields));
            }
            commit.commit(write.prepareCommit());
        }
        return table.snapshotManager().latestSnapshotId();
    }

    // first-row tables compact by lookup, which spills to a temporary folder
    static BatchTableWrite withDisk(BatchTableWrite write) {
        write.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
        return write;
    }

    static long compact(FileStoreTable table) throws Exception {
        FileStoreTable compacting = table.copy(Collections.singletonMap("write-only", "false"));
        Set<Pair<BinaryRow, Integer>> buckets = new LinkedHashSet<>();
        for (ManifestEntry entry : compacting.store().newScan().plan().files())
            buckets.add(Pair.of(entry.partition(), entry.bucket()));
        BatchWriteBuilder builder = compacting.newBatchWriteBuilder();
        try (BatchTableWrite write = withDisk(builder.newWrite()); BatchTableCommit commit = builder.newCommit()) {
            for (Pair<BinaryRow, Integer> bucket : buckets) write.compact(bucket.getLeft(), bucket.getRight(), true);
            commit.commit(write.prepareCommit());
        }
        return table.snapshotManager().latestSnapshotId();
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
