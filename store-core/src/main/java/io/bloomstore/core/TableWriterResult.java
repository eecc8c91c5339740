package io.bloomstore.core;

/**
 * What {@link TableWriter#finish()} wrote.
 *
 * @param table       the table file
 * @param filter      its filter sidecar, or null when the options build no filter
 * @param entries     keys written (values and deletions)
 * @param tableBytes  bytes of the table file
 * @param filterBytes bytes of the sidecar (0 without one)
 * @param smallestKey the first key (the caller owns this copy)
 * @param largestKey  the last key (the caller owns this copy)
 */
public record TableWriterResult(java.nio.file.Path table, java.nio.file.Path filter, long entries, long tableBytes,
                                long filterBytes, byte[] smallestKey, byte[] largestKey) {
}
