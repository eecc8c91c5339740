package io.bloomstore.cli.jdk;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;

/**
 * Run in a child JVM by {@link ThreadNiceTest}: opens a store in {@code args[0]} with
 * {@code backgroundNiceness(args[1])}, writes enough for flushes and a compaction, then prints one
 * line per BloomStore thread, {@code name nice}, and {@code main nice} for the process's main thread.
 */
public final class NiceProbe {
    private NiceProbe() {
    }

    public static void main(String[] args) throws Exception {
        StoreOptions options = StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10)
                .backgroundNiceness(Integer.parseInt(args[1])).build();
        TreeMap<String, Integer> seen = new TreeMap<>();
        try (Store store = Store.open(Path.of(args[0]), options)) {
            for (int i = 0; i < 20_000; i++) {
                store.put(("key" + (i * 7919 % 20_000)).getBytes(StandardCharsets.UTF_8), new byte[100]);
                if (i % 2_000 == 1_999) {
                    look(seen);
                }
            }
            store.flush();
            store.compact();
            look(seen);
        }
        seen.forEach((name, nice) -> System.out.println(name + " " + nice));
        System.out.println("main " + nice(Path.of("/proc/self/stat")));
    }

    private static void look(TreeMap<String, Integer> seen) throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String comm = Files.readString(t.resolve("comm"), StandardCharsets.US_ASCII).strip();
                    if (comm.startsWith("bloomstore")) {
                        seen.put(comm.replace(' ', '_') + "#" + t.getFileName(), nice(t.resolve("stat")));
                    }
                } catch (java.io.IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
    }

    static int nice(Path stat) throws java.io.IOException {
        String text = Files.readString(stat, StandardCharsets.US_ASCII);
        String[] fields = text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
        return Integer.parseInt(fields[16]);
    }
}
