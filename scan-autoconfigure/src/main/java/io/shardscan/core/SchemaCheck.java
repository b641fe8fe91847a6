package io.shardscan.core;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/** Applies a task's {@link IndexCheck} and column checks to what its store found about the table. */
final class SchemaCheck {

    private static final System.Logger log = ScanLogging.getLogger(SchemaCheck.class);

    private SchemaCheck() {}

    /**
     * What the check of one task's table found.
     *
     * @param problems the problems that must fail startup, each naming the property or column and the
     *     fix; empty when the table can be used
     * @param matchFailed whether the task's match could not be resolved against its table
     */
    record Checked(List<String> problems, boolean matchFailed) {}

    /** Checks one task's table, logging what only slows or skips rows. */
    static Checked apply(TaskContext context, ScanEngine.TableCheck extra) {
        TaskDefinition task = context.definition();
        SchemaReport report = context.store().inspect(task);
        return new Checked(problems(task, report, extra), report.matchFailed());
    }

    /** The property that names {@code column}, e.g. {@code retry-column}; {@code *-column} when none of them does. */
    private static String propertyOf(TaskDefinition task, String column) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>();
        properties.put("id-column", task.columns().id());
        properties.put("shard-key-column", task.columns().shardKey());
        properties.put("status-column", task.columns().status());
        properties.put("retry-column", task.columns().retry());
        properties.put("updated-at-column", task.columns().updatedAt());
        properties.put("last-error-column", task.columns().lastError());
        properties.put("shard-column", task.columns().shard());
        properties.put("endpoint-column", task.endpointColumn());
        properties.put("due-at-column", task.columns().dueAt());
        return properties.entrySet().stream()
                .filter(entry -> column.equalsIgnoreCase(entry.getValue()))
                .map(java.util.Map.Entry::getKey)
                .findFirst()
                .orElse("*-column");
    }

    private static List<String> problems(TaskDefinition task, SchemaReport report, ScanEngine.TableCheck extra) {
        String property = "scan.tasks." + task.name();
        if (!report.tableExists() && task.tables() != null) {
            return List.of(property + ".tables: " + String.join("; ", report.problems())
                    + ": create them, or leave them out of " + property + ".tables");
        }
        if (!report.tableExists()) {
            return List.of(property + ".table '" + task.table() + "' does not exist: create it or point " + property
                    + ".table at the table to scan");
        }
        if (task.delayed()
                && report.missingColumns().equals(List.of(task.columns().dueAt()))) {
            return List.of(property + ".due-at-column: " + tableOf(task) + " has no column "
                    + task.columns().dueAt() + " (its columns: " + String.join(", ", report.columns())
                    + "): add the timestamp column that says when a row is due, or point " + property
                    + ".due-at-column at it");
        }
        if (!report.missingColumns().isEmpty()) {
            return List.of(property + ": " + tableOf(task) + " has no column "
                    + String.join(", ", report.missingColumns()) + " (its columns: "
                    + String.join(", ", report.columns()) + "): add the column or set "
                    + String.join(
                            " and ",
                            report.missingColumns().stream()
                                    .map(column -> property + "." + propertyOf(task, column))
                                    .toList())
                    + " to the column's name");
        }
        List<String> problems = new ArrayList<>();
        report.problems().forEach(problem -> problems.add(property + ": " + problem));
        extra.problems(task, report).forEach(problem -> problems.add(property + ": " + problem));
        report.warnings().forEach(warning -> log.log(Level.WARNING, property + ": " + warning));
        if (report.nullShardKeys() > 0) {
            log.log(
                    Level.WARNING,
                    property + ": " + report.nullShardKeys() + " pending rows of " + rowsOf(task)
                            + " have a NULL shard key (" + task.columns().shardKey() + "); no shard fetches them."
                            + " Give them a key (e.g. UPDATE " + task.table() + " SET "
                            + task.columns().shardKey()
                            + " = " + task.columns().id() + " WHERE "
                            + task.columns().shardKey()
                            + " IS NULL) and make the column NOT NULL");
        }
        report.unfetchable()
                .warnings(task, report.retryColumnStatements())
                .forEach(warning -> log.log(Level.WARNING, warning));
        if (report.nullDueTimes() > 0) {
            log.log(
                    Level.WARNING,
                    property + ": " + report.nullDueTimes() + " pending rows of " + rowsOf(task)
                            + " have a NULL due time (" + task.columns().dueAt() + "); they are never due, so no"
                            + " round runs them (/actuator/scan counts them as withoutDueTime). Give them a due time"
                            + " (e.g. UPDATE " + task.table() + " SET "
                            + task.columns().dueAt() + " = "
                            + task.columns().updatedAt() + " WHERE "
                            + task.columns().dueAt() + " IS NULL) and make the"
                            + " column NOT NULL");
        }
        if (!report.archiveIndexStatements().isEmpty()) {
            indexMissing(
                    task,
                    property + ": table " + task.table() + " lacks the index that " + property + ".archive reads"
                            + " finished rows through, so an archive batch reads many more rows than it moves."
                            + " Create it:\n  "
                            + String.join(";\n  ", report.archiveIndexStatements()) + ";\n" + orSet(task),
                    problems);
        }
        if (report.indexPresent()
                || task.indexCheck() == IndexCheck.OFF
                || !report.problems().isEmpty()) {
            // with a column of a type the task does not expect, the index printed would be for the wrong
            // types (a text key's MOD): it is printed once the problems above are fixed
            return problems;
        }
        String message = property + ": " + tableOf(task) + (task.tables() == null ? " lacks" : " lack")
                + " an index that keeps its"
                + " fetches range scans, so a fetch reads finished rows, or every pending row of its shard, too."
                + " Create the missing ones of:\n  "
                + String.join(";\n  ", report.indexStatements()) + ";\n" + orSet(task);
        if (task.indexCheck() == IndexCheck.FAIL) {
            problems.add(message);
        } else {
            log.log(Level.WARNING, message);
        }
        return problems;
    }

    /** Whose rows a count is of: the task's one table, or a sharded task's tables. */
    private static String rowsOf(TaskDefinition task) {
        return task.tables() == null ? task.table() : "the tables of scan.tasks." + task.name() + ".tables";
    }

    /** How a message names the task's table: its one table, or for a sharded task its tables that the report names. */
    private static String tableOf(TaskDefinition task) {
        return task.tables() == null
                ? "table " + task.table()
                : "some of the " + task.tables().tables().size() + " tables of scan.tasks." + task.name() + ".tables";
    }

    /**
     * Checks a range task's table as a status task's: the table, its id column (listing the columns
     * there are), the id's type, the handler's row type through {@code extra}, and the index on the
     * id under the task's {@link IndexCheck}.
     *
     * @return the problems that must fail startup; empty when the table can be used
     */
    static List<String> range(RangeTask range, SchemaReport report, ScanEngine.TableCheck extra) {
        TaskDefinition task = range.definition();
        String property = "scan.tasks." + task.name();
        if (!report.tableExists()) {
            return List.of(property + ".table '" + task.table() + "' does not exist: create it or point " + property
                    + ".table at the table to scan");
        }
        if (!report.missingColumns().isEmpty()) {
            return List.of(property + ".id-column: table " + task.table() + " has no column "
                    + task.columns().id()
                    + " (its columns: " + String.join(", ", report.columns()) + "): point " + property
                    + ".id-column at its whole-number id column (the primary key)");
        }
        List<String> problems = new ArrayList<>();
        report.problems().forEach(problem -> problems.add(property + ": " + problem));
        extra.problems(task, report).forEach(problem -> problems.add(property + ": " + problem));
        if (!report.indexPresent() && task.indexCheck() != IndexCheck.OFF) {
            indexMissing(
                    task,
                    property + ": table " + task.table() + " has no index that starts with its id column "
                            + task.columns().id() + ", so each page of a range reads the table instead of one range of"
                            + " the index. Create it:\n  " + String.join(";\n  ", report.indexStatements()) + ";\n"
                            + orSet(task),
                    problems);
        }
        return problems;
    }

    // under warn the user already chose to start without the index: only off is left to offer
    private static String orSet(TaskDefinition task) {
        String property = "scan.tasks." + task.name() + ".index-check";
        return task.indexCheck() == IndexCheck.FAIL
                ? "or set " + property + "=warn|off to start without it"
                : "or set " + property + "=off to silence this";
    }

    /** A missing index: a problem under {@link IndexCheck#FAIL}, a warning under {@link IndexCheck#WARN}. */
    private static void indexMissing(TaskDefinition task, String message, List<String> problems) {
        if (task.indexCheck() == IndexCheck.FAIL) {
            problems.add(message);
        } else if (task.indexCheck() == IndexCheck.WARN) {
            log.log(Level.WARNING, message);
        }
    }
}
