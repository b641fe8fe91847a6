package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The contract of {@link EndpointBans}, run by every store through a subclass. */
public abstract class EndpointBansContractTests {

    protected abstract EndpointBans createStore();

    /**
     * Moves every trip of {@code task} that the store holds into the past, on the store's own clock
     * (the database's or Redis's time, which the test cannot set): as if the trip window passed.
     */
    protected abstract void ageTrips(String task);

    /** {@link #ageTrips} for the JDBC store: every trip of {@code task} to the year 2000. */
    protected static void ageJdbcTrips(DataSource dataSource, String task) {
        new JdbcTemplate(dataSource)
                .update(
                        "UPDATE scan_endpoint_trip SET tripped_at = ? WHERE task = ?",
                        Timestamp.valueOf("2000-01-01 00:00:00"),
                        task);
    }

    private EndpointBans store;
    private String task;

    @BeforeEach
    void setUp() {
        store = createStore();
        task = "bans-" + System.nanoTime();
    }

    @Test
    void countsTripsWithinTheWindowOnly() {
        Duration window = Duration.ofMillis(800);
        assertThat(store.trip(task, "store-1", window)).isEqualTo(1);
        assertThat(store.trip(task, "store-1", window)).isEqualTo(2);
        assertThat(store.trip(task, "store-2", window)).isEqualTo(1);
        assertThat(store.trip(task, "store-1", window)).isEqualTo(3);
        ageTrips(task);
        assertThat(store.trip(task, "store-1", window)).isEqualTo(1);
        assertThat(store.trip("other-" + task, "store-1", window)).isEqualTo(1);
    }

    /**
     * Eight nodes trip one endpoint at once, ten times each, and ban it after every third trip:
     * every trip and ban succeeds (none is lost to a deadlock of a trip's insert and a ban's delete
     * of the endpoint's trips), and the endpoint has one ban. (A trip that a ban of the same moment
     * forgot may count none.)
     */
    @Test
    void tripsAndBansOfOneEndpointByManyNodesAtOnceAllSucceed() throws Exception {
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> tripped = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                tripped.add(pool.submit(() -> {
                    start.await();
                    int most = 0;
                    for (int i = 0; i < 10; i++) {
                        most = Math.max(most, store.trip(task, "store-1", Duration.ofMinutes(5)));
                        if (i % 3 == 2) {
                            store.ban(task, "store-1", Duration.ofMinutes(5), "refused");
                        }
                    }
                    return most;
                }));
            }
            start.countDown();
            for (Future<Integer> most : tripped) {
                assertThat(most.get(60, TimeUnit.SECONDS)).isBetween(1, nodes * 10);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.bans(task)).singleElement().satisfies(ban -> assertThat(ban.active())
                .isTrue());
    }

    @Test
    void aBanIsInForceThenEndsAndKeepsItsStartWhenRenewed() {
        store.trip(task, "store-1", Duration.ofMinutes(5));
        assertThat(store.ban(task, "store-1", Duration.ofMillis(700), "refused"))
                .as("the first ban starts it")
                .isTrue();
        List<EndpointBan> bans = store.bans(task);
        assertThat(bans).singleElement().satisfies(ban -> {
            assertThat(ban.endpoint()).isEqualTo("store-1");
            assertThat(ban.active()).isTrue();
            assertThat(ban.lastError()).isEqualTo("refused");
            assertThat(ban.until()).isAfter(ban.since());
            // the instant it is, whatever the JVM's and the database's zones
            assertThat(ban.since())
                    .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
        });
        // a ban forgets the trips that made it
        assertThat(store.trip(task, "store-1", Duration.ofMinutes(5))).isEqualTo(1);
        await().until(() -> !store.bans(task).get(0).active());
        assertThat(store.ban(task, "store-1", Duration.ofMinutes(1), "still refused"))
                .as("a ban that ended starts again")
                .isTrue();
        assertThat(store.ban(task, "store-1", Duration.ofMinutes(1), "still refused"))
                .as("a ban in force is extended, not started")
                .isFalse();
        EndpointBan renewed = store.bans(task).get(0);
        assertThat(renewed.since()).isEqualTo(bans.get(0).since());
        assertThat(renewed.active()).isTrue();
        assertThat(renewed.lastError()).isEqualTo("still refused");
        assertThat(store.bans("other-" + task)).isEmpty();
    }

    @Test
    void oneOfManyCallersWinsTheProbeOfAnEndedBan() throws Exception {
        store.ban(task, "store-1", Duration.ofMillis(300), "refused");
        assertThat(store.claimProbe(task, "store-1", Duration.ofSeconds(30))).isFalse();
        assertThat(store.claimProbe(task, "store-2", Duration.ofSeconds(30))).isFalse();
        await().until(() -> !store.bans(task).get(0).active());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> claims = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                claims.add(pool.submit(
                        (Callable<Boolean>) () -> store.claimProbe(task, "store-1", Duration.ofSeconds(30))));
            }
            int won = 0;
            for (Future<Boolean> claim : claims) {
                won += claim.get() ? 1 : 0;
            }
            assertThat(won).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        // the winner's hold puts the ban back in force for everyone else
        assertThat(store.bans(task).get(0).active()).isTrue();
    }

    /**
     * Eight nodes ban, all at once, an endpoint none had banned (the one whose calls fail for them
     * all) and each one of its own, in turns, twenty rounds: every ban succeeds (none is lost to a
     * deadlock of two first bans, or to a duplicate key), each endpoint has one ban, in force,
     * with one of the errors it was banned for, and one node started it.
     */
    @Test
    void freshEndpointsBannedAtOnceByManyNodesAreAllBanned() throws Exception {
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            for (int round = 0; round < 20; round++) {
                String shared = "shared-" + round;
                String own = "own-" + round + "-";
                List<String> expected = new ArrayList<>(List.of(shared));
                CountDownLatch start = new CountDownLatch(1);
                List<Future<List<String>>> banned = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    List<String> endpoints = n % 2 == 0 ? List.of(shared, own + n) : List.of(own + n, shared);
                    expected.add(own + n);
                    String error = "refused by node-" + n;
                    banned.add(pool.submit(() -> {
                        start.await();
                        List<String> started = new ArrayList<>();
                        for (String endpoint : endpoints) {
                            if (store.ban(task, endpoint, Duration.ofMinutes(5), error)) {
                                started.add(endpoint);
                            }
                        }
                        return started;
                    }));
                }
                start.countDown();
                List<String> started = new ArrayList<>();
                for (Future<List<String>> ban : banned) {
                    started.addAll(ban.get(60, TimeUnit.SECONDS));
                }
                assertThat(started)
                        .as("round %d: the bans each node started", round)
                        .containsExactlyInAnyOrderElementsOf(expected);
                List<EndpointBan> bans = store.bans(task).stream()
                        .filter(ban ->
                                ban.endpoint().equals(shared) || ban.endpoint().startsWith(own))
                        .toList();
                assertThat(bans)
                        .as("round %d", round)
                        .extracting(EndpointBan::endpoint)
                        .containsExactlyInAnyOrderElementsOf(expected);
                assertThat(bans).allSatisfy(ban -> {
                    assertThat(ban.active()).isTrue();
                    assertThat(ban.lastError()).startsWith("refused by node-");
                });
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLiftedBanIsGoneWithItsTrips() {
        store.trip(task, "store-1", Duration.ofMinutes(5));
        store.ban(task, "store-1", Duration.ofMinutes(5), "refused");
        store.trip(task, "store-1", Duration.ofMinutes(5));
        assertThat(store.lift(task, "store-1")).isTrue();
        assertThat(store.bans(task)).isEmpty();
        assertThat(store.lift(task, "store-1")).isFalse();
        assertThat(store.trip(task, "store-1", Duration.ofMinutes(5))).isEqualTo(1);
    }
}
