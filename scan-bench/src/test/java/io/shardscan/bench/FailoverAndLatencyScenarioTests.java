package io.shardscan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The scenarios of {@link ScenarioTests} that wait on lease TTLs and arrival rates more than they
 * compute, in a class of their own so that a second test JVM runs them beside the others.
 */
class FailoverAndLatencyScenarioTests {

    @Test
    void failover() throws Exception {
        ScenarioTests.assertResult(
                ScenarioTests.run("failover", "--rows", "3000"),
                "failover",
                "rows",
                "nodes",
                "failover_seconds",
                "rows_lost");
    }

    @Test
    void rebalance() throws Exception {
        ScenarioTests.assertResult(
                ScenarioTests.run("rebalance", "--nodes", "3"),
                "rebalance",
                "nodes",
                "excess_moves",
                "max_balance_seconds");
    }

    @Test
    void latency() throws Exception {
        String output = ScenarioTests.run("latency", "--rate", "50", "--seconds", "2");
        assertThat(output)
                .as("every system's row counts 100 pickups")
                .containsPattern("polling only \\(.*\\) +100 ")
                .containsPattern("ScanTasks.wake after each commit .* +100 ")
                .containsPattern("SKIP LOCKED poller .* +100 ")
                .containsPattern("db-scheduler defaults .* +100 ");
        ScenarioTests.assertResult(
                output,
                "latency",
                "rows",
                "rate",
                "polling_p50_ms",
                "polling_p99_ms",
                "polling_max_ms",
                "wake_p50_ms",
                "wake_p99_ms",
                "wake_max_ms",
                "skiplocked_p50_ms",
                "skiplocked_p99_ms",
                "dbscheduler_p50_ms",
                "dbscheduler_p99_ms",
                "dbscheduler_max_ms");
    }
}
