package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.ScanEngine;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A node started with the wrong Redis (here: another Redis database, whose keys are apart as another
 * server's would be) shares the database but not the coordinator: both clusters claim every shard
 * and fence each other off. Each side names the other as a foreign fence owner, at ERROR, in the
 * {@code scan.fence.foreign} count and as a DOWN health with the cause.
 */
@ServerTests
class ForeignClusterTests {

    static final int SHARDS = 4;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog coreLog = new CapturedLog("io.shardscan.core");

    RedisNodes nodes;

    @AfterEach
    void stop() {
        if (nodes != null) {
            nodes.close(true);
        }
    }

    @Test
    void aNodeOfAnotherCoordinatorThatTakesAFenceIsNamedOnBothSides() {
        nodes = new RedisNodes(engines, "foreign_cluster", Duration.ofSeconds(2), Duration.ofMillis(50), SHARDS);
        nodes.table.insert(20_000, 2_000, Instant.now().minusSeconds(5));
        ScanEngine a = nodes.start("node-a");
        ScanHealthIndicator healthA = new ScanHealthIndicator(a);
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> a.task(nodes.name).ownedShards().size() == SHARDS
                        && healthA.health(false).getStatus().equals(Status.UP));

        ScanEngine b = nodes.start("node-b", nodes.coordinatorOfAnotherRedis(1));

        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> a.task(nodes.name).stats().foreignFences() > 0
                        && b.task(nodes.name).stats().foreignFences() > 0);
        assertThat(a.task(nodes.name).stats().lastForeignFence().node()).isEqualTo("node-b");
        assertThat(b.task(nodes.name).stats().lastForeignFence().node()).isEqualTo("node-a");
        List<String> errors = coreLog.messages(java.util.logging.Level.SEVERE);
        assertThat(errors)
                .anyMatch(e -> e.contains("node node-b holds shard")
                        && e.contains("not a member of this node's (node-a) coordinator (redis, members node-a)")
                        && e.contains("two clusters share this database but not their coordinator")
                        && e.contains("spring.data.redis.*"))
                .anyMatch(e -> e.contains("node node-a holds shard") && e.contains("(node-b) coordinator"));
        Health health = healthA.health(true);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(String.valueOf(details(health).get("foreignFenceOwner")))
                .contains("node node-b took shard", "spring.data.redis.*");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("tasks")).get(nodes.name);
    }
}
