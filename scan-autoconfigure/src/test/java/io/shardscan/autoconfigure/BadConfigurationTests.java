package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every kind of bad configuration fails startup, on a real H2 table, with a message that names the
 * property or the bean and says what to do.
 */
class BadConfigurationTests {

    private static final String TASK = "scan.tasks.orders.";

    static Stream<Arguments> badConfigurations() {
        return Stream.of(
                bad(
                        "unknown table",
                        Handler.class,
                        List.of("table=no_such_table"),
                        "scan.tasks.orders.table 'no_such_table' does not exist"),
                bad(
                        "missing column",
                        Handler.class,
                        List.of("retry-column=attempts"),
                        "has no column attempts",
                        "set scan.tasks.orders.retry-column to the column's name"),
                bad(
                        "quote in identifier",
                        Handler.class,
                        List.of("table=tb_order\"--"),
                        "scan.tasks.orders.table 'tb_order\"--' is not a plain SQL identifier"),
                bad(
                        "semicolon in identifier",
                        Handler.class,
                        List.of("id-column=order_id;drop table x"),
                        "scan.tasks.orders.id-column",
                        "is not a plain SQL identifier"),
                bad(
                        "space in identifier",
                        Handler.class,
                        List.of("status-column=status x"),
                        "scan.tasks.orders.status-column",
                        "is not a plain SQL identifier"),
                bad("zero shards", Handler.class, List.of("shards=0"), "scan.tasks.orders.shards must be at least 1"),
                bad(
                        "negative shards",
                        Handler.class,
                        List.of("shards=-4"),
                        "scan.tasks.orders.shards must be at least 1 (was -4)"),
                bad(
                        "zero page size",
                        Handler.class,
                        List.of("page-size=0"),
                        "scan.tasks.orders.page-size must be at least 1"),
                bad(
                        "zero workers",
                        Handler.class,
                        List.of("workers=0"),
                        "scan.tasks.orders.workers must be at least 1"),
                bad(
                        "overlapping tiers",
                        Handler.class,
                        List.of(
                                "tiers[0].retries=0",
                                "tiers[0].interval=1s",
                                "tiers[1].retries=0-3",
                                "tiers[1].interval=5s"),
                        "scan.tasks.orders.tiers overlap"),
                bad(
                        "gap between tiers",
                        Handler.class,
                        List.of(
                                "tiers[0].retries=0",
                                "tiers[0].interval=1s",
                                "tiers[1].retries=3-5",
                                "tiers[1].interval=5s"),
                        "scan.tasks.orders.tiers leave retries 1-2 uncovered"),
                bad(
                        "malformed retries range",
                        Handler.class,
                        List.of(
                                "tiers[0].retries=0",
                                "tiers[0].interval=1s",
                                "tiers[1].retries=1..5",
                                "tiers[1].interval=5s"),
                        "scan.tasks.orders.tiers[1].retries"),
                bad(
                        "unknown on-exhausted value",
                        Handler.class,
                        List.of("on-exhausted=explode"),
                        "scan.tasks.orders.on-exhausted"),
                bad("equal status values", Handler.class, List.of("pending-status=1"), "scan.tasks.orders.status"),
                bad(
                        "handler timeout not shorter than the round timeout",
                        Handler.class,
                        List.of("handler-timeout=10m", "round-timeout=5m"),
                        "scan.tasks.orders.handler-timeout"),
                bad(
                        "zero commit interval",
                        Handler.class,
                        List.of("commit-interval=0s"),
                        "scan.tasks.orders.commit-interval"),
                bad("unknown ordering", Handler.class, List.of("ordering=sometimes"), "scan.tasks.orders.ordering"),
                bad(
                        "index missing under index-check=fail",
                        Handler.class,
                        List.of("index-check=fail"),
                        "lacks an index",
                        "ADD COLUMN scan_shard",
                        "CREATE INDEX tb_order_scan_idx"),
                bad(
                        "handler without parameters",
                        NoParameterHandler.class,
                        List.of(),
                        "bean 'badConfigurationTests.NoParameterHandler'",
                        "send",
                        "orders"),
                bad(
                        "handler with a wrong second parameter",
                        WrongSecondParameterHandler.class,
                        List.of(),
                        "bean 'badConfigurationTests.WrongSecondParameterHandler'",
                        "ScanContext"),
                bad(
                        "handler returning a value",
                        ReturnsStringHandler.class,
                        List.of(),
                        "bean 'badConfigurationTests.ReturnsStringHandler'",
                        "Outcome"),
                bad(
                        "two handlers for one task",
                        TwoHandlers.class,
                        List.of(),
                        "@ScanTask(\"orders\") is on 2 methods",
                        "TwoHandlers.sendAgain"),
                bad(
                        "handler without configuration",
                        UnconfiguredHandler.class,
                        List.of(),
                        "@ScanTask(\"refunds\")",
                        "scan.tasks.refunds"),
                bad(
                        "configuration without handler",
                        NoHandler.class,
                        List.of(),
                        "scan.tasks.orders is configured but no bean has a @ScanTask(\"orders\") method"),
                bad(
                        "renew interval above half the lease ttl",
                        Handler.class,
                        List.of("!scan.lease-ttl=2s", "!scan.renew-interval=1500ms"),
                        "scan.renew-interval"),
                bad(
                        "node index outside node count",
                        Handler.class,
                        List.of("!scan.node-index=3", "!scan.node-count=3"),
                        "scan.node-index"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigurations")
    void failsStartupNamingTheCause(String name, Class<?> handlers, List<String> properties, List<String> expected) {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + OrderDatabase.create())
                .withPropertyValues(withDefaults(properties))
                .withUserConfiguration(handlers)
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = failure; t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append('\n');
                    }
                    assertThat(messages.toString()).as(name).contains(expected);
                });
    }

    private static Arguments bad(String name, Class<?> handlers, List<String> properties, String... expected) {
        return Arguments.of(name, handlers, properties, List.of(expected));
    }

    /** The task's required settings, overridden by the case's own; a leading '!' marks a non-task property. */
    private static String[] withDefaults(List<String> properties) {
        List<String> all = new ArrayList<>(
                List.of(TASK + "table=tb_order", TASK + "id-column=order_id", TASK + "shard-key-column=user_id"));
        properties.forEach(p -> all.add(p.startsWith("!") ? p.substring(1) : TASK + p));
        return all.toArray(String[]::new);
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }

    static class NoParameterHandler {
        @ScanTask("orders")
        public void send() {}
    }

    static class WrongSecondParameterHandler {
        @ScanTask("orders")
        public void send(Order order, String text) {}
    }

    static class ReturnsStringHandler {
        @ScanTask("orders")
        public String send(Order order) {
            return "sent";
        }
    }

    static class TwoHandlers {
        @ScanTask("orders")
        public void send(Order order) {}

        @ScanTask("orders")
        public void sendAgain(Order order) {}
    }

    static class UnconfiguredHandler {
        @ScanTask("orders")
        public void send(Order order) {}

        @ScanTask("refunds")
        public void refund(Order order) {}
    }

    static class NoHandler {}
}
