package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.TestServers;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An application's classifier reaches the tasks' handler failures through the engine's settings. */
class EndpointDownClassifierTests {

    /** A gateway's own "receiver down" exception, which the default classifier does not know. */
    static final class GatewayDownException extends RuntimeException {
        GatewayDownException() {
            super("503 from the store's gateway");
        }
    }

    @Test
    void theEnginesClassifierDecidesWhichHandlerFailuresAreTheEndpoints() {
        EndpointDownClassifier gateway = EndpointDownClassifier.DEFAULT.or(
                failure -> EndpointDownClassifier.Causes.any(failure, t -> t instanceof GatewayDownException));
        TaskDefinition task =
                TaskDefinition.builder("store-sync").table("tb_order").build();
        EngineSettings settings = new EngineSettings(
                "node-a",
                Duration.ofSeconds(2),
                Duration.ofMillis(500),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                null,
                WorkerThreads.PLATFORM,
                gateway);
        ScanClock clock = ScanClock.system();
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> Outcome.done())),
                new JdbcTaskStore(TestServers.h2("endpoint_down")),
                new StaticShardCoordinator(0, 1, clock),
                settings,
                clock,
                ScanListener.NONE);
        Row row = new Row(7, 7, 0, Map.of());

        HandlerFailures failures = engine.task("store-sync").handlerFailures();
        assertThat(failures.failed(List.of(row), new IllegalStateException("push", new GatewayDownException()))
                        .endpointDown())
                .isTrue();
        assertThat(failures.failed(List.of(row), new ConnectException("Connection refused"))
                        .endpointDown())
                .isTrue();
        assertThat(failures.failed(List.of(row), new IllegalArgumentException("bad payload"))
                        .endpointDown())
                .isFalse();
    }
}
