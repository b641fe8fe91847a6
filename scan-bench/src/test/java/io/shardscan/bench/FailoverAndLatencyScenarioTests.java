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

    @Test
    void sharded() throws Exception {
        String output = ScenarioTests.run(
                "sharded",
                "--tables",
                "16",
                "--databases",
                "2",
                "--busy",
                "4",
                "--rows",
                "400",
                "--seconds",
                "1",
                "--pickups",
                "2",
                "--warmup-probes",
                "1");
        assertThat(output)
                .as("both sides side by side: one application and task against one per database and per table")
                .containsPattern("figure +1 sharded task +16 single-table tasks")
                .containsPattern("Spring Boot applications +1 +2")
                .containsPattern("tasks / logical shards +1 / 16 +16 / 16")
                .containsPattern("idle statements/s, bench_sharded_1 +\\S+ +\\S+")
                .contains("load average");
        ScenarioTests.assertResult(
                output,
                "sharded",
                "tables",
                "databases",
                "busy_tables",
                "rows",
                "sharded_idle_statements_per_s",
                "single_idle_statements_per_s",
                "sharded_pickup_p50_ms",
                "sharded_pickup_p95_ms",
                "single_pickup_p50_ms",
                "single_pickup_p95_ms",
                "sharded_rows_per_s",
                "single_rows_per_s",
                "sharded_threads",
                "single_threads",
                "load_average");
    }
}
