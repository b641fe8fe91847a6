package io.shardscan.autoconfigure;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.PostgresWakeTrigger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The startup check of {@code wake-on-insert}: on PostgreSQL it warns with the trigger's DDL when the
 * trigger is missing (Shardscan prints DDL, it never runs it); elsewhere it fails, since only
 * PostgreSQL can notify from a trigger.
 */
final class WakeOnInsertCheck {

    private static final System.Logger log = System.getLogger(WakeOnInsertCheck.class.getName());

    private WakeOnInsertCheck() {}

    /** @return the problems that must fail startup; warnings are logged */
    static List<String> problems(ScanProperties properties, List<ScanEngine.ScanTask> tasks, DataSource dataSource) {
        List<String> problems = new ArrayList<>();
        boolean postgres = ScanWakeChannels.postgres(dataSource);
        for (ScanEngine.ScanTask task : tasks) {
            TaskDefinition definition = task.definition();
            TaskProperties configured = properties.getTasks().get(definition.name());
            if (configured == null || !configured.isWakeOnInsert()) {
                continue;
            }
            if (definition.tables() != null) {
                problems.add("scan.tasks." + definition.name() + ".wake-on-insert is true, but the task scans several"
                        + " tables (tables), whose insert triggers Shardscan does not check or listen to yet: remove"
                        + " it (the idle probe finds new rows within the first tier's interval), or call"
                        + " ScanTasks.wake after the insert");
                continue;
            }
            if (!postgres) {
                problems.add("scan.tasks." + definition.name() + ".wake-on-insert is true, but only PostgreSQL can"
                        + " notify from an insert trigger: remove it, or call ScanTasks.wake after the insert");
                continue;
            }
            String missing = PostgresWakeTrigger.missing(dataSource, definition);
            if (missing != null) {
                log.log(Level.WARNING, missing);
            }
        }
        return problems;
    }
}
