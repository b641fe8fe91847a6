package io.shardscan.testsupport;

import com.sun.net.httpserver.HttpServer;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Simulated receiving stores for endpoint tests: store {@code i} is a real HTTP server of its own on a
 * loopback port, which records every order pushed to it. A store taken {@link #down} closes its
 * port, so calls to it are refused by the operating system; a slow one answers after a delay. The
 * {@link #push} handler pushes a row to the store its {@link ScanContext#endpoint()} names over a
 * real {@link HttpClient} and counts every call it makes per store (a refused call never reaches a
 * server, so the count is taken on the calling side). Register with {@code @RegisterExtension}.
 */
public final class StoreServers implements AfterEachCallback {

    private final int[] ports;
    private final HttpServer[] servers;
    private final Map<Integer, Set<Long>> received = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicLong> calls = new ConcurrentHashMap<>();
    private final Map<Integer, Long> delayMillis = new ConcurrentHashMap<>();
    private final Map<Integer, java.util.concurrent.atomic.AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<Integer, java.util.concurrent.atomic.AtomicInteger> maxInFlight = new ConcurrentHashMap<>();
    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newCachedThreadPool())
            .build();

    public StoreServers(int stores) {
        this.ports = new int[stores];
        this.servers = new HttpServer[stores];
        for (int i = 0; i < stores; i++) {
            received.put(i, ConcurrentHashMap.newKeySet());
            calls.put(i, new AtomicLong());
            inFlight.put(i, new java.util.concurrent.atomic.AtomicInteger());
            maxInFlight.put(i, new java.util.concurrent.atomic.AtomicInteger());
            servers[i] = start(i, 0);
            ports[i] = servers[i].getAddress().getPort();
        }
    }

    private HttpServer start(int store, int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            server.createContext("/orders", exchange -> {
                long id = Long.parseLong(new String(exchange.getRequestBody().readAllBytes()).trim());
                try {
                    long delay = delayMillis.getOrDefault(store, 0L);
                    if (delay > 0) {
                        Thread.sleep(delay); // simulated work: a slow store answers late
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                received.get(store).add(id);
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.setExecutor(Executors.newFixedThreadPool(32));
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the store's port: calls to it are refused until {@link #up}. */
    public synchronized void down(int store) {
        if (servers[store] != null) {
            servers[store].stop(0);
            servers[store] = null;
        }
    }

    /** Opens the store again on its port. */
    public synchronized void up(int store) {
        if (servers[store] == null) {
            servers[store] = start(store, ports[store]);
        }
    }

    /** Makes the store answer each call after {@code delay}. */
    public void slow(int store, Duration delay) {
        delayMillis.put(store, delay.toMillis());
    }

    /** Forgets the calls, the most at one time and the orders received so far, of every store. */
    public void resetCounts() {
        calls.values().forEach(c -> c.set(0));
        maxInFlight.values().forEach(m -> m.set(0));
        received.values().forEach(Set::clear);
    }

    /** The most calls the handler had running to the store at one time: the workers it held. */
    public int maxInFlight(int store) {
        return maxInFlight.get(store).get();
    }

    /** The calls the handler has running to the store now. */
    public int inFlight(int store) {
        return inFlight.get(store).get();
    }

    /** The calls the handler made to the store, whether or not they reached it. */
    public long calls(int store) {
        return calls.get(store).get();
    }

    /** The distinct orders the store received. */
    public Set<Long> received(int store) {
        return Set.copyOf(received.get(store));
    }

    /** The orders all stores but {@code except} received. */
    public int receivedExcept(int except) {
        int total = 0;
        for (int i = 0; i < ports.length; i++) {
            total += i == except ? 0 : received.get(i).size();
        }
        return total;
    }

    /**
     * Pushes the row to the store named by the context's endpoint: done on a 2xx answer; a refused or
     * timed-out connection throws, which the engine counts as the endpoint's fault; a 5xx answer is
     * {@link Outcome#endpointDown}.
     */
    public Outcome push(Row row, ScanContext ctx) throws IOException, InterruptedException {
        int store = Integer.parseInt(ctx.endpoint());
        calls.get(store).incrementAndGet();
        maxInFlight.get(store).accumulateAndGet(inFlight.get(store).incrementAndGet(), Math::max);
        HttpResponse<Void> response;
        try {
            response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[store] + "/orders"))
                            .timeout(Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.ofString(Long.toString(row.id())))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        } finally {
            inFlight.get(store).decrementAndGet();
        }
        if (response.statusCode() >= 500) {
            return Outcome.endpointDown("store " + store + " answered " + response.statusCode());
        }
        return Outcome.done();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<HttpServer> running = new ArrayList<>();
        for (HttpServer server : servers) {
            if (server != null) {
                running.add(server);
            }
        }
        running.forEach(s -> s.stop(0));
    }
}
