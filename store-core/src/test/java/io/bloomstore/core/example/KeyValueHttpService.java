package io.bloomstore.core.example;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.bloomstore.core.Store;

/**
 * The example service of docs/library.md: an embedded store behind the JDK's own HTTP server, no other
 * dependency. {@code GET /kv/KEY} answers the value (200) or 404, {@code PUT /kv/KEY} stores the
 * request body (204), {@code DELETE /kv/KEY} deletes (204). The key is the path after
 * {@code /kv/}, percent-decoded as UTF-8. A bad request (empty or oversized key or value) is 400
 * with the store's message; another method is 405; a store error (I/O, corruption, a closed
 * store) is 500.
 *
 * <p>Thread safety: requests run on a small pool; the store is safe for concurrent use.
 */
public final class KeyValueHttpService implements AutoCloseable {
    private static final String PREFIX = "/kv/";

    private final Store store;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    public KeyValueHttpService(Store store, InetSocketAddress address) throws IOException {
        this.store = store;
        this.server = HttpServer.create(address, 0);
        server.createContext(PREFIX, this::handle);
        server.setExecutor(pool);
        server.start();
    }

    /** The port the server listens on (useful when it was started on port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            byte[] key = ex.getRequestURI().getPath().substring(PREFIX.length()).getBytes(StandardCharsets.UTF_8);
            switch (ex.getRequestMethod()) {
                case "GET" -> {
                    byte[] value = store.get(key);
                    if (value == null) {
                        reply(ex, 404, "no such key\n".getBytes(StandardCharsets.UTF_8));
                    } else {
                        reply(ex, 200, value);
                    }
                }
                case "PUT" -> {
                    try (InputStream body = ex.getRequestBody()) {
                        store.put(key, body.readAllBytes());
                    }
                    reply(ex, 204, null);
                }
                case "DELETE" -> {
                    store.delete(key);
                    reply(ex, 204, null);
                }
                default -> reply(ex, 405, "GET, PUT or DELETE\n".getBytes(StandardCharsets.UTF_8));
            }
        } catch (IllegalArgumentException e) {
            reply(ex, 400, (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException | IllegalStateException e) {
            reply(ex, 500, (e + "\n").getBytes(StandardCharsets.UTF_8));
        } finally {
            ex.close();
        }
    }

    private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body == null ? -1 : body.length);
        if (body != null) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops accepting requests, waits up to a second for those running; the store stays open. */
    @Override
    public void close() {
        server.stop(1);
        pool.shutdown();
    }
}
