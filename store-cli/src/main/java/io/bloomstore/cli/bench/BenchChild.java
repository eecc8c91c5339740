package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The entry point of the benchmark's child JVMs ({@link ChildJvm}):
 * {@code BenchChild cold|open ENGINE DIR CONFIG-JSON N}. It creates one standard engine, runs
 * {@link ColdProbe} (N operations per phase, empty directory) or {@link OpenProbe} (N lookups,
 * the existing store in DIR), and prints one line, {@link ChildJvm#RESULT_PREFIX} and a JSON
 * object, on standard output. Failures go to standard error with a non-zero exit.
 *
 * <p>Thread safety: a process entry point.
 */
public final class BenchChild {
    static final String COLD = "cold";
    static final String OPEN = "open";

    private BenchChild() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try {
            if (args.length != 5) {
                throw new IllegalArgumentException("usage: BenchChild cold|open ENGINE DIR CONFIG-JSON N");
            }
            BenchConfig config = new ObjectMapper().readValue(args[3], BenchConfig.class);
            Path dir = Path.of(args[2]);
            int n = Integer.parseInt(args[4]);
            String result;
            if (OPEN.equals(args[0])) {
                // The open probe makes the engine itself: making it is part of what it times.
                result = OpenProbe.measure(EngineFactory.standard(), args[1], dir, config, n);
            } else if (COLD.equals(args[0])) {
                try (BenchEngine engine = EngineFactory.standard().create(args[1])) {
                    result = ColdProbe.measure(engine, dir, config, n);
                }
            } else {
                throw new IllegalArgumentException("unknown probe '" + args[0] + "'");
            }
            out.println(ChildJvm.RESULT_PREFIX + result);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
