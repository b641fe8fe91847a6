package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.EndpointBan;
import io.shardscan.core.EndpointBans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract of {@link EndpointBans}, run by every store through a subclass. */
public abstract class EndpointBansContractTests {

    protected abstract EndpointBans createStore();

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
        await().pollDelay(window.plusMillis(200)).until(() -> true);
        assertThat(store.trip(task, "store-1", window)).isEqualTo(1);
        assertThat(store.trip("other-" + task, "store-1", window)).isEqualTo(1);
    }

    @Test
    void aBanIsInForceThenEndsAndKeepsItsStartWhenRenewed() {
        store.trip(task, "store-1", Duration.ofMinutes(5));
        store.ban(task, "store-1", Duration.ofMillis(700), "refused");
        List<EndpointBan> bans = store.bans(task);
        assertThat(bans).singleElement().satisfies(ban -> {
            assertThat(ban.endpoint()).isEqualTo("store-1");
            assertThat(ban.active()).isTrue();
            assertThat(ban.lastError()).isEqualTo("refused");
            assertThat(ban.until()).isAfter(ban.since());
        });
        // a ban forgets the trips that made it
        assertThat(store.trip(task, "store-1", Duration.ofMinutes(5))).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !store.bans(task).get(0).active());
        store.ban(task, "store-1", Duration.ofMinutes(1), "still refused");
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
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !store.bans(task).get(0).active());
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
