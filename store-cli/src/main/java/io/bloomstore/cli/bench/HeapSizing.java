package io.bloomstore.cli.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;

/**
 * Keeps the Java heap committed across the bench's own collections. {@link BenchRunner} collects
 * the heap ({@link System#gc()}) before every measured workload, so that none pays for another's
 * garbage; with G1's default {@code MaxHeapFreeRatio} (70) that full collection also shrinks the
 * heap, and the workload after it grows it again, each newly committed page faulting on its
 * first touch. A service's heap is not shrunk before each burst of writes, and an engine whose
 * data lives off the Java heap (RocksDB) never pays this, so it measured the bench, not the
 * engine: 1 KiB fillseq ran at 105,000–108,000 puts/s with the shrinking and 160,000–165,000
 * without it, RocksDB at 145,000–151,000 in both (two runs each). {@code MaxHeapFreeRatio} is a
 * manageable flag, set here through the HotSpot diagnostic bean for the rest of the process; a
 * JVM without it runs the bench as before, and {@link #state()} says which.
 *
 * <p>Thread safety: safe; the flag is the JVM's.
 */
final class HeapSizing {
    private static final String FLAG = "MaxHeapFreeRatio";

    private HeapSizing() {
    }

    /** Stops full collections from shrinking the heap; returns {@link #state()}. */
    static String keepCommitted() {
        try {
            HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (bean != null) {
                bean.setVMOption(FLAG, "100");
            }
        } catch (RuntimeException e) {
            // Not a HotSpot JVM, or the flag is not manageable: state() reports what holds.
        }
        return state();
    }

    /** How the heap is sized across the bench's collections, for headers and reports. */
    static String state() {
        try {
            HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            VMOption option = bean == null ? null : bean.getVMOption(FLAG);
            if (option != null && option.getValue().equals("100")) {
                return "heap kept committed across the bench's collections (MaxHeapFreeRatio 100)";
            }
            return "heap may shrink at the bench's collections (MaxHeapFreeRatio "
                    + (option == null ? "unknown" : option.getValue()) + ")";
        } catch (RuntimeException e) {
            return "heap sizing unknown (" + e.getMessage() + ")";
        }
    }
}
