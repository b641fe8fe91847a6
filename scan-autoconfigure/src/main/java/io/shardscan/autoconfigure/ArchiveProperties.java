package io.shardscan.autoconfigure;

import io.shardscan.core.task.Archive;
import io.shardscan.core.task.InvalidTaskException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationUnit;

/** How one task archives its finished rows, under {@code scan.tasks.<name>.archive.*}; off unless after is set. */
public class ArchiveProperties {

    /** How long a done row stays in the table after it finished, by its updated-at column; needs a unit, e.g. 7d; unset, never archived. */
    private @Nullable Duration after;

    /** The archive table, with the scanned table's columns, that finished rows are moved to; or delete. */
    private @Nullable String to;

    /** Whether dead rows are archived too, not only done ones. */
    private boolean includeDead = false;

    /** The most rows one archive batch moves, in one transaction. */
    private int batch = 500;

    /** The rest between two archive batches of the task on one node. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration pause = Duration.ofMillis(100);

    /**
     * The archive of these settings.
     *
     * @return {@code null} when {@code after} is unset: the task does not archive
     * @throws InvalidTaskException when only one of {@code after} and {@code to} is set
     */
    @Nullable
    Archive toArchive(String task) {
        String property = "scan.tasks." + task + ".archive.";
        if (after == null) {
            if (to != null) {
                throw new InvalidTaskException(property + "to is set but " + property + "after is not: set after"
                        + " (e.g. 7d) to archive rows that finished that long ago, or remove to");
            }
            return null;
        }
        if (to == null || to.isBlank()) {
            throw new InvalidTaskException(property + "to is not set: name the archive table (with the columns of"
                    + " the scanned table) or write " + Archive.DELETE + " to delete finished rows");
        }
        String table = to.trim().toLowerCase(Locale.ROOT).equals(Archive.DELETE) ? null : to.trim();
        return new Archive(after, table, includeDead, batch, pause);
    }

    public @Nullable Duration getAfter() {
        return after;
    }

    public void setAfter(@Nullable Duration after) {
        this.after = after;
    }

    public @Nullable String getTo() {
        return to;
    }

    public void setTo(@Nullable String to) {
        this.to = to;
    }

    public boolean isIncludeDead() {
        return includeDead;
    }

    public void setIncludeDead(boolean includeDead) {
        this.includeDead = includeDead;
    }

    public int getBatch() {
        return batch;
    }

    public void setBatch(int batch) {
        this.batch = batch;
    }

    public Duration getPause() {
        return pause;
    }

    public void setPause(Duration pause) {
        this.pause = pause;
    }
}
