package io.bloomstore.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.example.KeyValueHttpService;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example HTTP service of store-core with its store's metrics bound: lookups of absent keys
 * over HTTP show up as disk reads saved.
 */
class KeyValueHttpServiceMetricsTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @Test
    void missesOverHttpAreCountedAsDiskReadsSaved() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Store store = Store.open(dir);
             KeyValueHttpService service = new KeyValueHttpService(store,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            new BloomStoreMetrics(store, Tags.of("service", "kv")).bindTo(registry);
            String base = "http://127.0.0.1:" + service.port() + "/kv/";
            for (int i = 0; i < 100; i++) {
                assertEquals(204, client.send(HttpRequest.newBuilder(URI.create(base + "user" + i))
                        .PUT(HttpRequest.BodyPublishers.ofString("v" + i)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode());
            }
            store.flush();
            for (int i = 0; i < 50; i++) {
                assertEquals(404, client.send(HttpRequest.newBuilder(URI.create(base + "user" + i + "x")).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode());
            }
            Thread.sleep(BloomStoreMetrics.MAX_AGE_MILLIS + 20);
            assertEquals(50, registry.get("bloomstore.gets").tag("service", "kv").functionCounter().count());
            double saved = registry.get("bloomstore.filter.negatives").functionCounter().count();
            assertTrue(saved >= 45, saved + " of 50 misses answered by the filter");
        }
    }
}
