package io.bloomstore.cli.stress;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes a killed process's files what a power loss at the moment of the kill would have left, from
 * the journal its {@link SyncJournalFileSystem} wrote: every creation, rename and deletion no
 * directory sync followed is undone, newest first (a created file disappears, a renamed one gets
 * its old name back, a replaced or deleted one returns), and every file created since the journal
 * began is cut back to the bytes its last completed sync covered. Files that existed before are
 * left alone: they were durable.
 *
 * <p>Thread safety: stateless; run it on files no process uses.
 */
final class PowerLoss {
    /** What a power loss took: directory changes undone, files cut and the bytes they lost. */
    record Result(int changesUndone, int filesCut, long bytesDropped) {
    }

    private PowerLoss() {
    }

    static Result apply(Path journal) throws IOException {
        return apply(journal, null);
    }

    /**
     * As {@link #apply(Path)}; with {@code tear} non-null, a MANIFEST keeps a random prefix of the
     * bytes it had not synced (a torn edit, as a file system that wrote part of the page may leave)
     * instead of losing them all.
     */
    static Result apply(Path journal, java.util.SplittableRandom tear) throws IOException {
        if (!Files.exists(journal)) {
            return new Result(0, 0, 0);
        }
        String text = Files.readString(journal, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        // Durable length of each file written since the journal began, under its current name.
        Map<String, Long> synced = new HashMap<>();
        List<String[]> pending = new ArrayList<>();
        for (String line : end < 0 ? new String[0] : text.substring(0, end).split("\n")) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "C" -> {
                    synced.put(f[1], 0L);
                    if (f[2].equals("new")) {
                        pending.add(f);
                    }
                }
                case "S" -> synced.computeIfPresent(f[1], (k, v) -> Math.max(v, Long.parseLong(f[2])));
                case "D" -> {
                    move(synced, f[1], f[2]);
                    pending.add(f);
                }
                case "R" -> {
                    if (!f[3].equals("-")) {
                        move(synced, f[2], f[3]);
                    }
                    move(synced, f[1], f[2]);
                    pending.add(f);
                }
                case "Y" -> {
                    // Durable now: what waited under a hidden name is gone for good.
                    for (String[] p : pending) {
                        String h = p[0].equals("D") ? p[2] : p[0].equals("R") && !p[3].equals("-") ? p[3] : null;
                        if (h != null) {
                            Files.deleteIfExists(Path.of(h));
                            synced.remove(h);
                        }
                    }
                    pending.clear();
                }
                default -> throw new IOException(journal + ": unreadable line '" + line + "'");
            }
        }
        for (int i = pending.size() - 1; i >= 0; i--) {
            undo(pending.get(i), synced);
        }
        int cut = 0;
        long dropped = 0;
        for (Map.Entry<String, Long> e : synced.entrySet()) {
            Path p = Path.of(e.getKey());
            if (Files.exists(p) && Files.size(p) > e.getValue()) {
                long keep = e.getValue();
                if (tear != null && p.getFileName().toString().startsWith("MANIFEST-")) {
                    keep += tear.nextLong(Files.size(p) - keep + 1);
                }
                dropped += Files.size(p) - keep;
                cut++;
                try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                    f.setLength(keep);
                }
            }
        }
        return new Result(pending.size(), cut, dropped);
    }

    /**
     * Undoes one change. The journal names a change before it is made, so the process may have
     * died before making it: each step is taken only if the change (or its part) happened.
     */
    private static void undo(String[] change, Map<String, Long> synced) throws IOException {
        switch (change[0]) {
            case "C" -> {
                Files.deleteIfExists(Path.of(change[1]));
                synced.remove(change[1]);
            }
            case "D" -> restore(change[2], change[1], synced);
            case "R" -> {
                restore(change[2], change[1], synced);
                if (!change[3].equals("-")) {
                    restore(change[3], change[2], synced);
                }
            }
            default -> throw new IllegalStateException("not a directory change: " + change[0]);
        }
    }

    /** Renames {@code from} back to {@code to} if the change moved it there and nothing took {@code to} since. */
    private static void restore(String from, String to, Map<String, Long> synced) throws IOException {
        Path source = Path.of(from);
        Path target = Path.of(to);
        if (Files.exists(source) && !Files.exists(target)) {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        }
        move(synced, from, to);
    }

    private static void move(Map<String, Long> synced, String from, String to) {
        Long length = synced.remove(from);
        if (length != null) {
            synced.put(to, length);
        } else {
            synced.remove(to);
        }
    }
}
