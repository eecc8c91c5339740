package io.bloomstore.core.stats;

import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import io.bloomstore.core.StoreStats;

/**
 * A store's {@link StoreStatsMXBean} on the platform MBean server: registered at open under
 * {@code io.bloomstore:type=Store,name=NAME}, unregistered at close. Every attribute takes a fresh
 * {@link StoreStats} from the store, so values are live.
 *
 * <p>Thread safety: {@link #register} and {@link #close} are called once each by the store's
 * open and close; attributes may be read from any thread.
 */
public final class StoreStatsMBean implements StoreStatsMXBean, AutoCloseable {
    private final Supplier<StoreStats> stats;
    private final ObjectName name;
    private final MBeanServer server;

    private StoreStatsMBean(Supplier<StoreStats> stats, ObjectName name, MBeanServer server) {
        this.stats = stats;
        this.name = name;
        this.server = server;
    }

    /** The object name a store registered as {@code jmxName} gets. */
    public static ObjectName objectName(String jmxName) {
        try {
            return new ObjectName("io.bloomstore", new java.util.Hashtable<>(java.util.Map.of("type", "Store",
                    "name", ObjectName.quote(jmxName))));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("jmxName " + jmxName + " makes no JMX object name: " + e.getMessage(), e);
        }
    }

    /**
     * Registers the statistics of a store as {@code jmxName}.
     *
     * @throws IllegalStateException when another open store already uses the name
     */
    public static StoreStatsMBean register(String jmxName, Supplier<StoreStats> stats) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        StoreStatsMBean bean = new StoreStatsMBean(stats, objectName(jmxName), server);
        try {
            server.registerMBean(bean, bean.name);
        } catch (InstanceAlreadyExistsException e) {
            throw new IllegalStateException("another open store is registered in JMX as " + bean.name, e);
        } catch (JMException e) {
            throw new IllegalStateException("cannot register " + bean.name + " in JMX: " + e.getMessage(), e);
        }
        return bean;
    }

    /** Unregisters; idempotent. */
    @Override
    public void close() {
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException e) {
            // Already gone: close is idempotent.
        } catch (JMException e) {
            throw new IllegalStateException("cannot unregister " + name + " from JMX: " + e.getMessage(), e);
        }
    }

    @Override
    public long getGets() {
        return stats.get().gets();
    }

    @Override
    public long getTableLookups() {
        return stats.get().tableLookups();
    }

    @Override
    public long getFilterNegatives() {
        return stats.get().filterNegatives();
    }

    @Override
    public long getFilterPositives() {
        return stats.get().filterPositives();
    }

    @Override
    public long getFilterTruePositives() {
        return stats.get().filterTruePositives();
    }

    @Override
    public double getMeasuredFpr() {
        return stats.get().measuredFpr();
    }

    @Override
    public double getConfiguredFpr() {
        return stats.get().configuredFpr();
    }

    @Override
    public long getDataBlockReads() {
        return stats.get().dataBlockReads();
    }

    @Override
    public long getBytesRead() {
        return stats.get().bytesRead();
    }

    @Override
    public long getBlockCacheHits() {
        return stats.get().blockCacheHits();
    }

    @Override
    public long getBlockCacheMisses() {
        return stats.get().blockCacheMisses();
    }

    @Override
    public long getFlushes() {
        return stats.get().flushes();
    }

    @Override
    public long getCompactions() {
        return stats.get().compactions();
    }

    @Override
    public double getWriteAmplification() {
        return stats.get().writeAmplification();
    }

    @Override
    public long getWriteSlowdowns() {
        return stats.get().writeSlowdowns();
    }

    @Override
    public long getWriteStops() {
        return stats.get().writeStops();
    }

    @Override
    public int getTotalFiles() {
        return stats.get().totalFiles();
    }

    @Override
    public long getFilterBytes() {
        return stats.get().filterBytes();
    }

    @Override
    public String getFilterMemory() {
        return stats.get().filterMemory();
    }

    @Override
    public String getFilterPolicy() {
        return stats.get().filterPolicy();
    }

    @Override
    public long getCumulativeGets() {
        return stats.get().cumulative().gets();
    }

    @Override
    public long getCumulativeFilterNegatives() {
        return stats.get().cumulative().filterNegatives();
    }

    @Override
    public long getCumulativeDataBlockReads() {
        return stats.get().cumulative().dataBlockReads();
    }
}
