package io.bloomstore.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Maps the engine names {@code --engines} accepts to fresh {@link BenchEngine} instances.
 * {@link #standard()} is the set {@code bloomstore bench} runs by default, in the order
 * the results are shown.
 *
 * <p>Thread safety: build it on one thread, then read it from any.
 */
public final class EngineFactory {
    private final Map<String, Supplier<BenchEngine>> engines = new LinkedHashMap<>();

    /** The engines of {@code bloomstore bench}; the first listed are shown first, the baseline last. */
    public static EngineFactory standard() {
        return new EngineFactory()
                .register(BloomStoreEngine.NAME, () -> new BloomStoreEngine(true))
                .register(BloomStoreEngine.NAME_NO_FILTER, () -> new BloomStoreEngine(false))
                .register(RocksDbEngine.NAME, RocksDbEngine::new)
                .register(RocksDbEngine.NAME_RIBBON, () -> new RocksDbEngine(true));
    }

    /** Adds an engine under {@code name}; names are unique. */
    public EngineFactory register(String name, Supplier<BenchEngine> supplier) {
        if (engines.putIfAbsent(name, supplier) != null) {
            throw new IllegalArgumentException("engine '" + name + "' is registered twice");
        }
        return this;
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
