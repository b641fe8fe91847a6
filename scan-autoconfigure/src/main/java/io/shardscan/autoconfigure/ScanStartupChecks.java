package io.shardscan.autoconfigure;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.RunMode;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.OwnTables;
import io.shardscan.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Builds the engine and runs every startup check while its bean is created, so a problem fails
 * startup before the web server starts: unknown {@code scan.*} keys, intervals below their floor,
 * the task settings and handlers, Shardscan's own tables, each task's table, columns, column types
 * and the handler's row type. Collects every problem and throws them together.
 */
final class ScanStartupChecks {

    private static final Pattern NUMBER = Pattern.compile("\\s*[-+]?[0-9.]+\\s*");

    private ScanStartupChecks() {}

    /**
     * The durations that must have a unit, unlike Shardscan's others (seconds without one): a task's
     * {@code max-wait}, {@code delay}, {@code archive.after}, {@code slow-call}, {@code level2.window},
     * {@code level2.ban}, {@code stall-timeout} and {@code schedule.every}. Each is too easily meant in another unit than
     * seconds: a latency bound in milliseconds ({@code max-wait: 500}, {@code slow-call: 500}: no call
     * would ever count as slow), a delay, a ban or a stall in minutes ({@code delay: 15},
     * {@code level2.ban: 5}, {@code stall-timeout: 5}, whose defaults are 5 minutes; a range task's
     * stall timeout bound as 5 ms has every range taken over again and again), an age in days
     * ({@code archive.after: 7}); and {@code schedule.every}, bound as milliseconds without one
     * ({@code every: 3600} would start a run every 3.6 s). A slip runs, bans or archives rows at a time no
     * one meant, and nothing else would show it.
     */
    static List<String> durationsWithoutUnit(ConfigurableEnvironment environment, ScanProperties properties) {
        // the tasks bound as ScanProperties binds them, so a task's key here is its key there whatever
        // its name holds (a dash, as in notif-digest, or brackets); scan.tasks[name] would miss dashed ones
        Map<String, WrittenDurations> written = Binder.get(environment)
                .bind("scan.tasks", Bindable.mapOf(String.class, WrittenDurations.class))
                .orElse(Map.of());
        List<String> problems = new ArrayList<>();
        for (String task : properties.getTasks().keySet()) {
            WrittenDurations durations = written.get(task);
            if (durations == null) {
                continue;
            }
            String after =
                    durations.archive() == null ? null : durations.archive().after();
            withoutUnit(task, "max-wait", durations.maxWait(), "max-wait: 5s or 500ms", problems);
            withoutUnit(task, "delay", durations.delay(), "delay: 15m", problems);
            withoutUnit(task, "archive.after", after, "archive.after: 7d", problems);
            withoutUnit(task, "slow-call", durations.slowCall(), "slow-call: 500ms or 2s", problems);
            WrittenLevel2 level2 = durations.level2();
            withoutUnit(task, "level2.window", level2 == null ? null : level2.window(), "level2.window: 5m", problems);
            withoutUnit(task, "level2.ban", level2 == null ? null : level2.ban(), "level2.ban: 5m", problems);
            withoutUnit(task, "stall-timeout", durations.stallTimeout(), "stall-timeout: 5m", problems);
            WrittenSchedule schedule = durations.schedule();
            withoutUnit(
                    task, "schedule.every", schedule == null ? null : schedule.every(), "schedule.every: 1m", problems);
        }
        return problems;
    }

    private static void withoutUnit(
            String task, String key, @Nullable String value, String example, List<String> problems) {
        if (value != null && NUMBER.matcher(value).matches()) {
            problems.add("scan.tasks." + task + "." + key + " is '" + value.trim() + "' without a unit: write it with"
                    + " one, e.g. " + example + " (max-wait, delay, archive.after, slow-call, level2.window,"
                    + " level2.ban, stall-timeout and schedule.every need a unit, which ms, s, m, h or d makes plain)");
        }
    }

    /** A task's durations that need a unit, as written, before Boot converts them. */
    record WrittenDurations(
            @Nullable String maxWait,
            @Nullable String delay,
            @Nullable WrittenArchive archive,
            @Nullable String slowCall,
            @Nullable WrittenLevel2 level2,
            @Nullable String stallTimeout,
            @Nullable WrittenSchedule schedule) {}

    /** A task's {@code schedule.every} as written. */
    record WrittenSchedule(@Nullable String every) {}

    /** A task's {@code archive.after} as written. */
    record WrittenArchive(@Nullable String after) {}

    /** A task's {@code level2.window} and {@code level2.ban} as written. */
    record WrittenLevel2(@Nullable String window, @Nullable String ban) {}

    /**
     * The checked engine; {@code dialect} is asked for only when Shardscan's own tables are checked.
     *
     * @throws InvalidTaskException listing every problem found
     */
    static ScanEngine engine(
            ConfigurableEnvironment environment,
            ScanProperties properties,
            ScanTaskRegistry registry,
            ScanEngineBuilder builder,
            TaskStore store,
            ShardCoordinator coordinator,
            DataSource dataSource,
            Supplier<SqlDialect> dialect,
            ScanClock clock,
            Supplier<RangeStores> rangeStores,
            ScanTableSources tableSources) {
        UnknownScanProperties.Found unknown = UnknownScanProperties.find(environment);
        List<String> problems = new ArrayList<>(unknown.problems());
        EngineSettings settings = null;
        try {
            settings = builder.settings();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        String renewFloor = settings == null ? null : EngineSettings.belowFloor(settings.renewInterval());
        if (renewFloor != null) {
            problems.add(renewFloor);
        }
        problems.addAll(durationsWithoutUnit(environment, properties));
        problems.addAll(RangeTaskSettings.problems(environment, properties.getTasks()));
        ScanTaskRegistry.Found found = registry.find(properties.getTasks(), properties.getNodeTags());
        problems.addAll(found.problems());
        if (settings == null) {
            throw new InvalidTaskException(problems);
        }
        boolean rangeTables = !found.ranges().isEmpty();
        ScanEngine engine;
        try {
            engine = builder.build(
                            tableSources.attach(found.tasks(), problems),
                            store,
                            coordinator,
                            clock,
                            found.ranges(),
                            rangeTables ? rangeStores.get() : null)
                    .notRunHere(found.notRunHere());
        } catch (InvalidTaskException e) {
            // a task the engine refuses (a transactional range task on stores without transactions) is
            // reported with every other problem found so far
            problems.addAll(e.problems());
            throw new InvalidTaskException(problems);
        }
        boolean endpointTables = builder.endpointBansInDatabase()
                && found.tasks().stream().anyMatch(t -> t.definition().endpoints() != null);
        boolean runColumns = found.tasks().stream().anyMatch(t -> t.definition().run() != RunMode.FOREVER);
        if (store instanceof JdbcTaskStore
                || coordinator instanceof JdbcShardCoordinator
                || endpointTables
                || rangeTables) {
            problems.addAll(OwnTables.problems(
                    dataSource,
                    dialect.get(),
                    coordinator instanceof JdbcShardCoordinator,
                    endpointTables,
                    runColumns && store instanceof JdbcTaskStore,
                    rangeTables));
        }
        problems.addAll(engine.check(found.rowTypes(), unknown.tasks()));
        problems.addAll(WakeOnInsertCheck.problems(properties, found.tasks(), dataSource));
        if (!problems.isEmpty()) {
            throw new InvalidTaskException(problems);
        }
        return engine;
    }
}
