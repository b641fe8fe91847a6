package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The floors of the intervals that poll or write: decided in core, for every way a task or engine is built. */
class FloorsTests {

    @Test
    void aTierIntervalBelowTheFloorIsRefusedNamingTheTier() {
        TaskDefinition.Builder task = TaskDefinition.builder("orders")
                .table("tb_order")
                .tiers(List.of(new Tier(0, 0, Duration.ofSeconds(3)), new Tier(1, 5, Duration.ofMillis(30))));

        assertThatThrownBy(task::build)
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.orders.tiers[1].interval is 30ms, below the floor of 100ms");
        assertThat(task.tiers(List.of(new Tier(0, 0, TaskDefinition.MIN_TIER_INTERVAL)))
                        .build()
                        .tiers())
                .containsExactly(new Tier(0, 0, Duration.ofMillis(100)));
    }

    @Test
    void aRenewIntervalBelowTheFloorIsAProblem() {
        assertThat(EngineSettings.belowFloor(Duration.ofMillis(20)))
                .startsWith("scan.renew-interval is 20ms, below the floor of 100ms");
        assertThat(EngineSettings.belowFloor(EngineSettings.MIN_RENEW_INTERVAL)).isNull();
    }
}
