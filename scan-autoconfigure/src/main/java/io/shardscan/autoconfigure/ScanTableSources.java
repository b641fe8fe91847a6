package io.shardscan.autoconfigure;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.ShardedTablesStore;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.OwnTables;
import io.shardscan.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The stores of sharded tasks' data sources ({@code scan.tasks.<name>.data-sources}), by DataSource bean
 * name: Shardscan's own data source is the engine's store; any other gets a {@link JdbcTaskStore} of its
 * own, with a transaction manager of its own, and Shardscan's tables there (its fences and run counts,
 * which a write-back checks in its own transaction), created as {@code scan.jdbc.initialize-schema} or
 * Flyway ({@code scan.jdbc.flyway.enabled}) creates them in Shardscan's data source. A bean name that is no
 * DataSource, or a data source without Shardscan's tables, is a startup problem naming the fix.
 */
final class ScanTableSources {

    private final ListableBeanFactory beans;
    private final DataSource home;
    private final TaskStore homeStore;
    private final ScanProperties.Jdbc jdbc;
    private final @Nullable ClassLoader classLoader;
    private final Map<String, TaskStore> stores = new LinkedHashMap<>();

    ScanTableSources(
            ListableBeanFactory beans,
            DataSource home,
            TaskStore homeStore,
            ScanProperties.Jdbc jdbc,
            @Nullable ClassLoader classLoader) {
        this.beans = beans;
        this.home = home;
        this.homeStore = homeStore;
        this.jdbc = jdbc;
        this.classLoader = classLoader;
    }

    /**
     * The tasks, each sharded one with its {@link ShardedTablesStore}; a problem for each data source that
     * cannot hold its tables goes to {@code problems}, and its task is left out.
     */
    List<ScanEngine.ScanTask> attach(List<ScanEngine.ScanTask> tasks, List<String> problems) {
        List<ScanEngine.ScanTask> attached = new ArrayList<>();
        for (ScanEngine.ScanTask task : tasks) {
            TaskDefinition definition = task.definition();
            if (definition.tables() == null) {
                attached.add(task);
                continue;
            }
            List<String> found = new ArrayList<>();
            for (Tables.Table table : definition.tables().tables()) {
                if (!table.source().equals(Tables.Table.HOME) && !stores.containsKey(table.source())) {
                    String problem = open(
                            definition, table.source(), task.definition().run().ends());
                    if (problem != null && !found.contains(problem)) {
                        found.add(problem);
                    }
                }
            }
            if (found.isEmpty()) {
                attached.add(task.withStore(ShardedTablesStore.of(definition, homeStore, this::store)));
            }
            problems.addAll(found);
        }
        return attached;
    }

    private TaskStore store(String source) {
        return source.equals(Tables.Table.HOME) ? homeStore : stores.get(source);
    }

    /** Opens the store of the bean {@code source}; the problem that stops it, or {@code null}. */
    private @Nullable String open(TaskDefinition task, String source, boolean runs) {
        DataSource dataSource;
        try {
            dataSource = beans.getBean(source, DataSource.class);
        } catch (NoSuchBeanDefinitionException e) {
            return "scan.tasks." + task.name() + ".data-sources names '" + source + "', which is no DataSource bean:"
                    + " the DataSource beans are " + Arrays.toString(beans.getBeanNamesForType(DataSource.class))
                    + "; name the bean that holds the tables";
        }
        if (dataSource == home) {
            stores.put(source, homeStore);
            return null;
        }
        SqlDialect dialect = SqlDialect.detect(dataSource);
        if (jdbc.getFlyway().isEnabled()) {
            new ScanFlywayInitializer(dataSource, dialect, jdbc.getFlyway().getTable(), classLoader)
                    .afterPropertiesSet();
        } else if (jdbc.getInitializeSchema() != DatabaseInitializationMode.NEVER) {
            new ScanSchemaInitializer(dataSource, jdbc.getInitializeSchema(), () -> dialect).initializeDatabase();
        }
        List<String> missing = OwnTables.problems(dataSource, dialect, false, false, runs, false);
        if (!missing.isEmpty()) {
            return "scan.tasks." + task.name() + ": the DataSource '" + source + "' holds some of its tables, and"
                    + " the fences of their shards, but lacks Shardscan's tables there: " + String.join("; ", missing);
        }
        stores.put(source, new JdbcTaskStore(dataSource, new DataSourceTransactionManager(dataSource), dialect));
        return null;
    }
}
