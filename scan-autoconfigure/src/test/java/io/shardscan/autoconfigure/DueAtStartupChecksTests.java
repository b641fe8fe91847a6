package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.StartupProblems;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code due-at-column} and {@code delay} at startup, on H2: a usable setting binds, a bad one
 * (a delay without a unit among them) fails naming the property and the fix.
 */
class DueAtStartupChecksTests {

    private static final String TASK = "scan.tasks.orders.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(),
                    TASK + "table=tb_order",
                    TASK + "id-column=order_id",
                    TASK + "shard-key-column=user_id")
            .withUserConfiguration(Handler.class);

    @Test
    void dueAtColumnAndDelayBind() {
        runner.withPropertyValues(TASK + "due-at-column=updated_at", TASK + "delay=90s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TaskDefinition task =
                            context.getBean(ScanEngine.class).task("orders").definition();
                    assertThat(task.columns().dueAt()).isEqualTo("updated_at");
                    assertThat(task.delay()).isEqualTo(Duration.ofSeconds(90));
                });
    }

    @Test
    void aDelayWithoutAUnitFailsNamingThePropertyTheValueAndAnExample() {
        // delay: 15 meant as minutes would run rows 15 seconds after they are due
        runner.withPropertyValues(TASK + "due-at-column=updated_at", TASK + "delay=15")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.orders.delay is '15' without a unit: write it with one, e.g."
                                + " delay: 15m"));
    }

    @Test
    void missingDueAtColumnFailsNamingThePropertyAndTheColumns() {
        runner.withPropertyValues(TASK + "due-at-column=created_at")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.orders.due-at-column: table tb_order has no column created_at")
                        .containsIgnoringCase("its columns: order_id, user_id")
                        .contains("add the timestamp column that says when a row is due"));
    }

    @Test
    void dueAtColumnOfAnotherTypeThanTimestampFails() {
        runner.withPropertyValues(TASK + "due-at-column=last_error")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .containsIgnoringCase("column last_error (scan.tasks.orders.due-at-column) is of type")
                        .contains("CHARACTER VARYING")
                        .contains("it needs a timestamp type"));
    }

    @Test
    void negativeDelayFails() {
        runner.withPropertyValues(TASK + "due-at-column=updated_at", TASK + "delay=-5m")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.orders.delay must be zero or a positive duration (was PT-5M)")
                        .contains("e.g. 15m"));
    }

    @Test
    void delayWithoutDueAtColumnFails() {
        runner.withPropertyValues(TASK + "delay=15m").run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .startsWith("scan.tasks.orders.delay (PT15M) is set but scan.tasks.orders.due-at-column is not")
                .contains("name the timestamp column the delay counts from"));
    }

    @Test
    void misspelledKeysSuggestTheNewNames() {
        runner.withPropertyValues(TASK + "due-at-colum=updated_at", TASK + "dealy=15m")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .contains("scan.tasks.orders.due-at-colum")
                                .contains("did you mean 'due-at-column'?"))
                        .anySatisfy(p -> assertThat(p)
                                .contains("scan.tasks.orders.dealy")
                                .contains("did you mean 'delay'?")));
    }

    @Test
    void missingDueIndexPrintsItsStatements() {
        runner.withPropertyValues(TASK + "due-at-column=updated_at", TASK + "index-check=fail")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("CREATE INDEX tb_order_due_idx ON tb_order (status, scan_shard, retry_count,"
                                + " updated_at, order_id)"));
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
