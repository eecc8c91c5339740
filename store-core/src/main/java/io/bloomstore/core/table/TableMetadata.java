package io.bloomstore.core.table;

/**
 * What the manifest needs to know about a finished table.
 *
 * <p>Thread safety: immutable (the key arrays must not be modified).
 *
 * @param fileNumber      the table's number ({@link TableFileNames})
 * @param fileSize        bytes of the {@code .sst} file
 * @param filterFileSize  bytes of the {@code .filter} sidecar; 0 when the table has no filter
 * @param smallestUserKey smallest user key in the table
 * @param largestUserKey  largest user key in the table
 * @param entries         internal entries (values and tombstones)
 * @param smallestSeq     smallest sequence number of any entry
 * @param largestSeq      largest sequence number of any entry
 */
public record TableMetadata(long fileNumber, long fileSize, long filterFileSize, byte[] smallestUserKey,
                            byte[] largestUserKey, long entries, long smallestSeq, long largestSeq) {
}
