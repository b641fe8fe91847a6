package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.testsupport.StartupProblems;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code scan.tasks.<name>.schedule} at startup, on H2: a cron in a zone and a fixed rate start; every
 * setting that cannot work fails in Boot's "APPLICATION FAILED TO START" form, naming the property and
 * the fix.
 */
class ScheduleStartupChecksTests {

    private static final String TASK = "scan.tasks.orders.";

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + OrderDatabase.create(),
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id")
                .withUserConfiguration(Handler.class);
    }

    /** Fails startup with a problem that starts with {@code start} and holds each of {@code contains}. */
    private void fails(String[] properties, String start, String... contains) {
        runner().withPropertyValues(properties)
                .run(context -> assertThat(StartupProblems.of(context)).anySatisfy(problem -> {
                    assertThat(problem).startsWith(start);
                    for (String part : contains) {
                        assertThat(problem).contains(part);
                    }
                }));
    }

    @Test
    void aCronInAZoneAndAFixedRateStart() {
        runner().withPropertyValues(
                        TASK + "run=until-empty",
                        TASK + "schedule.cron=0 0 2 * * *",
                        TASK + "schedule.zone=Europe/Berlin")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ScanEngine.class)
                                    .task("orders")
                                    .definition()
                                    .schedule()
                                    .describe())
                            .isEqualTo("cron 0 0 2 * * * Europe/Berlin");
                });
        runner().withPropertyValues(TASK + "run=until-empty", TASK + "schedule.cron=@daily")
                .run(context -> assertThat(context.getBean(ScanEngine.class)
                                .task("orders")
                                .definition()
                                .schedule()
                                .describe())
                        .as("without a zone, the JVM's")
                        .isEqualTo("cron @daily " + ZoneId.systemDefault().getId()));
        runner().withPropertyValues(TASK + "run=until-empty", TASK + "schedule.every=15m")
                .run(context -> assertThat(context.getBean(ScanEngine.class)
                                .task("orders")
                                .definition()
                                .schedule()
                                .describe())
                        .isEqualTo("every 15m"));
    }

    @Test
    void aScheduleOnATaskThatRunsForeverSaysToSetUntilEmpty() {
        fails(
                new String[] {TASK + "schedule.every=1h"},
                "scan.tasks.orders.schedule starts a run of the task at each firing, but the task runs forever",
                "set scan.tasks.orders.run: until-empty");
    }

    @Test
    void aScheduleOnAFollowingRangeTaskSaysToSetOnce() {
        fails(
                new String[] {TASK + "mode=range", TASK + "run=follow", TASK + "schedule.every=1h"},
                "scan.tasks.orders.schedule starts a run at each firing, but the task's run is follow, which never"
                        + " ends",
                "set scan.tasks.orders.run: once");
    }

    @Test
    void aCronThatDoesNotParseNamesTheSixFields() {
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.cron=0 2 * * *"},
                "scan.tasks.orders.schedule.cron '0 2 * * *' is not a cron expression (",
                "write Spring's six fields, second minute hour day-of-month month day-of-week",
                "a Unix cron's five fields need a seconds field first: 0 0 2 * * *");
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.cron=0 0 0 30 2 *"},
                "scan.tasks.orders.schedule.cron '0 0 0 30 2 *' never fires");
    }

    @Test
    void aZoneThatIsNoneOrWithoutACronIsRefused() {
        fails(
                new String[] {
                    TASK + "run=until-empty", TASK + "schedule.cron=0 0 2 * * *", TASK + "schedule.zone=Europe/Berln"
                },
                "scan.tasks.orders.schedule.zone 'Europe/Berln' is not a time zone",
                "a region id such as Europe/Berlin");
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.zone=UTC"},
                "scan.tasks.orders.schedule.zone is set but neither scan.tasks.orders.schedule.cron nor");
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.every=1h", TASK + "schedule.zone=UTC"},
                "scan.tasks.orders.schedule.zone is set with every, which fires at whole multiples");
    }

    @Test
    void cronAndEveryTogetherAreRefused() {
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.cron=0 0 2 * * *", TASK + "schedule.every=1h"},
                "scan.tasks.orders.schedule.cron and scan.tasks.orders.schedule.every are both set",
                "remove the other");
    }

    @Test
    void everyNeedsAUnitAndASecond() {
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.every=3600"},
                "scan.tasks.orders.schedule.every is '3600' without a unit: write it with one, e.g. schedule.every: 1m");
        fails(
                new String[] {TASK + "run=until-empty", TASK + "schedule.every=500ms"},
                "scan.tasks.orders.schedule.every must be at least 1s (was PT0.5S)");
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
