package io.shardscan.jdbc;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.TaskDefinition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The statements of each task of one data source, built from the inspection of its table when first
 * asked for and kept: shared by the round's store, its bounded view, the admin and the control.
 * Thread-safe.
 */
final class JdbcTaskStatements {

    private final SqlDialect dialect;
    private final TableInspector inspector;
    private final Map<String, TaskSql> statements = new ConcurrentHashMap<>();
    private final Map<String, ArchiveSql> archives = new ConcurrentHashMap<>();

    JdbcTaskStatements(DataSource dataSource, SqlDialect dialect) {
        this.dialect = dialect;
        this.inspector = new TableInspector(dataSource, dialect);
    }

    SqlDialect dialect() {
        return dialect;
    }

    /** The statements of a task inspected without problems, as they are; {@code null} for any other. */
    @Nullable
    TaskSql inspected(TaskDefinition task) {
        return statements.get(key(task));
    }

    /** Whose statements these are: the task's, or of one table of a sharded task, each table's own. */
    private static String key(TaskDefinition task) {
        return task.tables() == null ? task.name() : task.name() + " " + task.table();
    }

    /** Inspects the task's table (see {@link io.shardscan.core.spi.TaskStore#inspect}) and keeps its statements. */
    SchemaReport inspect(TaskDefinition task) {
        TableInspector.Inspection inspection = inspector.inspect(task);
        if (inspection.names() != null) {
            statements.put(
                    key(task),
                    TaskSql.of(task, inspection.names(), inspection.report().columns(), dialect));
        }
        if (inspection.archive() != null) {
            archives.put(key(task), inspection.archive());
        }
        return inspection.report();
    }

    /** The task's archive statements, inspecting its tables first when they were not yet. */
    ArchiveSql archiveSql(TaskDefinition task) {
        ArchiveSql sql = archives.get(key(task));
        if (sql == null) {
            SchemaReport report = inspect(task);
            sql = archives.get(key(task));
            if (sql == null) {
                throw new InvalidTaskException(
                        "scan.tasks." + task.name() + ": cannot archive: " + String.join("; ", report.problems()));
            }
        }
        return sql;
    }

    /** The task's statements, inspecting its table first when it was not yet. */
    TaskSql sql(TaskDefinition task) {
        TaskSql sql = statements.get(key(task));
        if (sql != null && (!sql.reads().equals(task.rowColumns()) || sql.stale())) {
            // inspected with another handler's columns (the same names, another fetch), or its due
            // bound holds the JVM's offset from before a daylight saving switch
            sql = TaskSql.of(task, sql.names(), sql.tableColumns(), dialect);
            statements.put(key(task), sql);
        }
        if (sql == null) {
            SchemaReport report = inspect(task);
            sql = statements.get(key(task));
            if (sql == null) {
                throw new InvalidTaskException("scan.tasks." + task.name() + ": table " + task.table()
                        + (report.tableExists() ? " lacks columns " + report.missingColumns() : " does not exist"));
            }
        }
        return sql;
    }
}
