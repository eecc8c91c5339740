package io.bloomstore.cli.family;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore experiment}: reproducible experiments from the seeds.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "Reproducible experiments: the lecture notes' heavy hitters, range filters compared.",
        subcommands = {HeavyHittersCommand.class, RangeFiltersCommand.class})
public final class ExperimentCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name an experiment, e.g. heavy-hitters");
    }
}
