// Java Paimon 0.9.0 reading, appending to and expiring a table after our rewrite: our own test harness
// over Paimon's public table API. One JSON request per line on stdin, one JSON answer per line:
//   {"op":"plan","table":"/root","column":"name","value":"m_f2_3"}
//       -> {"splits":n,"files":n,"rows_read":n,"matching":n}   (equality filter; value null: no filter)
//   {"op":"checksum","table":"/root"}            -> {"rows":n,"sha256":"<hex of the sorted rows>"}
//   {"op":"expire","table":"/root","keep":1}     -> {"expired":n}
//   {"op":"live_files","table":"/root"}          -> {"files":["<file name>", ...]}
//   {"op":"create_branch","table":"/root","name":"b"}  -> {"tag":"<tag>"}: a tag of the latest snapshot and a
//       branch from it
//   Any request may name "branch":"b": it then reads (plans, checksums, ...) that branch of the table.
//   {"op":"reference_indexes","table":"/root","out":"/dir"}
//       -> {"<data file name>": "<hex of the container>" or null, ...}: what 0.9's DataFileIndexWriter builds
//          for each live file from its rows and the table's current options (as 0.9's rewrite sink does);
//          a sidecar-sized container is written under /dir, never into the table
// Any failure answers {"error":"<class>: <message>"}.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

public class TableProbe {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode answer = JSON.createObjectNode();
            try {
                JsonNode request = JSON.readTree(line);
                FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(),
                        new Path(request.get("table").asText()));
                if (request.has("branch")) table = table.switchToBranch(request.get("branch").asText());
                switch (request.get("op").asText()) {
                    case "plan": plan(table, request, answer); break;
                    case "checksum": checksum(table, answer); break;
                    case "expire":
                        int keep = request.get("keep").asInt();
                        answer.put("expired", table.newExpireSnapshots().config(ExpireConfig.builder()
                                .snapshotRetainMax(keep).snapshotRetainMin(keep)
                                .snapshotTimeRetain(java.time.Duration.ZERO).build()).expire());
                        break;
                    case "live_files": liveFiles(table, answer); break;
                    case "create_branch":
                        String tag = "for-" + request.get("name").asText();
                        table.createTag(tag, table.snapshotManager().latestSnapshotId());
                        table.createBranch(request.get("name").asText(), tag);
                        answer.put("tag", tag);
                        break;
                    case "reference_indexes": referenceIndexes(table, request.get("out").asText(), answer); break;
                    default: throw new IllegalArgumentException("unknown op");
                }
            } catch (Throwable t) {
                Throwable root = t;
                while (root.getCause() != null && root.getCause() != root) root = root.getCause();
                answer = JSON.createObjectNode();
                answer.put("error", root.getClass().getSimpleName() + ": " + root.getMessage());
            }
            out.println(JSON.writeValueAsString(answer));
        }
    }

    static void plan(FileStoreTable table, JsonNode request, ObjectNode answer) throws Exception {
        ReadBuilder builder = table.newReadBuilder();
        JsonNode value = request.get("value");
        if (value != null && !value.isNull()) {
            RowType type = table.rowType();
            PredicateBuilder predicates = new PredicateBuilder(type);
            int index = type.getFieldNames().indexOf(request.get("column").asText());
            DataType fieldType = type.getTypeAt(index);
            Object literal = fieldType.getTypeRoot().toString().contains("CHAR")
                    ? BinaryString.fromString(value.asText()) : (Object) value.asInt();
            Predicate predicate = predicates.equal(index, literal);
            builder = builder.withFilter(predicate);
        }
        List<Split> splits = builder.newScan().plan().splits();
        int files = 0;
        for (Split split : splits) files += ((DataSplit) split).dataFiles().size();
        answer.put("splits", splits.size());
        answer.put("files", files);
        answer.put("rows_read", count(builder.newRead().createReader(splits)));
        answer.put("matching", count(builder.newRead().executeFilter().createReader(splits)));
    }

    static long count(RecordReader<InternalRow> reader) throws Exception {
        long[] n = {0};
        reader.forEachRemaining(row -> n[0]++);
        reader.close();
        return n[0];
    }

    static void checksum(FileStoreTable table, ObjectNode answer) throws Exception {
        ReadBuilder builder = table.newReadBuilder();
        RowType type = table.rowType();
        List<InternalRow.FieldGetter> getters = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) getters.add(InternalRow.createFieldGetter(type.getTypeAt(i), i));
        List<String> rows = new ArrayList<>();
        RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits());
        reader.forEachRemaining(row -> {
            StringBuilder text = new StringBuilder();
            for (InternalRow.FieldGetter getter : getters) text.append(getter.getFieldOrNull(row)).append('\u0001');
            rows.add(text.toString());
        });
        reader.close();
        Collections.sort(rows);
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (String row : rows) digest.update((row + "\n").getBytes(StandardCharsets.UTF_8));
        StringBuilder hex = new StringBuilder();
        for (byte b : digest.digest()) hex.append(String.format("%02x", b));
        answer.put("rows", rows.size());
        answer.put("sha256", hex.toString());
    }

    static void liveFiles(FileStoreTable table, ObjectNode answer) {
        ArrayNode files = answer.putArray("files");
        List<String> names = new ArrayList<>();
        for (Split split : table.newReadBuilder().newScan().plan().splits())
            for (DataFileMeta file : ((DataSplit) split).dataFiles()) names.add(file.fileName());
        Collections.sort(names);
        for (String name : names) files.add(name);
    }

    static void referenceIndexes(FileStoreTable table, String out, ObjectNode answer) throws Exception {
        org.apache.paimon.fileindex.FileIndexOptions options =
                new org.apache.paimon.CoreOptions(table.options()).indexColumnsOptions();
        for (Split split : table.newReadBuilder().newScan().plan().splits()) {
            DataSplit data = (DataSplit) split;
            for (DataFileMeta file : data.dataFiles()) {
                DataSplit one = DataSplit.builder().withSnapshot(data.snapshotId()).withPartition(data.partition())
                        .withBucket(data.bucket()).withBucketPath(data.bucketPath())
                        .withDataFiles(Collections.singletonList(file)).rawConvertible(true).build();
                Path index = new Path(out, file.fileName() + ".index");
                org.apache.paimon.io.DataFileIndexWriter writer = org.apache.paimon.io.DataFileIndexWriter.create(
                        LocalFileIO.create(), index, table.rowType(), options);
                if (writer == null) {
                    answer.putNull(file.fileName());
                    continue;
                }
                RecordReader<InternalRow> reader = table.newReadBuilder().newRead().createReader(one);
                reader.forEachRemaining(writer::write);
                reader.close();
                writer.close();
                byte[] bytes = writer.result().embeddedIndexBytes();
                if (bytes == null) bytes = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(index.toString()));
                StringBuilder hex = new StringBuilder();
                for (byte b : bytes) hex.append(String.format("%02x", b));
                answer.put(file.fileName(), hex.toString());
            }
        }
    }
}
