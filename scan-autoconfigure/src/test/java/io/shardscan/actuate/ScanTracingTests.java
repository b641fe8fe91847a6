package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.shardscan.core.ScanClock;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The handler runs inside the trace of its round, through Micrometer Tracing's own test tracer: the
 * span current in the handler is the call's (per-row observations on) or the round's (off), so a
 * handler's JDBC and HTTP spans and its log lines' trace ids join the round's trace; an exception that
 * ended a call is recorded on its span.
 */
class ScanTracingTests {

    static final int ROWS = 40;

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("tracing");
    final SimpleTracer tracer = new SimpleTracer();
    final ObservationRegistry registry = ObservationRegistry.create();
    /** The span current in the handler, by row id. */
    final Map<Long, Span> currentInHandler = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp() {
        new OrderTable(dataSource)
                .recreate(4, true)
                .coordinationTables()
                .insert(ROWS, 10, Instant.now().minusSeconds(5));
        registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
    }

    @ParameterizedTest(name = "per-row observations {0}")
    @ValueSource(booleans = {true, false})
    void theHandlerRunsInItsRoundsTrace(boolean rows) {
        start(rows, (row, ctx) -> {
            currentInHandler.put(row.id(), Objects.requireNonNull(tracer.currentSpan(), "no current span"));
            if (row.id() % 10 == 0) {
                throw new IllegalStateException("gateway refused order " + row.id());
            }
            return Outcome.done();
        });
        await().until(() -> currentInHandler.size() == ROWS);
        // every shard's first round ended: 40 rows on 4 shards take one page each
        await().until(() -> tracer.getSpans().stream()
                        .filter(span -> "scan round orders".equals(span.getName())
                                && span.getEndTimestamp().isAfter(Instant.EPOCH))
                        .count()
                >= 4);

        // the tracer lists spans from their start: only ended ones carry their error
        List<SimpleSpan> finished = tracer.getSpans().stream()
                .filter(span -> span.getEndTimestamp().isAfter(Instant.EPOCH))
                .toList();
        Map<String, SimpleSpan> byId = new ConcurrentHashMap<>();
        finished.forEach(span -> byId.put(span.context().spanId(), span));
        AtomicInteger checked = new AtomicInteger();
        AtomicInteger errorsChecked = new AtomicInteger();
        currentInHandler.forEach((id, span) -> {
            SimpleSpan seen = byId.get(span.context().spanId());
            if (seen == null) {
                return; // its round or call not finished yet when the spans were copied
            }
            if (rows) {
                assertThat(seen.getName()).isEqualTo("scan handler orders");
                SimpleSpan round = byId.get(seen.getParentId());
                if (round == null) {
                    return; // its round not ended yet (nor if the call had no parent: then none is checked)
                }
                checked.incrementAndGet();
                assertThat(round.getName()).isEqualTo("scan round orders");
                assertThat(seen.context().traceId()).isEqualTo(round.context().traceId());
                if (id % 10 == 0) {
                    errorsChecked.incrementAndGet();
                    assertThat(seen.getError())
                            .as("the exception recorded on the call's span")
                            .hasMessage("gateway refused order " + id);
                } else {
                    assertThat(seen.getError()).isNull();
                }
            } else {
                checked.incrementAndGet();
                assertThat(seen.getName()).isEqualTo("scan round orders");
            }
        });
        assertThat(checked).as("handler calls whose current span had finished").hasPositiveValue();
        if (rows) {
            assertThat(errorsChecked)
                    .as("calls that threw, whose span had finished")
                    .hasPositiveValue();
        }
        assertThat(finished)
                .as("spans of handler calls")
                .anyMatch(s -> rows == "scan handler orders".equals(s.getName()));
    }

    @Test
    void aRoundThatFailsRecordsItsException() {
        start(false, (TaskHandler.PerRow) (row, ctx) -> Outcome.done());
        await().until(() -> tracer.getSpans().stream().anyMatch(s -> "scan round orders".equals(s.getName())));
        new OrderTable(dataSource).jdbc().execute("DROP INDEX tb_order_scan_idx");
        new OrderTable(dataSource).jdbc().execute("ALTER TABLE tb_order DROP COLUMN retry_count");
        await().until(() -> tracer.getSpans().stream()
                .anyMatch(s -> "scan round orders".equals(s.getName()) && s.getError() != null));
    }

    private void start(boolean rows, TaskHandler.PerRow handler) {
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .ordering(Ordering.NONE)
                .build();
        engines.start(
                "node-1",
                dataSource,
                task,
                handler,
                ScanClock.system(),
                new ScanObservations(registry, rows),
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }
}
