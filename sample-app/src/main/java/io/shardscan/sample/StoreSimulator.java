package io.shardscan.sample;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The stores {@code order-sync} pushes to: one small HTTP server per store on a free loopback port,
 * which records each order it receives in store_received. A store listed in
 * {@code sample.stores-down} gets a port nobody listens on (calls are refused), one in
 * {@code sample.stores-slow} answers after 2 s.
 */
@Component
public class StoreSimulator implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(StoreSimulator.class);

    private final List<HttpServer> servers = new ArrayList<>();
    private final List<URI> urls = new ArrayList<>();
    private final ExecutorService executor = Executors.newFixedThreadPool(16);

    public StoreSimulator(SampleProperties properties, JdbcTemplate jdbc, SampleSchema schema) {
        for (int store = 0; store < properties.stores(); store++) {
            int port;
            if (properties.storesDown().contains(store)) {
                port = freePort();
            } else {
                HttpServer server = start(store, properties.storesSlow().contains(store), jdbc);
                servers.add(server);
                port = server.getAddress().getPort();
            }
            urls.add(URI.create("http://127.0.0.1:" + port + "/orders"));
        }
        log.info(
                "Simulated {} stores for order-sync (down: {}, slow: {})",
                properties.stores(),
                properties.storesDown(),
                properties.storesSlow());
    }

    /** Where store {@code store} takes orders. */
    public URI url(int store) {
        return urls.get(store);
    }

    private HttpServer start(int store, boolean slow, JdbcTemplate jdbc) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
            server.createContext("/orders", exchange -> {
                long orderId =
                        Long.parseLong(new String(exchange.getRequestBody().readAllBytes()).trim());
                if (slow) {
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                jdbc.update("INSERT INTO store_received (store_id, order_id) VALUES (?, ?)", store, orderId);
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.setExecutor(executor);
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A loopback port that was free a moment ago and that nobody listens on. */
    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void destroy() {
        servers.forEach(s -> s.stop(0));
        executor.shutdownNow();
    }
}
