package io.shardscan.testsupport;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.RangeCursor;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeFailures;
import io.shardscan.jdbc.JdbcRangeLedger;
import io.shardscan.jdbc.JdbcRangeTable;
import io.shardscan.jdbc.JdbcRangeTransactions;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskRuns;
import io.shardscan.jdbc.JdbcTaskStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Builds engines on one database for a test and stops them all after it (register with @RegisterExtension). */
public final class Engines implements AfterEachCallback {

    /** Short leases so that tests see handovers in seconds. */
    public static final Duration FAST_TTL = Duration.ofSeconds(2);

    public static final Duration FAST_RENEW = Duration.ofMillis(300);

    /** The statement timeout of an engine with {@link #FAST_TTL}, which the range stores built here are bounded by. */
    public static final Duration STATEMENT_TIMEOUT =
            new EngineSettings("test", FAST_TTL, FAST_RENEW, FAST_TTL, Duration.ofSeconds(10)).statementTimeout();

    /**
     * The settings of a node {@code node} with {@link #FAST_TTL} and {@link #FAST_RENEW}, a shutdown
     * timeout of 10 s, and a worker budget of {@code maxWorkers} ({@code null}: none).
     */
    public static EngineSettings settings(String node, @Nullable Integer maxWorkers) {
        return new EngineSettings(node, FAST_TTL, FAST_RENEW, FAST_TTL, Duration.ofSeconds(10), maxWorkers);
    }

    private final List<ScanEngine> started = new ArrayList<>();

    public ScanEngine start(String node, DataSource dataSource, TaskDefinition task, TaskHandler handler) {
        return start(node, dataSource, task, handler, ScanClock.system(), ScanListener.NONE, FAST_TTL, FAST_RENEW);
    }

    public ScanEngine start(
            String node,
            DataSource dataSource,
            TaskDefinition task,
            TaskHandler handler,
            ScanClock clock,
            ScanListener listener,
            Duration ttl,
            Duration renew) {
        return start(
                node,
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, handler),
                clock,
                listener,
                ttl,
                renew);
    }

    /** Starts an engine with any coordinator and task; it is stopped after the test. */
    public ScanEngine start(
            String node,
            DataSource dataSource,
            ShardCoordinator coordinator,
            ScanEngine.ScanTask task,
            ScanClock clock,
            ScanListener listener,
            Duration ttl,
            Duration renew) {
        return start(node, new JdbcTaskStore(dataSource), coordinator, task, clock, listener, ttl, renew);
    }

    /** Starts an engine on any task store, coordinator and task; it is stopped after the test. */
    public ScanEngine start(
            String node,
            TaskStore store,
            ShardCoordinator coordinator,
            ScanEngine.ScanTask task,
            ScanClock clock,
            ScanListener listener,
            Duration ttl,
            Duration renew) {
        EngineSettings settings = new EngineSettings(node, ttl, renew, ttl, Duration.ofSeconds(10));
        ScanEngine engine = new ScanEngine(List.of(task), store, coordinator, settings, clock, listener);
        engine.start();
        started.add(engine);
        return engine;
    }

    /** Starts an engine that runs one range task on {@code stores}; it is stopped after the test. */
    public ScanEngine startRange(String node, DataSource dataSource, RangeStores stores, RangeJob job) {
        return startRange(node, dataSource, stores, job, ScanClock.system());
    }

    /** Starts an engine that runs one range task on {@code stores} with {@code clock}; it is stopped after the test. */
    public ScanEngine startRange(
            String node, DataSource dataSource, RangeStores stores, RangeJob job, ScanClock clock) {
        EngineSettings settings = new EngineSettings(node, FAST_TTL, FAST_RENEW, FAST_TTL, Duration.ofSeconds(10));
        ScanEngine engine = new ScanEngine(
                List.of(),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                settings,
                clock,
                ScanListener.NONE,
                new InMemoryEndpointBans(clock),
                List.of(job),
                stores);
        return start(engine);
    }

    /** The JDBC range stores on {@code dataSource} with {@code cursor}, bounded by {@link #STATEMENT_TIMEOUT}. */
    public static RangeStores rangeStores(DataSource dataSource, RangeCursor cursor) {
        return rangeStores(dataSource, cursor, STATEMENT_TIMEOUT);
    }

    /**
     * The JDBC range stores on {@code dataSource} with {@code cursor}, each statement bounded by {@code timeout};
     * their transactions, for transactional range jobs, are a {@code DataSourceTransactionManager}'s on it.
     */
    public static RangeStores rangeStores(DataSource dataSource, RangeCursor cursor, Duration timeout) {
        return new RangeStores(
                new JdbcTaskRuns(dataSource, timeout),
                cursor,
                new JdbcRangeLedger(dataSource, timeout),
                new JdbcRangeTable(dataSource, timeout),
                new JdbcRangeFailures(dataSource, timeout),
                new JdbcRangeTransactions(dataSource, timeout));
    }

    /** Starts an engine built by the test; it is stopped after the test. */
    public ScanEngine start(ScanEngine engine) {
        engine.start();
        started.add(engine);
        return engine;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        started.forEach(ScanEngine::stop);
        started.clear();
    }
}
