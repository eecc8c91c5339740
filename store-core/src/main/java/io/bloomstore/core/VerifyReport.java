package io.bloomstore.core;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link StoreVerifier} read and what it found: one {@link CheckedFile} per file it read,
 * and every {@link Problem}, damage ({@link Severity#ERROR}) or something a crash or an
 * interrupted flush leaves behind that the next open cleans up ({@link Severity#WARNING}).
 *
 * <p>Thread safety: immutable.
 *
 * @param dir      the store directory
 * @param checked  the files read, in the order they were checked
 * @param problems everything found, errors and warnings, in the order found
 */
public record VerifyReport(Path dir, List<CheckedFile> checked, List<Problem> problems) {

    public VerifyReport {
        checked = List.copyOf(checked);
        problems = List.copyOf(problems);
    }

    /** Whether nothing is damaged (warnings allowed). */
    public boolean clean() {
        return errors().isEmpty();
    }

    public List<Problem> errors() {
        return problems.stream().filter(p -> p.severity() == Severity.ERROR).toList();
    }

    public List<Problem> warnings() {
        return problems.stream().filter(p -> p.severity() == Severity.WARNING).toList();
    }

    /** Total bytes of the files read. */
    public long bytesChecked() {
        return checked.stream().mapToLong(CheckedFile::bytes).sum();
    }

    /** How bad a problem is. */
    public enum Severity {
        /** Damage: a checksum, a format rule or the manifest's consistency fails. */
        ERROR,
        /** Harmless leftovers (unreferenced tables, obsolete WALs, a torn final record). */
        WARNING
    }

    /**
     * One file that was read.
     *
     * @param file   its path
     * @param kind   {@code CURRENT}, {@code MANIFEST}, {@code WAL}, {@code TABLE} or {@code FILTER}
     * @param bytes  its size
     * @param checks what was checked, in words (e.g. "12 records, every CRC")
     */
    public record CheckedFile(Path file, String kind, long bytes, String checks) {
    }

    /**
     * One problem.
     *
     * @param file     the file concerned
     * @param offset   byte offset of the damage, or -1 when it concerns the file as a whole
     *                 (missing, wrong size, unreferenced)
     * @param severity error or warning
     * @param message  what is wrong
     */
    public record Problem(Path file, long offset, Severity severity, String message) {
        @Override
        public String toString() {
            return severity + " " + file.getFileName() + (offset >= 0 ? " @" + offset : "") + ": " + message;
        }
    }
}
