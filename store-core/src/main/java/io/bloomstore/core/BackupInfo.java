package io.bloomstore.core;

/**
 * One backup of a backup directory ({@link StoreBackup}).
 *
 * @param id            its number in the directory, increasing with each backup
 * @param createdMillis when it was completed (milliseconds since the epoch)
 * @param lastSequence  the last sequence number acknowledged at its moment: it holds every write up to it
 * @param files         the files it holds (tables, filter sidecars, WAL segments, MANIFEST, CURRENT)
 * @param bytes         their bytes
 * @param filesCopied   how many of them this backup copied (the others were in the directory already)
 * @param bytesCopied   their bytes
 */
public record BackupInfo(long id, long createdMillis, long lastSequence, int files, long bytes, long filesCopied,
                         long bytesCopied) {
}
