package io.shardscan.core;

import java.lang.System.Logger.Level;

/** Applies a task's {@link IndexCheck} to what its store found about the table. */
final class SchemaCheck {

    private static final System.Logger log = System.getLogger(SchemaCheck.class.getName());

    private SchemaCheck() {}

    static void apply(TaskContext context) {
        TaskDefinition task = context.definition();
        SchemaReport report = context.store().inspect(task);
        if (!report.tableExists()) {
            throw TaskDefinition.invalid(
                    task.name(),
                    "table",
                    "'" + task.table() + "' does not exist: create it or" + " point scan.tasks." + task.name()
                            + ".table at the table to scan");
        }
        if (!report.missingColumns().isEmpty()) {
            throw new InvalidTaskException("scan.tasks." + task.name() + ": table " + task.table() + " has no column "
                    + String.join(", ", report.missingColumns()) + ": add the column or set the matching"
                    + " scan.tasks." + task.name() + ".*-column property to the column's name");
        }
        if (report.problem() != null) {
            throw new InvalidTaskException("scan.tasks." + task.name() + ": " + report.problem());
        }
        if (report.lastErrorLength() > 0) {
            context.errorLength(report.lastErrorLength());
        }
        if (report.indexPresent() || task.indexCheck() == IndexCheck.OFF) {
            return;
        }
        String message = "scan.tasks." + task.name() + ": table " + task.table() + " lacks an index that keeps its"
                + " fetches range scans, so a fetch reads finished rows, or every pending row of its shard, too."
                + " Create the missing ones of:\n  "
                + String.join(";\n  ", report.indexStatements()) + ";\nor set scan.tasks." + task.name()
                + ".index-check=warn|off to start without it";
        if (task.indexCheck() == IndexCheck.FAIL) {
            throw new InvalidTaskException(message);
        }
        log.log(Level.WARNING, message);
    }
}
