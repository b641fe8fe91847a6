package io.shardscan.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of the task configured under {@code scan.tasks.<value>}.
 * Exactly one method per task; the method is called from the task's worker threads, so it must be
 * thread-safe.
 *
 * <p>Supported forms, each returning {@code void} or an {@link io.shardscan.core.task.Outcome}
 * ({@code void} or {@code null} mean done, an exception fails the row):
 * <ul>
 *   <li>{@code m(T row)}
 *   <li>{@code m(T row, ScanContext context)}
 *   <li>{@code m(List<T> rows)} and {@code m(List<T> rows, ScanContext context)}: one call per lane,
 *       one outcome for all of its rows
 * </ul>
 * {@code T} is a record (bound through its canonical constructor), a JavaBean (no-arg constructor and
 * setters), {@code Map<String, Object>} (the raw columns, a NULL one with a {@code null} value) or
 * {@link io.shardscan.core.task.Row}. Columns
 * bind to components and properties by name, ignoring case and underscores ({@code user_id} binds
 * {@code userId}); values are converted with Spring's conversion service. For a record or a
 * JavaBean the task's fetch selects only the columns it names plus those the engine reads, and each
 * row is bound by column position, so columns it does not name are neither read nor decoded.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ScanTask {

    /** The task name: the key under {@code scan.tasks} that configures the task. */
    String value();

    /**
     * Whether the handler's own SQL (on the application's data source) and the write-back of its
     * row commit in one transaction that checks the shard's fence: a handler whose lease was taken
     * over while it ran is rolled back, so database effects happen exactly once. On a range task
     * ({@code mode: range}) it is the range's position that commits with the handler's SQL, one row (or
     * one page for a batch handler) at a time: a try that fails rolls back, and a handler whose range
     * was taken over while it ran is rolled back.
     */
    boolean transactional() default false;
}
