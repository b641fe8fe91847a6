package io.shardscan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tiny run of every scenario on embedded PostgreSQL and Redis. Asserts only that each completes and
 * ends with a well-formed {@code RESULT} line carrying its keys, never a timing. The scenarios that wait
 * on leases and rates are in {@link FailoverAndLatencyScenarioTests}, which a second test JVM runs beside.
 */
class ScenarioTests {

    @Test
    void throughput() throws Exception {
        String output = run("throughput", "--rows", "2000", "--dbscheduler-rows", "500", "--passes", "2");
        assertThat(output)
                .as("Shardscan's rows went through the @ScanTask method, every row of both passes")
                .containsPattern("@ScanTask method taking record BenchRow.* it received [4-9],\\d{3} rows");
        assertThat(output)
                .as("every system's rows are done, the SKIP LOCKED poller's too")
                .containsPattern("(?m)^2 +SKIP LOCKED poller .* 2,000 +\\S+ +\\S+ +0$");
        assertResult(
                output,
                "throughput",
                "rows",
                "nodes",
                "shardscan_rows_per_s",
                "raw_rows_per_s",
                "skiplocked_rows_per_s",
                "dbscheduler_rows_per_s",
                "ratio_vs_raw",
                "ratio_vs_skiplocked",
                "ratio_vs_dbscheduler",
                "first_pass_ratio_vs_raw",
                "shardscan_statements_per_1000",
                "skiplocked_statements_per_1000",
                "shardscan_wal_bytes_per_row",
                "dbscheduler_wal_bytes_per_row");
    }

    @Test
    void throughputOverNodeProcesses() throws Exception {
        String output = run("throughput", "--rows", "2000", "--nodes", "1,2", "--passes", "1");
        assertThat(output)
                .as("each node count drained every row with no lease statement on PostgreSQL; raw once for scale")
                .containsPattern("(?m)^1 +Shardscan +1 +\\S+ +\\S+ +\\S+ +0 +2,000 +\\S+ +0$")
                .containsPattern("(?m)^1 +Shardscan +2 +\\S+ +\\S+ +\\S+ +0 +2,000 +\\S+ +0$")
                .containsPattern("(?m)^1 +raw limit +2 threads .* 2,000 +\\S+ +0$");
        assertResult(
                output,
                "throughput",
                "rows",
                "nodes",
                "raw_rows_per_s",
                "nodes_1_rows_per_s",
                "nodes_2_rows_per_s",
                "nodes_1_statements_per_1000",
                "nodes_2_statements_per_1000",
                "nodes_2_wal_bytes_per_row",
                "nodes_2_lease_statements");
    }

    @Test
    void range() throws Exception {
        String output = run("range", "--rows", "3000", "--workers", "2");
        assertThat(output)
                .as("both systems handed every id to the @ScanTask method, and the ledger counts each once")
                .containsPattern("start to DONE +3,000 ")
                .containsPattern("LIMIT 200\\), quicker of before and after +3,000 ")
                .contains("processed rows in the ledger: 3,000 in the last pass");
        assertResult(output, "range", "rows", "nodes", "shardscan_rows_per_s", "raw_rows_per_s", "ratio_vs_raw");
    }

    @Test
    void flatness() throws Exception {
        assertResult(
                run("flatness", "--rows", "5000"), "flatness", "rows", "early_ms", "late_ms", "ratio_late_vs_early");
    }

    @Test
    void skew() throws Exception {
        assertResult(run("skew", "--rows", "400"), "skew", "rows", "workers", "utilization");
    }

    @Test
    void fairness() throws Exception {
        assertResult(
                run("fairness", "--rows", "200", "--due-shards", "2", "--handler-ms", "1"),
                "fairness",
                "rows",
                "task_2_last_shard_start_ms",
                "task_2_rows_per_s",
                "budget_2_last_shard_start_ms",
                "budget_2_utilization");
    }

    @Test
    void memory() throws Exception {
        assertResult(run("memory", "--rows", "5000", "--xmx", "256m"), "memory", "rows", "nodes", "peak_heap_mb");
    }

    @Test
    void idle() throws Exception {
        String output = run(
                "idle",
                "--rows",
                "2000",
                "--seconds",
                "1",
                "--warmup-probes",
                "1",
                "--dbscheduler-warmup-seconds",
                "1");
        assertThat(output)
                .as("every system measured: Shardscan on 1 and 3 nodes with both leases, db-scheduler on 1 and 3")
                .containsPattern("Shardscan +1 +Redis")
                .containsPattern("Shardscan +3 +JDBC")
                .containsPattern("db-scheduler +3 ");
        assertResult(
                output,
                "idle",
                "seconds",
                "shardscan_statements_per_s",
                "shardscan_statements_per_s_per_node",
                "shardscan_jdbc_leases_statements_per_s",
                "dbscheduler_statements_per_s");
    }

    @Test
    void embeddedOptionStartsItsOwnServers() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Main.run(
                Options.parse("skew", "--rows", "100", "--embedded"),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertResult(bytes.toString(StandardCharsets.UTF_8), "skew", "utilization");
    }

    static String run(String scenario, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(scenario));
        args.addAll(Arrays.asList(options));
        args.addAll(List.of(
                "--pg-url",
                TestServers.postgresEndpoint().urlWithCredentials(),
                "--redis-url",
                TestServers.redisUrl()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Main.run(Options.parse(args.toArray(String[]::new)), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(output);
        return output;
    }

    static void assertResult(String output, String scenario, String... keys) {
        List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        String last = lines.get(lines.size() - 1);
        assertThat(last).matches(ResultLine.FORMAT).startsWith("RESULT " + scenario + " ");
        assertThat(lines.stream().filter(l -> l.startsWith("RESULT ")).count()).isOne();
        for (String key : keys) {
            assertThat(last).containsPattern(" " + key + "=[^ ]+");
        }
    }
}
