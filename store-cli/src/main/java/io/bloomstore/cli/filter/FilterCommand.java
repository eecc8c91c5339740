package io.bloomstore.cli.filter;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter}: standalone filter files (docs/format/filter.md) — size them,
 * build them from a key list, query them, inspect them.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "filter", mixinStandardHelpOptions = true,
        description = "Plan, build, query and inspect standalone filter files.",
        subcommands = {FilterPlanCommand.class, FilterCreateCommand.class, FilterCheckCommand.class,
            FilterInfoCommand.class, io.bloomstore.cli.family.FilterParadoxCommand.class})
public final class FilterCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: plan, create, check or info");
    }
}
