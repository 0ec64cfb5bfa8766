// Prints java.util.HashMap iteration orders for key sequences, to check fileindex.java_hashmap.
// One request per stdin line: "<kind> <put|cia> <key> <key> ..."; one answer line per request.
// Kinds: int, long, short, byte, bool, float (int bits), double (long bits), bstr (hex bytes;
// a stand-in with Paimon BinaryString's hashCode and compareTo).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class HashMapOrder {
    static final class BStr implements Comparable<BStr> {
        final byte[] bytes;
        BStr(byte[] bytes) { this.bytes = bytes; }
        @Override public boolean equals(Object o) {
            return o instanceof BStr && java.util.Arrays.equals(bytes, ((BStr) o).bytes);
        }
        @Override public int hashCode() {
            int h = 42;
            int aligned = bytes.length - bytes.length % 4;
            for (int i = 0; i < aligned; i += 4) {
                int k = (bytes[i] & 0xff) | (bytes[i + 1] & 0xff) << 8 | (bytes[i + 2] & 0xff) << 16 | (bytes[i + 3] & 0xff) << 24;
                h = mix(h, k);
            }
            for (int i = aligned; i < bytes.length; i++) h = mix(h, bytes[i]);
            h ^= bytes.length;
            h ^= h >>> 16; h *= 0x85ebca6b; h ^= h >>> 13; h *= 0xc2b2ae35; h ^= h >>> 16;
            return h;
        }
        static int mix(int h, int k) {
            k *= 0xcc9e2d51; k = Integer.rotateLeft(k, 15); k *= 0x1b873593;
            h ^= k; h = Integer.rotateLeft(h, 13); return h * 5 + 0xe6546b64;
        }
        @Override public int compareTo(BStr o) {
            int n = Math.min(bytes.length, o.bytes.length);
            for (int i = 0; i < n; i++) {
                int c = (bytes[i] & 0xff) - (o.bytes[i] & 0xff);
                if (c != 0) return c;
            }
            return bytes.length - o.bytes.length;
        }
        @Override public String toString() {
            StringBuilder s = new StringBuilder("x");
            for (byte b : bytes) s.append(String.format("%02x", b));
            return s.toString();
        }
    }

    static Object parse(String kind, String token) {
        switch (kind) {
            case "int": return Integer.parseInt(token);
            case "long": return Long.parseLong(token);
            case "short": return Short.parseShort(token);
            case "byte": return Byte.parseByte(token);
            case "bool": return Boolean.parseBoolean(token);
            case "float": return Float.intBitsToFloat(Integer.parseInt(token));
            case "double": return Double.longBitsToDouble(Long.parseLong(token));
            case "bstr": {
                String hex = token.substring(1);
                byte[] b = new byte[hex.length() / 2];
                for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
                return new BStr(b);
            }
            default: throw new IllegalArgumentException(kind);
        }
    }

    static String show(String kind, Object key) {
        if (kind.equals("float")) return Integer.toString(Float.floatToIntBits((Float) key));
        if (kind.equals("double")) return Long.toString(Double.doubleToLongBits((Double) key));
        return key.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            String kind = parts[0];
            boolean put = parts[1].equals("put");
            Map<Object, Boolean> map = new HashMap<>();
            for (int i = 2; i < parts.length; i++) {
                Object key = parse(kind, parts[i]);
                if (put) map.put(key, Boolean.TRUE); else map.computeIfAbsent(key, k -> Boolean.TRUE);
            }
            List<String> out = new ArrayList<>();
            for (Object key : map.keySet()) out.add(show(kind, key));
            System.out.println(String.join(" ", out));
            System.out.flush();
        }
    }
}
