package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What an idle probe's answer does to a tier's next run. */
class TierCursorTests {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private final Tier retries = new Tier(1, 5, Duration.ofSeconds(30));

    @Test
    void aTierAskedEarlyAndFoundWithARowIsDueAtOnce() {
        TierCursor cursor = idleCursor(NOW.plusSeconds(2));
        cursor.probed(true, NOW);
        assertThat(cursor.idle).isFalse();
        assertThat(cursor.nextRunAt).as("the row it found is due now").isEqualTo(NOW);
    }

    @Test
    void aTierAskedWhenDueAndFoundKeepsItsDueTime() {
        TierCursor cursor = idleCursor(NOW.minusSeconds(1));
        cursor.probed(true, NOW);
        assertThat(cursor.idle).isFalse();
        assertThat(cursor.nextRunAt).isEqualTo(NOW.minusSeconds(1));
    }

    @Test
    void aTierFoundWithoutARowRestsForItsInterval() {
        TierCursor cursor = idleCursor(NOW.plusSeconds(2));
        cursor.probed(false, NOW);
        assertThat(cursor.nextRunAt).isEqualTo(NOW.plus(retries.interval()));
    }

    private TierCursor idleCursor(Instant nextRunAt) {
        TierCursor cursor = new TierCursor(retries, nextRunAt);
        cursor.idle = true;
        cursor.fetching();
        return cursor;
    }
}
