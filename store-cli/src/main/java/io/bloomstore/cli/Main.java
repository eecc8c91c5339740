package io.bloomstore.cli;

import io.bloomstore.cli.family.ExperimentCommand;
import io.bloomstore.cli.family.FilterParadoxCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code bloomstore} command: entry point of {@code bloomstore.jar}. */
@Command(name = "bloomstore", mixinStandardHelpOptions = true, version = "BloomStore 0.1.0",
        description = "Embedded LSM key-value store with off-heap, memory-mapped filters.",
        subcommands = {ExperimentCommand.class, FilterParadoxCommand.class, io.bloomstore.cli.bench.BenchCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
