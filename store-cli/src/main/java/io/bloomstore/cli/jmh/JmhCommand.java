package io.bloomstore.cli.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.bloomstore.cli.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code bloomstore jmh [REGEX] [JMH options]}: runs the JMH micro-benchmarks packed in
 * {@code bloomstore.jar} (for example {@link FilterQueryBenchmark}) through JMH's own command
 * line, so every JMH option works: {@code bloomstore jmh FilterQueryBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s},
 * {@code bloomstore jmh -l} to list, {@code bloomstore jmh -h} for JMH's help.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "jmh",
        description = {"Run the JMH micro-benchmarks in this jar; arguments go to JMH unchanged.",
            "Example: bloomstore jmh FilterQueryBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s (-l lists, -h is JMH's help)"})
public final class JmhCommand implements Callable<Integer> {
    /** Everything after {@code jmh}: picocli matches none of it and hands it over in order. */
    @Unmatched
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        // JMH exits the JVM itself on bad options or failed benchmarks.
        org.openjdk.jmh.Main.main(args.toArray(new String[0]));
        return ExitCodes.OK;
    }
}
