package io.bloomstore.core.backup;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The meta file of one backup, {@code meta/ID} in a backup directory: what the backup holds and
 * where, with each file's size and CRC32C. A backup exists exactly when its meta file does: the
 * meta file is written last, to a temporary name, synced and renamed. Text, one field a line
 * ({@code docs/format/backup.md}):
 *
 * <pre>
 *   bloomstore-backup 1
 *   id ID
 *   created MILLIS
 *   sequence LAST_SEQUENCE
 *   copied FILES BYTES
 *   file BACKUP_PATH STORE_NAME SIZE CRC32C_HEX      (one line per file)
 *   crc CRC32C_HEX                                   (of every byte before this line)
 * </pre>
 *
 * <p>Thread safety: immutable.
 */
public record BackupMeta(long id, long createdMillis, long lastSequence, long filesCopied, long bytesCopied,
                         List<Entry> files) {
    static final String HEADER = "bloomstore-backup 1";
    /** Meta files are small: a longer one is not a meta file. */
    private static final long MAX_BYTES = 64L << 20;

    /**
     * One file of a backup: where it is under the backup directory ({@code shared/...} or
     * {@code private/ID/...}), its name in a store directory, its size and CRC32C.
     */
    public record Entry(String backupPath, String storeName, long size, long crc) {
    }

    public BackupMeta {
        files = List.copyOf(files);
    }

    /** The bytes of all files. */
    public long totalBytes() {
        long sum = 0;
        for (Entry e : files) {
            sum += e.size();
        }
        return sum;
    }

    byte[] encode() {
        StringBuilder b = new StringBuilder();
        b.append(HEADER).append('\n');
        b.append("id ").append(id).append('\n');
        b.append("created ").append(createdMillis).append('\n');
        b.append("sequence ").append(lastSequence).append('\n');
        b.append("copied ").append(filesCopied).append(' ').append(bytesCopied).append('\n');
        for (Entry e : files) {
            b.append("file ").append(e.backupPath()).append(' ').append(e.storeName()).append(' ').append(e.size())
                    .append(' ').append(Long.toHexString(e.crc())).append('\n');
        }
        CRC32C crc = new CRC32C();
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        crc.update(body);
        b.append("crc ").append(Long.toHexString(crc.getValue())).append('\n');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code path} durably: a temporary file, synced, renamed over, the directory synced. */
    void write(FileSystem fs, Path path) throws IOException {
        Path temp = path.resolveSibling(path.getFileName() + ".tmp");
        try (WritableFile w = fs.create(temp)) {
            w.write(ByteBuffer.wrap(encode()));
            w.sync();
        }
        fs.rename(temp, path);
        fs.syncDirectory(path.getParent());
    }

    /**
     * Reads and checks a meta file.
     *
     * @throws CorruptionException when it is damaged (its CRC, a field that does not parse)
     */
    static BackupMeta read(FileSystem fs, Path path) throws IOException {
        byte[] bytes;
        try (RandomReadFile f = fs.openRead(path)) {
            long size = f.size();
            if (size > MAX_BYTES) {
                throw new CorruptionException(path, 0, "a backup meta file of " + size + " bytes (at most " + MAX_BYTES
                        + ")");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            f.readFully(0, buf);
            bytes = buf.array();
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        int crcLine = text.lastIndexOf("crc ");
        if (!text.startsWith(HEADER + "\n") || crcLine < 0 || !text.endsWith("\n")) {
            throw new CorruptionException(path, 0, "not a BloomStore backup meta file (no '" + HEADER
                    + "' header or no crc line)");
        }
        CRC32C crc = new CRC32C();
        byte[] body = text.substring(0, crcLine).getBytes(StandardCharsets.UTF_8);
        crc.update(body);
        long expected = parseHex(path, body.length, text.substring(crcLine + 4, text.length() - 1));
        if (crc.getValue() != expected) {
            throw CorruptionException.mismatch(path, body.length, "meta file CRC32C", expected, crc.getValue());
        }
        long id = -1;
        long created = 0;
        long sequence = 0;
        long filesCopied = 0;
        long bytesCopied = 0;
        List<Entry> files = new ArrayList<>();
        String[] lines = text.substring(0, crcLine).split("\n");
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(" ");
            switch (f[0]) {
                case "id" -> id = parseLong(path, f, 1);
                case "created" -> created = parseLong(path, f, 1);
                case "sequence" -> sequence = parseLong(path, f, 1);
                case "copied" -> {
                    filesCopied = parseLong(path, f, 1);
                    bytesCopied = parseLong(path, f, 2);
                }
                case "file" -> {
                    if (f.length != 5) {
                        throw new CorruptionException(path, 0, "bad file line: " + lines[i]);
                    }
                    files.add(new Entry(f[1], f[2], parseLong(path, f, 3), parseHex(path, 0, f[4])));
                }
                default -> throw new CorruptionException(path, 0, "unknown line: " + lines[i]);
            }
        }
        if (id < 0) {
            throw new CorruptionException(path, 0, "no id line");
        }
        return new BackupMeta(id, created, sequence, filesCopied, bytesCopied, files);
    }

    private static long parseLong(Path path, String[] fields, int i) throws CorruptionException {
        try {
            return Long.parseLong(fields[i]);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new CorruptionException(path, 0, "bad number in line: " + String.join(" ", fields), e);
        }
    }

    private static long parseHex(Path path, long offset, String hex) throws CorruptionException {
        try {
            return Long.parseUnsignedLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new CorruptionException(path, offset, "bad checksum: " + hex, e);
        }
    }
}
