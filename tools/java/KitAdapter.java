// The conformance kit's adapter for Java Paimon (docs/kit.md), built on the released 0.9.0 jar
// (tools/fetch_java_oracle.py fetches it; tools/kit_java_adapter.py compiles and runs this file).
// It calls Paimon's public file-index API only, so its answers are Java's:
//   KitAdapter capabilities  -> what 0.9.0 reads and writes (container 1; bloom-filter and bitmap V1;
//                               reads of several columns with And / Or)
//   KitAdapter batch         -> one JSON request per stdin line, one JSON answer per stdout line, echoing
//                               the request's "id" (kit 1.1.0):
//     {"op":"head","file":F}                                   -> {"head":{"columns":[...]}}
//     {"op":"read","file":F,"schema":{"c":"INT"},"where":P}     -> {"result":"REMAIN"|"SKIP"|"ROWS","ranges":[...]}
//     {"op":"scan","table":T,"where":P}                          -> {"files":{"bucket-0/data-….parquet":"REMAIN"|"SKIP"}}
//     {"op":"rows","table":T,"where":P}                          -> {"rows":[[v, ...], ...]}
//     {"op":"write","dataset":D,"column":"c","type":T,"index_type":I,"options":{...},
//      "container_version":1,"out":F}                           -> {"written":F}
//   any of them may answer {"error": "..."} (Java threw) or {"unsupported": "..."}.
// scan (only with -Dkit.tables=true: reading tables needs the Hadoop client jars) gives whole-file
// verdicts, as 0.9.0 decides them: a file its scan does not plan (statistics, embedded index) or its
// reader skips (FileIndexSkipper, the sidecar index) is SKIP, any other REMAIN; 0.9.0 applies no row sets.
// rows (with scan) reads the splits ReadBuilder plans with the predicate as a filter (ReadBuilder.newRead,
// so 0.9.0's own pruning decides which files are read) and keeps the rows Predicate.test accepts.
// 0.9.0 has no public way to read a HEAD's offsets: head lists each entry's column, index type and
// payload SHA-256 (FileIndexFormat.Reader.readAll), in the reader's HashMap order.
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fileindex.FileIndexFormat;
import org.apache.paimon.fileindex.FileIndexReader;
import org.apache.paimon.fileindex.FileIndexResult;
import org.apache.paimon.fileindex.FileIndexWriter;
import org.apache.paimon.fileindex.FileIndexer;
import org.apache.paimon.fileindex.bitmap.BitmapIndexResultLazy;
import org.apache.paimon.fs.ByteArraySeekableStream;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.FieldRef;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.RoaringBitmap32;

public class KitAdapter {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String[] LAYOUTS = {"bloom-filter", "bitmap-v1"};
    static final String MULTI_COLUMN = "multi-column";  // reads several columns and And / Or (not a write layout)

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        if (args.length == 1 && args[0].equals("capabilities")) {
            out.println(JSON.writeValueAsString(capabilities()));
            return;
        }
        if (args.length != 1 || !args[0].equals("batch")) {
            System.err.println("usage: KitAdapter capabilities | batch  (this adapter answers in batch only)");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) continue;
            ObjectNode answer;
            JsonNode id = null;
            try {
                JsonNode request = JSON.readTree(line);
                id = request.get("id");  // echoed, so that a stray line never moves an answer onto another request
                answer = handle(request);
            } catch (Unsupported u) {
                answer = JSON.createObjectNode();
                answer.put("unsupported", u.getMessage());
            } catch (Throwable t) {
                if (Boolean.getBoolean("kit.debug")) t.printStackTrace();
                answer = JSON.createObjectNode();
                answer.put("error", describe(t));
            }
            if (id != null) answer.set("id", id);
            out.println(JSON.writeValueAsString(answer));
        }
    }

    static ObjectNode capabilities() {
        ObjectNode caps = JSON.createObjectNode();
        caps.put("implementation", "java-paimon");
        caps.put("version", "0.9.0");
        caps.put("batch", true);
        caps.put("scan", "files");  // whole-file verdicts: REMAIN or SKIP
        caps.put("rows", Boolean.getBoolean("kit.tables"));
        for (String side : new String[] {"read", "write"}) {
            ObjectNode node = caps.putObject(side);
            node.putArray("containers").add(1);
            ArrayNode layouts = node.putArray("layouts");
            for (String layout : LAYOUTS) layouts.add(layout);
            if (side.equals("read")) layouts.add(MULTI_COLUMN);
            if (side.equals("read") && Boolean.getBoolean("kit.tables")) layouts.add("table");
        }
        return caps;
    }

    static ObjectNode handle(JsonNode request) throws Exception {
        ObjectNode answer = JSON.createObjectNode();
        switch (request.get("op").asText()) {
            case "capabilities": return capabilities();
            case "head": answer.set("head", head(request)); return answer;
            case "read": return read(request);
            case "scan": return scan(request);
            case "rows": return rows(request);
            case "write": return write(request);
            default: answer.put("error", "unknown op " + request.get("op")); return answer;
        }
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    static FileIndexFormat.Reader open(String file, RowType rowType) throws Exception {
        byte[] data = Files.readAllBytes(Paths.get(file));
        return FileIndexFormat.createReader(new ByteArraySeekableStream(data), rowType);
    }

    static ObjectNode head(JsonNode request) throws Exception {
        ObjectNode head = JSON.createObjectNode();
        ArrayNode columns = head.putArray("columns");
        try (FileIndexFormat.Reader reader = open(request.get("file").asText(), RowType.of())) {
            for (Map.Entry<String, Map<String, byte[]>> column : reader.readAll().entrySet()) {
                ObjectNode node = columns.addObject();
                node.put("column", column.getKey());
                ArrayNode indexes = node.putArray("indexes");
                for (Map.Entry<String, byte[]> entry : column.getValue().entrySet()) {
                    ObjectNode index = indexes.addObject();
                    index.put("index_type", entry.getKey());
                    if (entry.getValue() == null) index.putNull("payload_sha256");
                    else index.put("payload_sha256", sha256(entry.getValue()));
                }
            }
        }
        return head;
    }

    static ObjectNode read(JsonNode request) throws Exception {
        List<DataField> fields = new ArrayList<>();
        Map<String, DataType> types = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = request.get("schema").fields();
        for (int id = 0; it.hasNext(); id++) {
            Map.Entry<String, JsonNode> field = it.next();
            DataType type;
            try {
                type = DataTypeJsonParser.parseAtomicTypeSQLString(field.getValue().asText());
            } catch (RuntimeException notAtomic) {  // e.g. a MAP: 0.9.0 indexes no map keys; a predicate on it fails
                continue;
            }
            fields.add(new DataField(id, field.getKey(), type));
            types.put(field.getKey(), type);
        }
        try (FileIndexFormat.Reader reader = open(request.get("file").asText(), new RowType(fields))) {
            return answer(evaluate(reader, types, request.get("where")));
        }
    }

    // Java's FileIndexPredicate, with results rather than booleans: a column's indexes ANDed,
    // And / Or folded with FileIndexResult.and / or; a column without an index remains.
    static FileIndexResult evaluate(FileIndexFormat.Reader reader, Map<String, DataType> types, JsonNode form) {
        String function = form.get("function").asText();
        if (function.equals("And") || function.equals("Or")) {
            FileIndexResult result = null;
            for (JsonNode child : form.get("children")) {
                FileIndexResult next = evaluate(reader, types, child);
                result = result == null ? next : function.equals("And") ? result.and(next) : result.or(next);
            }
            return result;
        }
        String column = form.get("column").asText();
        DataType type = types.get(column);
        if (type == null) throw new IllegalArgumentException("column " + column + " is not in the schema");
        FieldRef field = new FieldRef(0, column, type);
        List<Object> literals = new ArrayList<>();
        for (JsonNode literal : form.get("literals")) literals.add(value(type, literal));
        FileIndexResult result = null;
        Set<FileIndexReader> readers = reader.readColumnIndex(column);
        for (FileIndexReader index : readers) {
            FileIndexResult next = visit(index, field, function, literals);
            result = result == null ? next : result.and(next);
        }
        return result == null ? FileIndexResult.REMAIN : result;
    }

    static FileIndexResult visit(FileIndexReader reader, FieldRef field, String function, List<Object> literals) {
        switch (function) {
            case "IsNull": return reader.visitIsNull(field);
            case "IsNotNull": return reader.visitIsNotNull(field);
            case "Equal": return reader.visitEqual(field, literals.get(0));
            case "NotEqual": return reader.visitNotEqual(field, literals.get(0));
            case "LessThan": return reader.visitLessThan(field, literals.get(0));
            case "LessOrEqual": return reader.visitLessOrEqual(field, literals.get(0));
            case "GreaterThan": return reader.visitGreaterThan(field, literals.get(0));
            case "GreaterOrEqual": return reader.visitGreaterOrEqual(field, literals.get(0));
            case "In": return reader.visitIn(field, literals);
            case "NotIn": return reader.visitNotIn(field, literals);
            // Paimon 0.9.0 has no Between function: its PredicateBuilder.between builds And(>=, <=)
            case "Between": return reader.visitGreaterOrEqual(field, literals.get(0))
                    .and(reader.visitLessOrEqual(field, literals.get(1)));
            case "NotBetween": throw new Unsupported("Paimon 0.9.0 has no NotBetween");
            default: throw new IllegalArgumentException("unknown function " + function);
        }
    }

    /** A request beyond Paimon 0.9.0 (answered {"unsupported": ...}, not as an error Java raised). */
    static class Unsupported extends RuntimeException {
        Unsupported(String why) {
            super(why);
        }
    }

    static ObjectNode answer(FileIndexResult result) {
        ObjectNode answer = JSON.createObjectNode();
        if (result instanceof BitmapIndexResultLazy) {
            RoaringBitmap32 bitmap = ((BitmapIndexResultLazy) result).get();
            answer.put("result", "ROWS");
            ArrayNode ranges = answer.putArray("ranges");
            long first = -2, last = -2;
            for (Iterator<Integer> rows = bitmap.iterator(); rows.hasNext(); ) {
                long row = rows.next();
                if (row != last + 1) {
                    if (first >= 0) ranges.addArray().add(first).add(last);
                    first = row;
                }
                last = row;
            }
            if (first >= 0) ranges.addArray().add(first).add(last);
            return answer;
        }
        answer.put("result", result.remain() ? "REMAIN" : "SKIP");
        return answer;
    }

    static ObjectNode scan(JsonNode request) throws Exception {
        org.apache.paimon.fs.FileIO fileIO = org.apache.paimon.fs.local.LocalFileIO.create();
        org.apache.paimon.table.FileStoreTable table = org.apache.paimon.table.FileStoreTableFactory.create(
                fileIO, new org.apache.paimon.fs.Path(request.get("table").asText()));
        org.apache.paimon.predicate.Predicate predicate = predicate(request.get("where"), table.rowType());
        Map<String, String> verdicts = new java.util.TreeMap<>();
        for (org.apache.paimon.table.source.Split split : table.newReadBuilder().newScan().plan().splits()) {
            for (org.apache.paimon.io.DataFileMeta file : ((org.apache.paimon.table.source.DataSplit) split).dataFiles()) {
                verdicts.put(relative(split, file), "SKIP");
            }
        }
        List<org.apache.paimon.predicate.Predicate> filters = java.util.Collections.singletonList(predicate);
        for (org.apache.paimon.table.source.Split split
                : table.newReadBuilder().withFilter(predicate).newScan().plan().splits()) {
            org.apache.paimon.table.source.DataSplit data = (org.apache.paimon.table.source.DataSplit) split;
            org.apache.paimon.io.DataFilePathFactory paths =
                    table.store().pathFactory().createDataFilePathFactory(data.partition(), data.bucket());
            for (org.apache.paimon.io.DataFileMeta file : data.dataFiles()) {
                boolean skipped = org.apache.paimon.io.FileIndexSkipper.skip(fileIO, table.schema(), filters, paths, file);
                verdicts.put(relative(split, file), skipped ? "SKIP" : "REMAIN");
            }
        }
        ObjectNode answer = JSON.createObjectNode();
        ObjectNode files = answer.putObject("files");
        for (Map.Entry<String, String> verdict : verdicts.entrySet()) {
            files.putObject(verdict.getKey()).put("result", verdict.getValue());
        }
        return answer;
    }

    static ObjectNode rows(JsonNode request) throws Exception {
        org.apache.paimon.table.FileStoreTable table = org.apache.paimon.table.FileStoreTableFactory.create(
                org.apache.paimon.fs.local.LocalFileIO.create(), new org.apache.paimon.fs.Path(request.get("table").asText()));
        RowType rowType = table.rowType();
        org.apache.paimon.predicate.Predicate predicate = predicate(request.get("where"), rowType);
        org.apache.paimon.table.source.ReadBuilder builder = table.newReadBuilder().withFilter(predicate);
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode rows = answer.putArray("rows");
        try (org.apache.paimon.reader.RecordReader<org.apache.paimon.data.InternalRow> reader =
                     builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> {
                if (!predicate.test(row)) return;
                ArrayNode out = rows.addArray();
                for (int i = 0; i < rowType.getFieldCount(); i++) out.add(json(rowType.getTypeAt(i), row, i));
            });
        }
        return answer;
    }

    // A row's value in the kit's JSON spelling (the inverse of value()).
    static JsonNode json(DataType type, org.apache.paimon.data.InternalRow row, int i) {
        org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory nodes = JSON.getNodeFactory();
        if (row.isNullAt(i)) return nodes.nullNode();
        switch (type.getTypeRoot()) {
            case TINYINT: return nodes.numberNode(row.getByte(i));
            case SMALLINT: return nodes.numberNode(row.getShort(i));
            case INTEGER: case DATE: case TIME_WITHOUT_TIME_ZONE: return nodes.numberNode(row.getInt(i));
            case BIGINT: return nodes.numberNode(row.getLong(i));
            case FLOAT: return nodes.textNode(Float.toString(row.getFloat(i)));
            case DOUBLE: return nodes.textNode(Double.toString(row.getDouble(i)));
            case BOOLEAN: return nodes.booleanNode(row.getBoolean(i));
            case CHAR: case VARCHAR: return nodes.textNode(row.getString(i).toString());
            case BINARY: case VARBINARY: {
                ArrayNode bytes = nodes.arrayNode();
                for (byte b : row.getBinary(i)) bytes.add(b & 0xFF);
                return bytes;
            }
            case DECIMAL: {
                int precision = org.apache.paimon.types.DataTypeChecks.getPrecision(type);
                int scale = org.apache.paimon.types.DataTypeChecks.getScale(type);
                ObjectNode decimal = nodes.objectNode();
                decimal.put("decimal", row.getDecimal(i, precision, scale).toBigDecimal().toPlainString());
                decimal.put("precision", precision).put("scale", scale);
                return decimal;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                Timestamp t = row.getTimestamp(i, org.apache.paimon.types.DataTypeChecks.getPrecision(type));
                ObjectNode timestamp = nodes.objectNode();
                timestamp.put("millis", t.getMillisecond()).put("nanos_of_milli", t.getNanoOfMillisecond());
                return timestamp;
            }
            default: throw new IllegalArgumentException("type " + type);
        }
    }

    static String relative(org.apache.paimon.table.source.Split split, org.apache.paimon.io.DataFileMeta file) {
        return "bucket-" + ((org.apache.paimon.table.source.DataSplit) split).bucket() + "/" + file.fileName();
    }

    // A Paimon predicate of the table's row type from the structured form (0.9.0: Between is And(>=, <=)).
    static org.apache.paimon.predicate.Predicate predicate(JsonNode form, RowType rowType) throws Exception {
        String function = form.get("function").asText();
        if (function.equals("And") || function.equals("Or")) {
            List<org.apache.paimon.predicate.Predicate> children = new ArrayList<>();
            for (JsonNode child : form.get("children")) children.add(predicate(child, rowType));
            return function.equals("And") ? org.apache.paimon.predicate.PredicateBuilder.and(children)
                    : org.apache.paimon.predicate.PredicateBuilder.or(children);
        }
        String column = form.get("column").asText();
        int index = rowType.getFieldNames().indexOf(column);
        if (index < 0) throw new IllegalArgumentException("column " + column + " is not in the table");
        DataType type = rowType.getTypeAt(index);
        List<Object> literals = new ArrayList<>();
        for (JsonNode literal : form.get("literals")) literals.add(value(type, literal));
        org.apache.paimon.predicate.PredicateBuilder builder = new org.apache.paimon.predicate.PredicateBuilder(rowType);
        if (function.equals("Between")) return builder.between(index, literals.get(0), literals.get(1));
        if (function.equals("NotBetween")) throw new Unsupported("Paimon 0.9.0 has no NotBetween");
        org.apache.paimon.predicate.LeafFunction leaf = (org.apache.paimon.predicate.LeafFunction)
                Class.forName("org.apache.paimon.predicate." + function).getField("INSTANCE").get(null);
        return new org.apache.paimon.predicate.LeafPredicate(leaf, type, index, column, literals);
    }

    static ObjectNode write(JsonNode request) throws Exception {
        ObjectNode answer = JSON.createObjectNode();
        if (request.get("container_version").asInt() != 1) {
            answer.put("unsupported", "Paimon 0.9.0 writes container version 1 only");
            return answer;
        }
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(request.get("type").asText());
        Map<String, String> options = new HashMap<>();
        request.get("options").fields().forEachRemaining(e -> options.put(e.getKey(), e.getValue().asText()));
        String indexType = request.get("index_type").asText();
        FileIndexWriter writer = FileIndexer.create(indexType, type, Options.fromMap(options)).createWriter();
        JsonNode dataset = JSON.readTree(Files.readAllBytes(Paths.get(request.get("dataset").asText())));
        for (JsonNode value : dataset.get("values")) writer.writeRecord(value(type, value));
        Map<String, Map<String, byte[]>> columns = new HashMap<>();
        columns.computeIfAbsent(request.get("column").asText(), k -> new HashMap<>())
                .put(indexType, writer.serializedBytes());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (FileIndexFormat.Writer container = FileIndexFormat.createWriter(bytes)) {
            container.writeColumnIndexes(columns);
        }
        java.nio.file.Path out = Paths.get(request.get("out").asText());
        java.nio.file.Path partial = Paths.get(out + ".partial");
        Files.write(partial, bytes.toByteArray());
        Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING);
        answer.put("written", out.toString());
        return answer;
    }

    // A value in the kit's JSON spelling (the datasets' and the predicates' literals).
    static Object value(DataType type, JsonNode node) {
        if (node == null || node.isNull()) return null;
        switch (type.getTypeRoot()) {
            case TINYINT: return (byte) node.asInt();
            case SMALLINT: return (short) node.asInt();
            case INTEGER: case DATE: case TIME_WITHOUT_TIME_ZONE: return node.asInt();
            case BIGINT: return node.asLong();
            case FLOAT: return Float.parseFloat(node.asText());
            case DOUBLE: return Double.parseDouble(node.asText());
            case BOOLEAN: return node.asBoolean();
            case CHAR: case VARCHAR: return BinaryString.fromString(node.asText());
            case BINARY: case VARBINARY: {
                byte[] bytes = new byte[node.size()];
                for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) node.get(i).asInt();
                return bytes;
            }
            case DECIMAL:
                return Decimal.fromBigDecimal(new java.math.BigDecimal(node.get("decimal").asText()),
                        node.get("precision").asInt(), node.get("scale").asInt());
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromEpochMillis(node.get("millis").asLong(), node.get("nanos_of_milli").asInt());
            default: throw new IllegalArgumentException("type " + type);
        }
    }

    static String sha256(byte[] data) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(data)) hex.append(String.format("%02x", b));
        return hex.toString();
    }
}
