// Answers what Java's number semantics give, to check fileindex.java_numbers against the JDK itself.
// One request per stdin line: "<op> <operand> <operand> ...", operands as hex bit patterns (a long's
// two's-complement bits, or a double's / float's IEEE bits); the answer is one line, one decimal
// result per operand (per pair of operands for the compares).
//   int     (int) of a long               d2i    (int) of a double
//   d2l     (long) of a double             round  Math.round(double)
//   f2b     floatToIntBits of raw bits     d2b    doubleToLongBits of raw bits
//   fcmp / dcmp  Float.compare / Double.compare of a pair
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.StringJoiner;

public class JavaNumbers {
    static long bits(String hex) {
        return Long.parseUnsignedLong(hex, 16);
    }

    static String answer(String op, String[] operands) {
        StringJoiner out = new StringJoiner(" ");
        boolean pairs = op.equals("fcmp") || op.equals("dcmp");
        for (int i = 1; i < operands.length; i += pairs ? 2 : 1) {
            long x = bits(operands[i]);
            double d = Double.longBitsToDouble(x);
            float f = Float.intBitsToFloat((int) x);
            switch (op) {
                case "int": out.add(Integer.toString((int) x)); break;
                case "d2i": out.add(Integer.toString((int) d)); break;
                case "d2l": out.add(Long.toString((long) d)); break;
                case "round": out.add(Long.toString(Math.round(d))); break;
                case "f2b": out.add(Integer.toString(Float.floatToIntBits(f))); break;
                case "d2b": out.add(Long.toString(Double.doubleToLongBits(d))); break;
                case "fcmp":
                    out.add(Integer.toString(Float.compare(f, Float.intBitsToFloat((int) bits(operands[i + 1])))));
                    break;
                case "dcmp":
                    out.add(Integer.toString(Double.compare(d, Double.longBitsToDouble(bits(operands[i + 1])))));
                    break;
                default: throw new IllegalArgumentException(op);
            }
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] operands = line.trim().split(" ");
            System.out.println(answer(operands[0], operands));
            System.out.flush();
        }
    }
}
