package io.bloomstore.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Maps the engine names {@code --engines} accepts to fresh {@link BenchEngine} instances.
 * {@link #standard()} holds every engine of {@code bloomstore bench}; {@link #defaultNames()} those
 * it runs when no {@code --engines} are named (BloomStore and RocksDB: the peers run when named),
 * in the order the results are shown.
 *
 * <p>Thread safety: build it on one thread, then read it from any.
 */
public final class EngineFactory {
    private final Map<String, Supplier<BenchEngine>> engines = new LinkedHashMap<>();
    private final List<String> defaults = new ArrayList<>();

    /** The engines of {@code bloomstore bench}; the first listed are shown first, the baseline last. */
    public static EngineFactory standard() {
        return new EngineFactory()
                .register(BloomStoreEngine.NAME, () -> new BloomStoreEngine(true))
                .register(BloomStoreEngine.NAME_NO_FILTER, () -> new BloomStoreEngine(false))
                .register(RocksDbEngine.NAME, RocksDbEngine::new)
                .register(RocksDbEngine.NAME_RIBBON, () -> new RocksDbEngine(true))
                // Lambdas, not constructor references: a reference links (loads and verifies) its
                // class when made, and the peers' libraries may be missing (bloomstore-peers.jar).
                .register(LmdbEngine.NAME, () -> new LmdbEngine(), false)
                .register(MvStoreEngine.NAME, () -> new MvStoreEngine(), false)
                .register(JeEngine.NAME, () -> new JeEngine(), false)
                .register(XodusEngine.NAME, () -> new XodusEngine(), false);
    }

    /** Adds an engine under {@code name}, part of the default run; names are unique. */
    public EngineFactory register(String name, Supplier<BenchEngine> supplier) {
        return register(name, supplier, true);
    }

    /** Adds an engine under {@code name}, part of the default run when {@code byDefault}; names are unique. */
    public EngineFactory register(String name, Supplier<BenchEngine> supplier, boolean byDefault) {
        if (engines.putIfAbsent(name, supplier) != null) {
            throw new IllegalArgumentException("engine '" + name + "' is registered twice");
        }
        if (byDefault) {
            defaults.add(name);
        }
        return this;
    }

    /** The engines run when none are named, in registration order. */
    public List<String> defaultNames() {
        return List.copyOf(defaults);
    }

    /** Registered names, in registration order. */
    public List<String> names() {
        return new ArrayList<>(engines.keySet());
    }

    /** A new, unopened engine called {@code name}. */
    public BenchEngine create(String name) {
        Supplier<BenchEngine> supplier = engines.get(name);
        if (supplier == null) {
            throw new IllegalArgumentException("unknown engine '" + name + "'; known: " + String.join(", ", names()));
        }
        return supplier.get();
    }
}
