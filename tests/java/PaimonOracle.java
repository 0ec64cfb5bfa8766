// A live Java Paimon (0.9.0, from the pypaimon 0.2.0 sdist) answering batched JSON requests, one per
// line on stdin, one JSON answer per line on stdout. Our own test harness; it calls Paimon's public
// file-index API only:
//   {"op":"build","type":"INT","index":"bitmap","options":{...},"values":[...]}      -> {"payload":"<hex>"}
//   {"op":"query","type":"INT","index":"bitmap","payload":"<hex>","queries":[...]}   -> {"results":[...]}
//   {"op":"container","columns":[["c","bloom-filter","<hex>" or null], ...]}          -> {"payload":"<hex>"}
//   {"op":"write_table","warehouse":"/dir","table":"t","columns":[["f0","STRING"], ...],
//    "options":{...},"commits":[[[row values], ...], ...], "partition_keys":[...]}   -> {"path":"<table root>"}
//   {"op":"predicate_text","predicate":<structured form, docs/conformance.md>}        -> {"text":"<toString>"}
//   {"op":"alter_columns","warehouse":"/dir","table":"t",
//    "changes":[["drop","c"], ["add","c","STRING"], ["rename","a","b"], ["type","c","BIGINT"]]} -> {"schemas":n}
//   (each change its own ALTER TABLE, i.e. its own schema, as a user would run them)
//   (write_table with "branch":"b" appends to that branch of an existing table;
//   write_table needs the Hadoop client jars on the classpath, as Paimon's Parquet writer does;
//   on an existing table it appends the commits, given the same columns and options)
// Values: numbers; floats as strings (NaN, -0.0, Infinity); strings; booleans; timestamps as
// {"millis","nanos"}; decimals as strings; null. A query is {"name": eq|neq|lt|lte|gt|gte|in|not_in|is_null|is_not_null,
// "literal" or "literals"}; a result is "REMAIN", "SKIP", {"rows":[...]} or {"error":"..."}.
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.paimon.data.BinaryString;
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
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.utils.RoaringBitmap32;

public class PaimonOracle {
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
                    case "build": answer.put("payload", hex(build(request))); break;
                    case "query": answer.set("results", query(request)); break;
                    case "container": answer.put("payload", hex(container(request))); break;
                    case "write_table": answer.put("path", writeTable(request)); break;
                    case "alter_columns": answer.put("schemas", alterColumns(request)); break;
                    case "predicate_text": answer.put("text", predicate(request.get("predicate")).toString()); break;
                    default: throw new IllegalArgumentException("unknown op");
                }
            } catch (Throwable t) {
                answer.put("error", describe(t));
            }
            out.println(JSON.writeValueAsString(answer));
        }
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    static Options options(JsonNode node) {
        Map<String, String> map = new HashMap<>();
        if (node != null) node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        return Options.fromMap(map);
    }

    static byte[] build(JsonNode request) {
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(request.get("type").asText());
        FileIndexer indexer = FileIndexer.create(request.get("index").asText(), type, options(request.get("options")));
        FileIndexWriter writer = indexer.createWriter();
        for (JsonNode value : request.get("values")) writer.writeRecord(value(type, value));
        return writer.serializedBytes();
    }

    static ArrayNode query(JsonNode request) throws Exception {
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(request.get("type").asText());
        byte[] payload = unhex(request.get("payload").asText());
        FileIndexer indexer = FileIndexer.create(request.get("index").asText(), type, options(request.get("options")));
        FieldRef field = new FieldRef(0, "c", type);
        ArrayNode results = JSON.createArrayNode();
        for (JsonNode q : request.get("queries")) {
            try {
                FileIndexReader reader = indexer.createReader(new ByteArraySeekableStream(payload), 0, payload.length);
                results.add(result(visit(reader, field, type, q)));
            } catch (Throwable t) {
                ObjectNode error = JSON.createObjectNode();
                error.put("error", describe(t));
                results.add(error);
            }
        }
        return results;
    }

    static FileIndexResult visit(FileIndexReader reader, FieldRef field, DataType type, JsonNode q) {
        String name = q.get("name").asText();
        switch (name) {
            case "is_null": return reader.visitIsNull(field);
            case "is_not_null": return reader.visitIsNotNull(field);
            case "in": case "not_in": {
                List<Object> literals = new ArrayList<>();
                for (JsonNode v : q.get("literals")) literals.add(value(type, v));
                return name.equals("in") ? reader.visitIn(field, literals) : reader.visitNotIn(field, literals);
            }
            default: break;
        }
        Object literal = value(type, q.get("literal"));
        switch (name) {
            case "eq": return reader.visitEqual(field, literal);
            case "neq": return reader.visitNotEqual(field, literal);
            case "lt": return reader.visitLessThan(field, literal);
            case "lte": return reader.visitLessOrEqual(field, literal);
            case "gt": return reader.visitGreaterThan(field, literal);
            case "gte": return reader.visitGreaterOrEqual(field, literal);
            default: throw new IllegalArgumentException("unknown query " + name);
        }
    }

    static JsonNode result(FileIndexResult result) {
        if (result == null) return JSON.getNodeFactory().textNode("NULL");
        if (result == FileIndexResult.REMAIN) return JSON.getNodeFactory().textNode("REMAIN");
        if (result == FileIndexResult.SKIP) return JSON.getNodeFactory().textNode("SKIP");
        if (result instanceof BitmapIndexResultLazy) {
            RoaringBitmap32 bitmap = ((BitmapIndexResultLazy) result).get();
            ObjectNode node = JSON.createObjectNode();
            ArrayNode rows = node.putArray("rows");
            for (Iterator<Integer> it = bitmap.iterator(); it.hasNext(); ) rows.add(it.next());
            return node;
        }
        return JSON.getNodeFactory().textNode(result.remain() ? "REMAIN" : "SKIP");
    }

    static byte[] container(JsonNode request) throws Exception {
        Map<String, Map<String, byte[]>> columns = new HashMap<>();
        for (JsonNode entry : request.get("columns")) {
            JsonNode payload = entry.get(2);
            columns.computeIfAbsent(entry.get(0).asText(), k -> new HashMap<>())
                    .put(entry.get(1).asText(), payload.isNull() ? null : unhex(payload.asText()));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (FileIndexFormat.Writer writer = FileIndexFormat.createWriter(bytes)) {
            writer.writeColumnIndexes(columns);
        }
        return bytes.toByteArray();
    }

    static org.apache.paimon.catalog.Catalog catalog(JsonNode request) {
        Options catalogOptions = new Options();
        catalogOptions.set("warehouse", request.get("warehouse").asText());
        return org.apache.paimon.catalog.CatalogFactory.createCatalog(
                org.apache.paimon.catalog.CatalogContext.create(catalogOptions));
    }

    static int alterColumns(JsonNode request) throws Exception {
        org.apache.paimon.catalog.Catalog catalog = catalog(request);
        org.apache.paimon.catalog.Identifier id = org.apache.paimon.catalog.Identifier.create("db",
                request.get("table").asText());
        int count = 0;
        for (JsonNode change : request.get("changes")) {
            String kind = change.get(0).asText();
            String name = change.get(1).asText();
            org.apache.paimon.schema.SchemaChange schemaChange;
            if (kind.equals("drop")) schemaChange = org.apache.paimon.schema.SchemaChange.dropColumn(name);
            else if (kind.equals("add")) schemaChange = org.apache.paimon.schema.SchemaChange.addColumn(name,
                    DataTypeJsonParser.parseAtomicTypeSQLString(change.get(2).asText()));
            else if (kind.equals("rename")) schemaChange = org.apache.paimon.schema.SchemaChange.renameColumn(name,
                    change.get(2).asText());
            else if (kind.equals("type")) schemaChange = org.apache.paimon.schema.SchemaChange.updateColumnType(name,
                    DataTypeJsonParser.parseAtomicTypeSQLString(change.get(2).asText()));
            else throw new IllegalArgumentException("unknown column change " + kind);
            catalog.alterTable(id, java.util.Collections.singletonList(schemaChange), false);
            count++;
        }
        return count;
    }

    static String writeTable(JsonNode request) throws Exception {
        org.apache.paimon.catalog.Catalog catalog = catalog(request);
        catalog.createDatabase("db", true);
        org.apache.paimon.schema.Schema.Builder schema = org.apache.paimon.schema.Schema.newBuilder();
        List<DataType> types = new ArrayList<>();
        for (JsonNode column : request.get("columns")) {
            DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(column.get(1).asText());
            types.add(type);
            schema.column(column.get(0).asText(), type);
        }
        request.get("options").fields().forEachRemaining(e -> schema.option(e.getKey(), e.getValue().asText()));
        if (request.has("partition_keys")) {
            List<String> keys = new ArrayList<>();
            for (JsonNode key : request.get("partition_keys")) keys.add(key.asText());
            schema.partitionKeys(keys);
        }
        org.apache.paimon.catalog.Identifier id = org.apache.paimon.catalog.Identifier.create("db",
                request.get("table").asText());
        catalog.createTable(id, schema.build(), true);  // an existing table gets the commits appended
        org.apache.paimon.table.Table table = catalog.getTable(id);
        if (request.has("branch"))
            table = ((org.apache.paimon.table.FileStoreTable) table).switchToBranch(request.get("branch").asText());
        for (JsonNode commitRows : request.get("commits")) {
            org.apache.paimon.table.sink.BatchWriteBuilder builder = table.newBatchWriteBuilder();
            try (org.apache.paimon.table.sink.BatchTableWrite write = builder.newWrite();
                    org.apache.paimon.table.sink.BatchTableCommit commit = builder.newCommit()) {
                for (JsonNode row : commitRows) {
                    Object[] fields = new Object[types.size()];
                    for (int i = 0; i < fields.length; i++) fields[i] = value(types.get(i), row.get(i));
                    write.write(org.apache.paimon.data.GenericRow.of(fields));
                }
                commit.commit(write.prepareCommit());
            }
        }
        return catalog.getTableLocation(id).toString();
    }

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
            case DECIMAL: {
                org.apache.paimon.types.DecimalType decimal = (org.apache.paimon.types.DecimalType) type;
                return org.apache.paimon.data.Decimal.fromBigDecimal(new java.math.BigDecimal(node.asText()),
                        decimal.getPrecision(), decimal.getScale());
            }
            case CHAR: case VARCHAR: return BinaryString.fromString(node.asText());
            case BINARY: case VARBINARY: return unhex(node.asText());
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromEpochMillis(node.get("millis").asLong(), node.get("nanos").asInt());
            default: throw new IllegalArgumentException("type " + type);
        }
    }

    // A predicate from its structured form: Java's own classes, so that toString is Java's.
    static org.apache.paimon.predicate.Predicate predicate(JsonNode form) throws Exception {
        String function = form.get("function").asText();
        if (function.equals("And") || function.equals("Or")) {
            List<org.apache.paimon.predicate.Predicate> children = new ArrayList<>();
            for (JsonNode child : form.get("children")) children.add(predicate(child));
            return new org.apache.paimon.predicate.CompoundPredicate(function.equals("And")
                    ? org.apache.paimon.predicate.And.INSTANCE : org.apache.paimon.predicate.Or.INSTANCE, children);
        }
        org.apache.paimon.predicate.LeafFunction leaf = (org.apache.paimon.predicate.LeafFunction)
                Class.forName("org.apache.paimon.predicate." + function).getField("INSTANCE").get(null);
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(form.get("type").asText());
        List<Object> literals = new ArrayList<>();
        for (JsonNode literal : form.get("literals")) literals.add(structuredLiteral(type, literal));
        return new org.apache.paimon.predicate.LeafPredicate(leaf, type, 0, form.get("column").asText(), literals);
    }

    static Object structuredLiteral(DataType type, JsonNode node) {
        if (node == null || node.isNull()) return null;
        switch (type.getTypeRoot()) {
            case DECIMAL:
                return org.apache.paimon.data.Decimal.fromBigDecimal(new java.math.BigDecimal(node.get("decimal").asText()),
                        node.get("precision").asInt(), node.get("scale").asInt());
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromEpochMillis(node.get("millis").asLong(), node.get("nanos_of_milli").asInt());
            default: return value(type, node);
        }
    }

    static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte b : bytes) s.append(String.format("%02x", b));
        return s.toString();
    }

    static byte[] unhex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return out;
    }
}
