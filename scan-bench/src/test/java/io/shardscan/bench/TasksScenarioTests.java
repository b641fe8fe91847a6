package io.shardscan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A tiny run of the tasks scenario on embedded servers: its table's form and its {@code RESULT} keys, never a figure. */
class TasksScenarioTests {

    @Test
    void tasks() throws Exception {
        String output =
                ScenarioTests.run("tasks", "--tasks", "1,3", "--seconds", "2", "--rows", "300", "--warmup-probes", "1");
        assertThat(output)
                .as("one column per count, JDBC leases as the auto-configuration picks them without Redis")
                .containsPattern("(?m)^figure +1 task +3 tasks$")
                .contains("3 task(s), jdbc leases: 24 of 24 shards held")
                .containsPattern("(?m)^busy: rows drained +300 +300$");
        ScenarioTests.assertResult(
                output,
                "tasks",
                "coordinator",
                "tasks_1_idle_threads",
                "tasks_3_idle_threads",
                "tasks_3_idle_statements_per_s_per_task",
                "tasks_3_idle_lease_statements_per_s",
                "tasks_3_leases_lost",
                "tasks_3_rows_per_s",
                "tasks_3_peak_threads",
                "tasks_3_drain_statements_per_1000");
    }
}
