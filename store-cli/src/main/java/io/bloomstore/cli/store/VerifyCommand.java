package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Units;
import io.bloomstore.core.LockedException;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore verify}: reads every file of a store and checks every checksum and the
 * manifest's consistency through {@link StoreVerifier} (a store another process holds open: an image
 * of it as of now, {@link StoreVerifier#verifyLive}); prints what it checked and any
 * damage. Exit code 0 only when nothing is damaged (warnings, such as leftovers a crash leaves
 * for the next open to clean, are printed but do not fail it); {@link ExitCodes#CORRUPTION}
 * otherwise.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Check every checksum of every file and the manifest's consistency; exit 0 only when clean.")
public final class VerifyCommand extends StoreCommand {

    /** How the CLI names its scratch directories of live images ({@link ScratchDirectory}). */
    static final String SCRATCH_PREFIX = "bloomstore-verify-";

    @Option(names = {"-q", "--quiet"}, description = "Print only problems and the summary line.")
    boolean quiet;

    /**
     * Verifies a store another process holds open, as of now, through an image of it in a private
     * temporary directory ({@link StoreVerifier#verifyLive}, in a {@link ScratchDirectory}), deleted
     * afterwards; says so once on stderr.
     */
    private VerifyReport verifyLive() throws IOException {
        try (ScratchDirectory scratch = ScratchDirectory.create(dataDir(), SCRATCH_PREFIX)) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("bloomstore: " + dataDir() + " is held open by another process: verifying an image of it as of"
                    + " now (tables linked, WAL and MANIFEST copied; nothing written there)");
            err.flush();
            return StoreVerifier.verifyLive(dataDir(), scratch.path().resolve("image"));
        }
    }

    @Override
    public Integer call() throws IOException {
        StoreAccess.requireStoreDirectory(dataDir());
        VerifyReport report;
        try {
            try {
                report = StoreVerifier.verify(dataDir());
            } catch (LockedException e) {
                report = verifyLive();
            }
        } catch (IllegalArgumentException e) {
            throw StoreAccess.notAStore(e.getMessage());
        }
        PrintWriter out = out();
        if (!quiet) {
            for (VerifyReport.CheckedFile f : report.checked()) {
                out.printf("checked %-14s %10s  %s  %s%n", f.kind(), Units.bytes(f.bytes()),
                        f.file().getFileName(), f.checks());
            }
        }
        for (VerifyReport.Problem p : report.problems()) {
            out.println(p);
        }
        out.printf("%s: %d files, %s checked, %d errors, %d warnings%n", report.clean() ? "clean" : "DAMAGED",
                report.checked().size(), Units.bytes(report.bytesChecked()), report.errors().size(),
                report.warnings().size());
        out.flush();
        return report.clean() ? ExitCodes.OK : ExitCodes.CORRUPTION;
    }
}
