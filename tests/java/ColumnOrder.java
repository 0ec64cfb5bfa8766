// Prints the container column order that Paimon's FileIndexOptions + DataFileIndexWriter produce
// for a set of table options, using the real java.util.HashMap, to check fileindex.column_order.
// The map operations are those of Paimon's classes (spec section 11), without Paimon itself.
// One request per stdin line: "<released|for-each-index|per-column> <key hex> <value hex> ..." (UTF-8 hex);
// per-column: Paimon 0.9 to 1.1's writer, one maintainer (one index type) per column name;
// the answer is one line: "<column hex>:<type>,<type> ..." in container order.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

public class ColumnOrder {
    static final class Column {
        final String columnName;
        final String nestedColumnName;
        final boolean isNestedColumn;

        Column(String columnName, String nestedColumnName, boolean isNestedColumn) {
            this.columnName = columnName;
            this.nestedColumnName = nestedColumnName;
            this.isNestedColumn = isNestedColumn;
        }

        @Override public int hashCode() {
            return Arrays.hashCode(new Object[] {columnName, nestedColumnName, isNestedColumn});
        }

        @Override public boolean equals(Object obj) {
            if (!(obj instanceof Column)) return false;
            Column that = (Column) obj;
            return Objects.equals(columnName, that.columnName)
                    && Objects.equals(nestedColumnName, that.nestedColumnName)
                    && isNestedColumn == that.isNestedColumn;
        }
    }

    static String hex(String text) {
        StringBuilder s = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) s.append(String.format("%02x", b));
        return s.toString();
    }

    static String unhex(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return new String(b, StandardCharsets.UTF_8);
    }

    static String answer(String rule, Map<String, String> options) {
        // FileIndexOptions.setupOptions
        Map<Column, Map<String, Object>> indexTypeOptions = new HashMap<>();
        for (Map.Entry<String, String> entry : options.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith("file-index.") || !key.endsWith(".columns")) continue;
            String indexType = key.substring("file-index.".length(), key.length() - ".columns".length());
            for (String name : entry.getValue().split(",")) {
                String column = name.trim();
                int start = column.indexOf('[');
                Column c = start != -1 && column.endsWith("]")
                        ? new Column(column.substring(0, start), column.substring(start + 1, column.length() - 1), true)
                        : new Column(column, null, false);
                indexTypeOptions.computeIfAbsent(c, k -> new HashMap<>()).computeIfAbsent(indexType, t -> new Object());
            }
        }
        if (rule.equals("per-column")) return perColumn(indexTypeOptions);
        // DataFileIndexWriter's constructor: index type -> column name -> maintainer (a map's key writers)
        Map<String, Map<String, Object>> indexMaintainers = new HashMap<>();
        for (Map.Entry<Column, Map<String, Object>> entry : indexTypeOptions.entrySet()) {
            Column column = entry.getKey();
            for (String indexType : entry.getValue().keySet()) {
                Map<String, Object> column2maintainers = indexMaintainers.computeIfAbsent(indexType, k -> new HashMap<>());
                Object maintainer = column2maintainers.get(column.columnName);
                if (column.isNestedColumn) {
                    if (maintainer == null) {
                        maintainer = new HashMap<String, Object>();
                        column2maintainers.put(column.columnName, maintainer);
                    }
                    @SuppressWarnings("unchecked") Map<String, Object> keys = (Map<String, Object>) maintainer;
                    keys.put(column.nestedColumnName, new Object());
                } else if (maintainer == null) {
                    column2maintainers.put(column.columnName, "plain");
                }
            }
        }
        // serializeMaintainers (released) or forEachIndex (PR #10101)
        Map<String, Map<String, Object>> indexMaps = new HashMap<>();
        for (Map.Entry<String, Map<String, Object>> typeEntry : indexMaintainers.entrySet()) {
            String indexType = typeEntry.getKey();
            for (Map.Entry<String, Object> maintainer : typeEntry.getValue().entrySet()) {
                List<String> names = new ArrayList<>();
                if (maintainer.getValue() instanceof Map) {
                    @SuppressWarnings("unchecked") Map<String, Object> keys = (Map<String, Object>) maintainer.getValue();
                    if (rule.equals("released")) {
                        Map<String, Object> result = new HashMap<>();
                        keys.forEach((k, v) -> result.put(maintainer.getKey() + "[" + k + "]", v));
                        names.addAll(result.keySet());
                    } else {
                        for (String k : keys.keySet()) names.add(maintainer.getKey() + "[" + k + "]");
                    }
                } else {
                    names.add(maintainer.getKey());
                }
                for (String name : names) indexMaps.computeIfAbsent(name, k -> new HashMap<>()).put(indexType, new Object());
            }
        }
        return format(indexMaps);
    }

    // Paimon 0.9 to 1.1: column name -> maintainer, created by the first type met; a map column's keys
    // all join its one maintainer; serializeMaintainers puts each maintainer's names in a fresh map
    @SuppressWarnings("unchecked")
    static String perColumn(Map<Column, Map<String, Object>> indexTypeOptions) {
        Map<String, Object> maintainers = new HashMap<>();
        Map<String, String> typeOf = new HashMap<>();
        for (Map.Entry<Column, Map<String, Object>> entry : indexTypeOptions.entrySet()) {
            Column column = entry.getKey();
            for (String indexType : entry.getValue().keySet()) {
                Object maintainer = maintainers.get(column.columnName);
                if (maintainer == null) {
                    maintainer = column.isNestedColumn ? new HashMap<String, Object>() : "plain";
                    maintainers.put(column.columnName, maintainer);
                    typeOf.put(column.columnName, indexType);
                }
                if (column.isNestedColumn) ((Map<String, Object>) maintainer).put(column.nestedColumnName, new Object());
            }
        }
        Map<String, Map<String, Object>> indexMaps = new HashMap<>();
        for (Map.Entry<String, Object> maintainer : maintainers.entrySet()) {
            Map<String, Object> result = new HashMap<>();
            if (maintainer.getValue() instanceof Map) {
                ((Map<String, Object>) maintainer.getValue()).forEach(
                        (k, v) -> result.put(maintainer.getKey() + "[" + k + "]", v));
            } else {
                result.put(maintainer.getKey(), "plain");
            }
            for (String name : result.keySet())
                indexMaps.computeIfAbsent(name, k -> new HashMap<>()).put(typeOf.get(maintainer.getKey()), new Object());
        }
        return format(indexMaps);
    }

    static String format(Map<String, Map<String, Object>> indexMaps) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Map<String, Object>> column : indexMaps.entrySet()) {
            if (out.length() > 0) out.append(' ');
            out.append(hex(column.getKey())).append(':').append(String.join(",", column.getValue().keySet()));
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            Map<String, String> options = new HashMap<>();
            for (int i = 1; i + 1 < parts.length; i += 2) options.put(unhex(parts[i]), unhex(parts[i + 1]));
            System.out.println(answer(parts[0], options));
            System.out.flush();
        }
    }
}
