// Java Paimon 0.9.0's own file-index code timed on the benchmark datasets, in the same run as
// tools/bench.py (which compiles and starts this program; see tools/bench_reference/java-performance.md
// for the dataset recipes, generated here from the same SplitMix64 definitions).
// Prints one line per row: "<java row name>\t<median seconds per op>\t<check value>\t<median CPU seconds per op>"
// (the CPU time of the timing thread: the JIT and the collector run on others).
// "PaimonBench tables WAREHOUSE FILES ROWS REPEAT" instead times table planning
// (tools/bench_planning.py): it writes, when absent, two append tables of FILES data files of ROWS rows in
// one commit (bloom-filter on k, bitmap on cat; one with the indexes embedded in the manifest, one with
// sidecars) and times ReadBuilder.withFilter(...).newScan().plan() for k = (a value of one row) and cat = 'recalled';
// each also with a manifest cache as CachingCatalog sets it by default ("... (manifest cache)"); the check
// value is the number of data files the plan keeps.
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fileindex.FileIndexFormat;
import org.apache.paimon.fileindex.FileIndexReader;
import org.apache.paimon.fileindex.FileIndexResult;
import org.apache.paimon.fileindex.FileIndexWriter;
import org.apache.paimon.fileindex.FileIndexer;
import org.apache.paimon.fileindex.bitmap.BitmapIndexResultLazy;
import org.apache.paimon.fs.ByteArraySeekableStream;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.predicate.FieldRef;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

public class PaimonBench {
    static final int N = 1_000_000;
    static int repeat = 5;

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long r(long seed, long i) { return mix64(seed + (i + 1) * 0x9E3779B97F4A7C15L); }

    static long u(long seed, long i, long n) { return Long.remainderUnsigned(r(seed, i), n); }

    static String hex(long x, int digits) {
        String full = String.format("%016x", x);
        return full.substring(16 - digits);
    }

    static long[] bigint1m() {
        long[] v = new long[N];
        for (int i = 0; i < N; i++) v[i] = u(1, i, 2000000001L) - 1000000000L;
        return v;
    }

    static BinaryString[] string1mAvg16() {
        BinaryString[] v = new BinaryString[N];
        for (int i = 0; i < N; i++) {
            String s = hex(r(3, i), 16) + hex(r(4, i), 16);
            v[i] = BinaryString.fromString(s.substring(0, 8 + (int) u(2, i, 17)));
        }
        return v;
    }

    static BinaryString[] card1kKeys() {
        BinaryString[] keys = new BinaryString[1000];
        for (int j = 0; j < 1000; j++) keys[j] = BinaryString.fromString(String.format("k%04d-", j) + hex(r(5, j) >>> 32, 8));
        return keys;
    }

    static BinaryString[] string1mCard1k() {
        BinaryString[] keys = card1kKeys();
        BinaryString[] v = new BinaryString[N];
        for (int i = 0; i < N; i++) v[i] = u(7, i, 100) == 0 ? null : keys[(int) u(6, i, 1000)];
        return v;
    }

    static Integer[] int1mCard100k() {
        Integer[] v = new Integer[N];
        for (int i = 0; i < N; i++) v[i] = u(9, i, 100) == 0 ? null : (int) (u(8, i, 100000) - 50000);
        return v;
    }

    interface Op { Object run() throws Exception; }

    static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    static double cpuPerOp;  // the median CPU seconds per op of the last median or medianWithSetup, printed by row()

    static double medianCpu(double[] cpu, double perOp) {
        Arrays.sort(cpu);
        return cpu[repeat / 2] / perOp;
    }

    /** Median seconds of `repeat` timed runs of op (after two warm-up runs), divided by perOp. */
    static double median(Op op, double perOp) throws Exception {
        op.run();
        op.run();
        double[] t = new double[repeat], cpu = new double[repeat];
        for (int k = 0; k < repeat; k++) {
            long cpuStart = THREADS.getCurrentThreadCpuTime(), start = System.nanoTime();
            op.run();
            t[k] = (System.nanoTime() - start) / 1e9;
            cpu[k] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        }
        cpuPerOp = medianCpu(cpu, perOp);
        Arrays.sort(t);
        return t[repeat / 2] / perOp;
    }

    interface Timed<S> { Object run(S state) throws Exception; }

    /**
     * Like median, with an untimed setup() before each run whose value op receives (as tools/bench.py does).
     * 20 warm-up runs first: these queries take microseconds, and the JIT compiles them only after many calls.
     */
    static <S> double medianWithSetup(Supplier<S> setup, Timed<S> op, double perOp) throws Exception {
        for (int k = 0; k < 20; k++) op.run(setup.get());
        double[] t = new double[repeat], cpu = new double[repeat];
        for (int k = 0; k < repeat; k++) {
            S state = setup.get();
            long cpuStart = THREADS.getCurrentThreadCpuTime(), start = System.nanoTime();
            op.run(state);
            t[k] = (System.nanoTime() - start) / 1e9;
            cpu[k] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        }
        cpuPerOp = medianCpu(cpu, perOp);
        Arrays.sort(t);
        return t[repeat / 2] / perOp;
    }

    static void row(String name, double seconds, Object check) {
        System.out.println(name + "\t" + seconds + "\t" + check + "\t" + cpuPerOp);
        System.out.flush();
    }

    static String sha256(byte[] data) throws Exception {
        StringBuilder s = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(data)) s.append(String.format("%02x", b));
        return s.toString();
    }

    static Options options(String... kv) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) map.put(kv[i], kv[i + 1]);
        return Options.fromMap(map);
    }

    static byte[] build(FileIndexer indexer, Object[] values) {
        FileIndexWriter writer = indexer.createWriter();
        for (Object v : values) writer.writeRecord(v);
        return writer.serializedBytes();
    }

    static FileIndexReader reader(FileIndexer indexer, byte[] payload) {
        return indexer.createReader(new ByteArraySeekableStream(payload), 0, payload.length);
    }

    static void bloom(String name, DataType type, Object[] values, Object[] probes) throws Exception {
        FileIndexer indexer = FileIndexer.create("bloom-filter", type, options("items", "1000000", "fpp", "0.01"));
        byte[][] payload = new byte[1][];
        row("bloom build " + name + " (1M rows, items=1M, fpp=0.01)",
            median(() -> payload[0] = build(indexer, values), N), sha256(payload[0]));
        FieldRef field = new FieldRef(0, "c", type);
        FileIndexReader open = reader(indexer, payload[0]);
        int[] skips = new int[1];
        row("bloom lookup " + name + " (100k visitEqual)", median(() -> {
            int s = 0;
            for (Object p : probes) if (!open.visitEqual(field, p).remain()) s++;
            skips[0] = s;
            return s;
        }, probes.length), skips[0]);
        row("bloom open reader " + name, median(() -> reader(indexer, payload[0]), 1), payload[0].length);
    }

    static long cardinality(FileIndexResult result) {
        return ((BitmapIndexResultLazy) result).get().getCardinality();
    }

    /** The bitmap V1 rows; the warm rows get a new reader whose metadata was read (untimed) before each run. */
    static void bitmap(String name, DataType type, Object[] values, Object eq, Object absent, Object[] eq100,
                       Object[] in10) throws Exception {
        FileIndexer indexer = FileIndexer.create("bitmap", type, options());
        byte[][] payload = new byte[1][];
        row("bitmap v1 build " + name, median(() -> payload[0] = build(indexer, values), N), sha256(payload[0]));
        FieldRef field = new FieldRef(0, "c", type);
        long[] card = new long[1];
        row("bitmap v1 eq cold (new reader, meta read + 1 eq) " + name,
            median(() -> card[0] = cardinality(reader(indexer, payload[0]).visitEqual(field, eq)), 1), card[0]);
        Supplier<FileIndexReader> warm = () -> {  // Supplier.get cannot throw: cardinality does not
            FileIndexReader reader = reader(indexer, payload[0]);
            cardinality(reader.visitEqual(field, absent));  // results are lazy: get() reads the metadata
            return reader;
        };
        row("bitmap v1 eq x100 distinct values (meta warm) " + name, medianWithSetup(warm, r -> {
            long sum = 0;
            for (Object v : eq100) sum += cardinality(r.visitEqual(field, v));
            return card[0] = sum;
        }, eq100.length), card[0]);
        List<Object> inList = Arrays.asList(in10);
        row("bitmap v1 IN 10 values (meta warm) " + name,
            medianWithSetup(warm, r -> card[0] = cardinality(r.visitIn(field, inList)), 1), card[0]);
        row("bitmap v1 NOT IN 10 values (meta warm) " + name,
            medianWithSetup(warm, r -> card[0] = cardinality(r.visitNotIn(field, inList)), 1), card[0]);
        row("bitmap v1 IS NULL (meta warm) " + name,
            medianWithSetup(warm, r -> card[0] = cardinality(r.visitIsNull(field)), 1), card[0]);
    }

    static final String[] CATEGORIES = {"books", "garden", "toys", "games", "music", "tools", "food", "shoes"};

    /** Row i of file f of a planning table: k spans the whole long range in every file, so min/max cannot prune. */
    static org.apache.paimon.data.GenericRow tableRow(int f, int rows, int i) {
        long id = (long) f * rows + i;
        String cat = (f % 500 == 7 && i == 0) ? "recalled" : CATEGORIES[(int) u(21, id, CATEGORIES.length)];
        return org.apache.paimon.data.GenericRow.of(id, r(20, id), BinaryString.fromString(cat));
    }

    static org.apache.paimon.table.FileStoreTable planningTable(String root, int files, int rows, String threshold)
            throws Exception {
        org.apache.paimon.fs.FileIO io = org.apache.paimon.fs.local.LocalFileIO.create();
        org.apache.paimon.fs.Path path = new org.apache.paimon.fs.Path(root);
        boolean exists = new java.io.File(root, "snapshot/snapshot-1").isFile();
        if (!exists) {
            org.apache.paimon.schema.Schema schema = org.apache.paimon.schema.Schema.newBuilder()
                    .column("id", DataTypes.BIGINT()).column("k", DataTypes.BIGINT()).column("cat", DataTypes.STRING())
                    .option("bucket", "-1").option("write-only", "true")
                    .option("file-index.bloom-filter.columns", "k").option("file-index.bloom-filter.k.items", "" + rows)
                    .option("file-index.bloom-filter.k.fpp", "0.01").option("file-index.bitmap.columns", "cat")
                    .option("file-index.in-manifest-threshold", threshold).build();
            new org.apache.paimon.schema.SchemaManager(io, path).createTable(schema);
        }
        org.apache.paimon.table.FileStoreTable table = FileStoreTableFactory.create(io, path);
        if (!exists) {
            org.apache.paimon.table.sink.StreamWriteBuilder builder = table.newStreamWriteBuilder();
            List<org.apache.paimon.table.sink.CommitMessage> messages = new ArrayList<>();
            try (org.apache.paimon.table.sink.StreamTableWrite write = builder.newWrite();
                    org.apache.paimon.table.sink.StreamTableCommit commit = builder.newCommit()) {
                for (int f = 0; f < files; f++) {  // each prepareCommit closes the file being written
                    for (int i = 0; i < rows; i++) write.write(tableRow(f, rows, i));
                    messages.addAll(write.prepareCommit(false, f));
                }
                commit.commit(files, messages);
            }
        }
        return table;
    }

    static void tables(String[] args) throws Exception {
        String warehouse = args[1];
        int files = Integer.parseInt(args[2]), rows = Integer.parseInt(args[3]);
        repeat = Integer.parseInt(args[4]);
        long key = r(20, (long) (files / 2) * rows + 5);  // a k of one row of the middle file
        String category = "recalled";
        for (String[] kind : new String[][] {{"embedded", "1 mb"}, {"sidecar", "1 b"}}) {
            String root = warehouse + "/" + kind[0] + "-" + files + "x" + rows;
            org.apache.paimon.table.FileStoreTable table = planningTable(root, files, rows, kind[1]);
            System.out.println("table\t" + kind[0] + "\t" + root + "\t" + key);
            org.apache.paimon.predicate.PredicateBuilder where = new org.apache.paimon.predicate.PredicateBuilder(
                    table.rowType());
            Object[][] filters = {{"k = " + key, where.equal(1, key)},
                                  {"cat = '" + category + "'", where.equal(2, BinaryString.fromString(category))}};
            // As CachingCatalog (catalog option cache-enabled, default true) sets every table it hands out: a cache
            // of manifest files under cache.manifest.small-file-threshold (1 MiB), cache.manifest.small-file-memory
            // (128 MiB) in all. FileStoreTableFactory.create leaves it unset: every plan reads the manifests.
            org.apache.paimon.table.FileStoreTable cached = planningTable(root, files, rows, kind[1]);  // another instance
            cached.setManifestCache(org.apache.paimon.utils.SegmentsCache.create(
                    org.apache.paimon.options.MemorySize.ofMebiBytes(128),
                    org.apache.paimon.options.MemorySize.ofMebiBytes(1).getBytes()));
            for (Object[] filter : filters) {
                org.apache.paimon.predicate.Predicate predicate = (org.apache.paimon.predicate.Predicate) filter[1];
                String[][] variants = {{"", null}, {" (manifest cache)", "cached"}};
                for (String[] variant : variants) {
                    org.apache.paimon.table.FileStoreTable planned = variant[1] == null ? table : cached;
                    long[] kept = new long[1];
                    double seconds = medianWithSetup(() -> null, state -> {
                        long n = 0;
                        for (org.apache.paimon.table.source.Split split :
                                planned.newReadBuilder().withFilter(predicate).newScan().plan().splits()) {
                            n += ((org.apache.paimon.table.source.DataSplit) split).dataFiles().size();
                        }
                        return kept[0] = n;
                    }, 1);
                    row("table plan " + kind[0] + " " + files + " files: " + filter[0] + variant[0], seconds, kept[0]);
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("tables")) {
            tables(args);
            return;
        }
        String container = args[0];
        if (args.length > 1) repeat = Integer.parseInt(args[1]);
        String only = args.length > 2 ? args[2] : "";

        byte[] head = Files.readAllBytes(Paths.get(container));
        if ("container".contains(only) || only.isEmpty()) {
            int loops = 100_000;
            row("FileIndexFormat head read, 12-column container (x100k)", median(() -> {
                Object last = null;
                for (int k = 0; k < loops; k++) last = FileIndexFormat.createReader(new ByteArraySeekableStream(head), RowType.of());
                return last;
            }, loops), head.length);
        }
        if ("bloom".contains(only) || only.isEmpty()) {
            long[] big = bigint1m();
            Object[] values = new Object[N];
            for (int i = 0; i < N; i++) values[i] = big[i];
            Object[] probes = new Object[100_000];
            for (int k = 0; k < probes.length; k++) probes[k] = k % 2 == 0 ? big[(int) u(12, k, 1000000)] : r(13, k);
            bloom("bigint_1m", DataTypes.BIGINT(), values, probes);
            BinaryString[] strings = string1mAvg16();
            Object[] sprobes = new Object[100_000];
            for (int k = 0; k < sprobes.length; k++)
                sprobes[k] = k % 2 == 0 ? strings[(int) u(14, k, 1000000)] : BinaryString.fromString("x" + hex(r(15, k), 16));
            bloom("string_1m_avg16", DataTypes.STRING(), strings, sprobes);
        }
        if ("bitmap".contains(only) || only.isEmpty()) {
            BinaryString[] keys = card1kKeys();
            bitmap("string_1m_card1k", DataTypes.STRING(), string1mCard1k(), keys[0], BinaryString.fromString("absent"),
                   Arrays.copyOfRange(keys, 0, 100), Arrays.copyOfRange(keys, 100, 110));
            Object[] eq100 = new Object[100], in10 = new Object[10];
            for (int j = 0; j < 100; j++) eq100[j] = -50000 + 1000 * j;
            for (int j = 0; j < 10; j++) in10[j] = 7 * j;
            bitmap("int_1m_card100k", DataTypes.INT(), int1mCard100k(), 12345, 999999, eq100, in10);
        }
    }
}
