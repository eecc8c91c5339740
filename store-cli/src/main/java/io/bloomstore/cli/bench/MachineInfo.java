package io.bloomstore.cli.bench;

/**
 * The machine a run was measured on, recorded with the results so that numbers are never
 * quoted without it.
 *
 * <p>Thread safety: immutable.
 */
public record MachineInfo(int cores, String jvm, String os, String arch, long maxHeapBytes, String heapSizing) {

    public static MachineInfo current() {
        return new MachineInfo(Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.getRuntime().maxMemory(), HeapSizing.state());
    }

    /** One line for console and report headers. */
    public String describe() {
        return String.format("%d cores, %s, %s (%s), max heap %d MiB, %s", cores, jvm, os, arch, maxHeapBytes >> 20,
                heapSizing);
    }
}
