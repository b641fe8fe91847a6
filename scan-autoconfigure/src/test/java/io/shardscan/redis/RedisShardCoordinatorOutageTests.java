package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

@ServerTests
class RedisShardCoordinatorOutageTests {

    static final Duration TTL = Duration.ofSeconds(5);
    final RedisServerHandle server = TestServers.redis();
    LettuceConnectionFactory connectionFactory;
    RedisShardCoordinator coordinator;
    String task;

    @BeforeEach
    void setUp() {
        // a short command timeout: while Redis is down Lettuce queues commands until it reconnects
        connectionFactory = RedisConnections.connected(
                new RedisStandaloneConfiguration(server.host(), server.port()), Duration.ofMillis(500));
        coordinator = new RedisShardCoordinator(connectionFactory);
        task = "outage-" + System.nanoTime();
    }

    @AfterEach
    void tearDown() {
        if (server.isManaged()) {
            server.start(); // no-op unless a failed test left it stopped
        }
        connectionFactory.destroy();
    }

    @Test
    void keysOfATaskShareItsHashTag() {
        coordinator.tryAcquire(task, 7, "a", TTL).orElseThrow();
        coordinator.heartbeat(task, "a", TTL);
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        assertThat(redis.keys("scan:{" + task + "}:*"))
                .containsExactlyInAnyOrder(
                        "scan:{" + task + "}:lease:7",
                        "scan:{" + task + "}:epoch",
                        "scan:{" + task + "}:epochs",
                        "scan:{" + task + "}:members");
        assertThat(redis.getExpire("scan:{" + task + "}:lease:7")).isPositive();
    }

    @Test
    void releasedShardStaysListedFreeWithItsLastEpoch() {
        long epoch = coordinator.tryAcquire(task, 2, "a", TTL).orElseThrow().epoch();
        coordinator.release(task, 2, "a", epoch);
        assertThat(coordinator.leases(task)).containsExactly(new LeaseInfo(2, null, epoch, null));
        Instant beat = coordinator.heartbeat(task, "a", TTL).get(0).lastHeartbeat();
        assertThat(beat).isCloseTo(Instant.now(), within(5, ChronoUnit.SECONDS));
    }

    @Test
    void itsLocationNamesTheServersHostAndPort() {
        // what the node's "coordinator unreachable" WARN names (CoordinatorOutageTests)
        assertThat(coordinator.location()).isEqualTo("Redis at " + server.host() + ":" + server.port());
    }

    @Test
    void throwsWhileRedisIsDownAndWorksAgainWithoutANewCoordinator() {
        assumeTrue(server.isManaged(), "SCAN_TEST_REDIS_URL points at a Redis these tests cannot stop");
        long before = coordinator.tryAcquire(task, 0, "a", TTL).orElseThrow().epoch();
        assertThat(coordinator.heartbeat(task, "a", TTL))
                .extracting(Member::node)
                .containsExactly("a");

        server.stop();
        assertThatThrownBy(() -> coordinator.heartbeat(task, "a", TTL)).isInstanceOf(DataAccessException.class);
        assertThatThrownBy(() -> coordinator.renew(task, "a", Map.of(0, before), TTL))
                .isInstanceOf(DataAccessException.class);

        server.start();
        await().ignoreExceptions().untilAsserted(() -> assertThat(coordinator.heartbeat(task, "a", TTL))
                .extracting(Member::node)
                .containsExactly("a"));
        // the restarted Redis lost the lease and the counter: the new grant must still fence the old one
        long after = coordinator.tryAcquire(task, 0, "b", TTL).orElseThrow().epoch();
        assertThat(after).isGreaterThan(before);
        assertThat(coordinator.renew(task, "a", Map.of(0, before), TTL)).isEmpty();
        assertThat(coordinator.renew(task, "b", Map.of(0, after), TTL)).containsExactly(0);
    }
}
