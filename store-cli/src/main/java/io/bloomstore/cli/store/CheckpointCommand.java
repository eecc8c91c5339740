package io.bloomstore.cli.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore checkpoint TARGET}: an openable copy of the store in TARGET, tables hard-linked
 * where the file system allows ({@link Store#checkpoint}). A target inside the store or not empty
 * is refused (exit 2), a full disk is an I/O error (exit 3) that leaves nothing in the target.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Copy the store to TARGET as of now: tables hard-linked where possible, WAL copied.")
public final class CheckpointCommand extends StoreCommand {

    @Parameters(index = "0", paramLabel = "TARGET",
            description = "A missing or empty directory outside the store directory.")
    Path target;

    @Option(names = "--json", description = "Print JSON with the report's API names.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        CheckpointReport r;
        try (Store store = open(false)) {
            r = store.checkpoint(target);
        }
        if (json) {
            out().println(Json.write(json(dataDir(), r)));
        } else {
            out().println("checkpoint of " + dataDir() + " in " + r.target() + ": " + Units.count(r.tables())
                    + " tables, " + r.linkedFiles() + " files linked, " + r.copiedFiles() + " copied ("
                    + Units.bytes(r.bytesCopied()) + "), up to sequence " + r.lastSequence() + ", " + r.millis()
                    + " ms");
        }
        out().flush();
        return ExitCodes.OK;
    }

    static Map<String, Object> json(Path dir, CheckpointReport r) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("store", dir.toString());
        j.put("target", r.target().toString());
        j.put("lastSequence", r.lastSequence());
        j.put("tables", r.tables());
        j.put("linkedFiles", r.linkedFiles());
        j.put("copiedFiles", r.copiedFiles());
        j.put("bytesCopied", r.bytesCopied());
        j.put("millis", r.millis());
        return j;
    }
}
