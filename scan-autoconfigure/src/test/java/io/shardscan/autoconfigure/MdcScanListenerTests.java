package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.SettableScanClock;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class MdcScanListenerTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    final org.slf4j.Logger handlerLog = LoggerFactory.getLogger("io.shardscan.test.handler");
    final List<Map<String, String>> mdcOfLines = new CopyOnWriteArrayList<>();
    final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            // read now, on the logging thread: the event takes the MDC lazily
            mdcOfLines.add(Map.copyOf(event.getMDCPropertyMap()));
        }
    };

    @BeforeEach
    void attach() {
        appender.start();
        ((Logger) handlerLog).addAppender(appender);
    }

    @AfterEach
    void detach() {
        ((Logger) handlerLog).detachAppender(appender);
        MDC.clear();
    }

    @Test
    void everyLineOfAHandlerCarriesTaskShardAndEpoch() {
        DataSource dataSource = TestServers.h2("mdc");
        OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
        table.insert(40, 7, T0);
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .workers(2)
                .build();
        ScanEngine engine = engines.start(
                "node-1",
                dataSource,
                task,
                (TaskHandler.PerRow) (row, ctx) -> {
                    handlerLog.info("sending order {}", row.id());
                    assertThat(MDC.get(MdcScanListener.SHARD)).isEqualTo(Integer.toString(ctx.shard()));
                    assertThat(MDC.get(MdcScanListener.EPOCH)).isEqualTo(Long.toString(ctx.epoch()));
                    return Outcome.done();
                },
                new SettableScanClock(T0.plusSeconds(1)),
                new MdcScanListener(),
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().until(() -> table.count("status = 1") == 40);

        assertThat(mdcOfLines).hasSize(40).allSatisfy(mdc -> assertThat(mdc)
                .containsEntry(MdcScanListener.TASK, "orders")
                .containsKeys(MdcScanListener.SHARD, MdcScanListener.EPOCH));
        assertThat(mdcOfLines)
                .extracting(mdc -> Integer.parseInt(mdc.get(MdcScanListener.SHARD)))
                .allSatisfy(
                        shard -> assertThat(engine.task("orders").ownedShards()).containsKey(shard));
    }

    @Test
    void restoresWhatTheThreadHadBefore() {
        MDC.put(MdcScanListener.TASK, "outer");
        AtomicReference<Map<String, String>> inside = new AtomicReference<>();
        new MdcScanListener()
                .around("orders", 3, 42, () -> inside.set(MDC.getCopyOfContextMap()))
                .run();
        assertThat(inside.get())
                .containsEntry(MdcScanListener.TASK, "orders")
                .containsEntry(MdcScanListener.SHARD, "3")
                .containsEntry(MdcScanListener.EPOCH, "42");
        assertThat(MDC.get(MdcScanListener.TASK)).isEqualTo("outer");
        assertThat(MDC.get(MdcScanListener.SHARD)).isNull();
        assertThat(MDC.get(MdcScanListener.EPOCH)).isNull();
    }
}
