package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.actuate.BudgetDescriptor;
import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code scan.max-workers} and each task's {@code priority} and {@code max-wait}, on H2: they reach
 * the engine, and a bad value fails startup naming the property and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkerBudgetConfigurationTests {

    private static final String TASK = "scan.tasks.orders.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(),
                    TASK + "table=tb_order",
                    TASK + "id-column=order_id",
                    TASK + "shard-key-column=user_id")
            .withUserConfiguration(Handler.class);

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(
                        "scan.max-workers=0",
                        "scan.max-workers must be at least 1 (was 0): set it to the handler threads all tasks of this"
                                + " node share, e.g. 16, or remove it"),
                Arguments.of("scan.max-workers=-3", "scan.max-workers must be at least 1 (was -3)"),
                Arguments.of(
                        TASK + "priority=-1",
                        "scan.tasks.orders.priority must be between 0 and 100 (was -1): the task with the higher"
                                + " priority gets free workers of scan.max-workers first, e.g. 10"),
                Arguments.of(TASK + "priority=101", "scan.tasks.orders.priority must be between 0 and 100 (was 101)"),
                // not a number: Boot's binder refuses it, naming the property
                Arguments.of(TASK + "priority=high", "scan.tasks.orders.priority"),
                Arguments.of(
                        TASK + "max-wait=5",
                        "scan.tasks.orders.max-wait is '5' without a unit: write it with one, e.g. max-wait: 5s or 500ms"),
                Arguments.of(TASK + "max-wait=-5", "scan.tasks.orders.max-wait is '-5' without a unit"),
                Arguments.of(
                        TASK + "max-wait=-5s",
                        "scan.tasks.orders.max-wait must be a positive duration (was PT-5S), e.g. 5s; leave it unset"),
                Arguments.of(
                        TASK + "max-wait=0s", "scan.tasks.orders.max-wait must be a positive duration (was PT0S)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void aBadValueFailsStartupNamingThePropertyAndTheFix(String property, String expected) {
        runner.withPropertyValues("scan.max-workers=4", property).run(context -> {
            assertThat(context).hasFailed();
            StringBuilder messages = new StringBuilder();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertThat(messages.toString()).contains(expected);
        });
    }

    @Test
    void badValuesAreReportedTogetherInBootsForm() {
        runner.withPropertyValues("scan.max-workers=0", TASK + "priority=-1", TASK + "max-wait=5")
                .run(context -> {
                    FailureAnalysis analysis = new ScanFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .startsWith("Shardscan cannot start; 3 problems:")
                            .contains("scan.max-workers", "scan.tasks.orders.priority", "scan.tasks.orders.max-wait");
                });
    }

    @Test
    void aMaxWaitWithoutAUnitFailsForATaskNameWithADash() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + OrderDatabase.create(),
                        "scan.max-workers=4",
                        "scan.tasks.notif-digest.table=tb_order",
                        "scan.tasks.notif-digest.id-column=order_id",
                        "scan.tasks.notif-digest.shard-key-column=user_id",
                        "scan.tasks.notif-digest.max-wait=500")
                .withUserConfiguration(DashedHandler.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append('\n');
                    }
                    assertThat(messages.toString())
                            .contains("scan.tasks.notif-digest.max-wait is '500' without a unit");
                });
    }

    @Test
    void theBudgetAndEachTasksPriorityAndMaxWaitReachTheEngine() {
        runner.withPropertyValues("scan.max-workers=4", TASK + "priority=10", TASK + "max-wait=1500ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine engine = context.getBean(ScanEngine.class);
                    assertThat(engine.settings().maxWorkers()).isEqualTo(4);
                    TaskDefinition task = engine.task("orders").definition();
                    assertThat(task.rounds().priority()).isEqualTo(10);
                    assertThat(task.rounds().maxWait()).isEqualTo(Duration.ofMillis(1500));
                    assertThat(engine.task("orders").budgeted()).isTrue();
                    // and /actuator/scan shows them
                    BudgetDescriptor budget = new ScanEndpoint(
                                    engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), false)
                            .task("orders")
                            .budget();
                    assertThat(budget.priority()).isEqualTo(10);
                    assertThat(budget.maxWait()).isEqualTo("PT1.5S");
                });
    }

    @Test
    void theBudgetIsOnByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            ScanEngine engine = context.getBean(ScanEngine.class);
            assertThat(engine.settings().maxWorkers()).isEqualTo(200);
            assertThat(engine.task("orders").budgeted()).isTrue();
        });
    }

    @Test
    void withoutTheBudgetTasksAreUnchangedAndAPriorityIsSaidToHaveNoEffect(CapturedOutput output) {
        // a customizer may still take the budget away
        runner.withBean(ScanEngineCustomizer.class, () -> builder -> builder.maxWorkers(null))
                .withPropertyValues(TASK + "priority=10")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine engine = context.getBean(ScanEngine.class);
                    assertThat(engine.settings().maxWorkers()).isNull();
                    assertThat(engine.task("orders").budgeted()).isFalse();
                    assertThat(output.getOut() + output.getErr())
                            .contains("scan.tasks.orders.priority and max-wait decide which task gets free workers of"
                                    + " scan.max-workers first, which is not set: they have no effect");
                });
    }

    @Test
    void workersAboveTheBudgetAreSaidToBeCappedByIt(CapturedOutput output) {
        runner.withPropertyValues("scan.max-workers=3", TASK + "workers=4").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output.getOut() + output.getErr())
                    .contains(
                            "Task orders: scan.tasks.orders.workers is 4, above scan.max-workers (3, the handler"
                                    + " threads all tasks of this node share): it runs at most 3 handlers at once on this node");
        });
        runner.withPropertyValues("scan.max-workers=4", TASK + "workers=4")
                .run(context -> assertThat(output.getOut() + output.getErr())
                        .as("once: not for workers within the budget")
                        .containsOnlyOnce("above scan.max-workers"));
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }

    static class DashedHandler {
        @ScanTask("notif-digest")
        public void send(Order order) {}
    }
}
