package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanListener;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Rounds, and handler calls when asked for, are observed through the application's ObservationRegistry. */
class ScanObservationAutoConfigurationTests {

    private final DataSource dataSource =
            TestServers.h2("observations_" + UUID.randomUUID().toString().replace("-", "_"));
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(ScanAutoConfiguration.class, ScanObservationAutoConfiguration.class))
            .withBean(DataSource.class, () -> dataSource)
            .withBean(OrderHandlers.class)
            .withPropertyValues(
                    "scan.lease-ttl=1s",
                    "scan.renew-interval=200ms",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.shards=4");

    private final ApplicationContextRunner withObservations =
            runner.withBean(ObservationRegistry.class, this::recordingRegistry);

    ScanObservationAutoConfigurationTests() {
        new OrderTable(dataSource).recreate(4, true).insert(10, 3, Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void observesRoundsButNotHandlerCallsByDefault() {
        withObservations.run(context -> {
            assertThat(context).hasSingleBean(ScanObservations.class);
            assertThat(context.getBeansOfType(ScanListener.class))
                    .containsValue(context.getBean(ScanObservations.class));
            await().until(() -> observed("scan.round", "handled"));
            assertThat(stopped)
                    .filteredOn(c -> "scan.round".equals(c.getName()))
                    .allSatisfy(round -> assertThat(round.getLowCardinalityKeyValues())
                            .extracting(KeyValue::getKey)
                            .containsExactlyInAnyOrder("task", "tier", "outcome"));
            assertThat(stopped).noneMatch(c -> "scan.handler".equals(c.getName()));
        });
    }

    @Test
    void observesEachHandlerCallWhenAskedTo() {
        withObservations.withPropertyValues("scan.observations.rows=true").run(context -> await().atMost(
                        Duration.ofSeconds(10))
                .until(() -> stopped.stream()
                                .filter(c -> "scan.handler".equals(c.getName()))
                                .filter(c -> "done".equals(outcome(c)))
                                .count()
                        == 10));
    }

    @Test
    void backsOffWithoutObservationRegistry() {
        runner.run(context -> assertThat(context).doesNotHaveBean(ScanObservations.class));
    }

    private ObservationRegistry recordingRegistry() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        return registry;
    }

    private boolean observed(String name, String outcome) {
        return stopped.stream().anyMatch(c -> name.equals(c.getName()) && outcome.equals(outcome(c)));
    }

    private static String outcome(Observation.Context context) {
        KeyValue outcome = context.getLowCardinalityKeyValue("outcome");
        return outcome == null ? null : outcome.getValue();
    }

    static class OrderHandlers {
        @ScanTask("orders")
        public void send(OrderRow order) {}
    }

    record OrderRow(long orderId, long userId) {}
}
