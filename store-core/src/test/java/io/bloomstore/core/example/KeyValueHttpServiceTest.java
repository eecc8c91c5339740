package io.bloomstore.core.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/** The example service answers real HTTP requests on loopback, good and bad. */
class KeyValueHttpServiceTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @Test
    void getPutDeleteOverHttp() throws Exception {
        StoreOptions options = StoreOptions.builder().maxKeyBytes(16).build();
        try (Store store = Store.open(dir, options);
             KeyValueHttpService service = new KeyValueHttpService(store,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            String base = "http://127.0.0.1:" + service.port() + "/kv/";

            assertEquals(204, send(HttpRequest.newBuilder(URI.create(base + "greeting"))
                    .PUT(HttpRequest.BodyPublishers.ofString("hello")).build()).statusCode());
            HttpResponse<String> got = send(HttpRequest.newBuilder(URI.create(base + "greeting")).GET().build());
            assertEquals(200, got.statusCode());
            assertEquals("hello", got.body());
            assertEquals("hello", new String(store.get("greeting".getBytes())), "the service wrote the store");

            HttpResponse<String> missing = send(HttpRequest.newBuilder(URI.create(base + "nobody")).GET().build());
            assertEquals(404, missing.statusCode());

            HttpResponse<String> emptyKey = send(HttpRequest.newBuilder(URI.create(base))
                    .PUT(HttpRequest.BodyPublishers.ofString("x")).build());
            assertEquals(400, emptyKey.statusCode());
            assertTrue(emptyKey.body().contains("key"), emptyKey.body());
            HttpResponse<String> longKey = send(HttpRequest.newBuilder(URI.create(base + "k".repeat(17)))
                    .PUT(HttpRequest.BodyPublishers.ofString("x")).build());
            assertEquals(400, longKey.statusCode(), longKey.body());

            assertEquals(405, send(HttpRequest.newBuilder(URI.create(base + "greeting"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build()).statusCode());
            assertEquals(204, send(HttpRequest.newBuilder(URI.create(base + "greeting")).DELETE().build())
                    .statusCode());
            assertEquals(404, send(HttpRequest.newBuilder(URI.create(base + "greeting")).GET().build())
                    .statusCode());
            assertEquals(204, send(HttpRequest.newBuilder(URI.create(base + "caf%C3%A9"))
                    .PUT(HttpRequest.BodyPublishers.ofString("latte")).build()).statusCode());
            assertEquals("latte", new String(store.get("café".getBytes(java.nio.charset.StandardCharsets.UTF_8))),
                    "keys are percent-decoded UTF-8");
        }
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
