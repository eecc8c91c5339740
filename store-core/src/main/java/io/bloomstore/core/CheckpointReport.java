package io.bloomstore.core;

import java.nio.file.Path;

/**
 * What {@link Store#checkpoint(Path)} made: where, as of which sequence number, and how the files
 * got there — hard-linked (no bytes copied) or copied (WAL segments always; tables and filter
 * sidecars where the file system cannot link, as across devices).
 *
 * @param target        the checkpoint's directory, an openable store
 * @param lastSequence  the last sequence number acknowledged when the checkpoint's moment was taken;
 *                      the checkpoint holds every write up to it
 * @param tables        the tables it holds
 * @param linkedFiles   tables and filter sidecars hard-linked
 * @param copiedFiles   files copied (WAL segments, and tables or sidecars that could not be linked)
 * @param bytesCopied   the bytes of the copied files
 * @param millis        how long the checkpoint took
 */
public record CheckpointReport(Path target, long lastSequence, int tables, int linkedFiles, int copiedFiles,
                               long bytesCopied, long millis) {
}
