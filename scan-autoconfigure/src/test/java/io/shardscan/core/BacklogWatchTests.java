package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.BacklogCounts;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a task's backlog is counted again: at every refresh while something changes, else every sixth. */
class BacklogWatchTests {

    static final Duration REFRESH = Duration.ofSeconds(10);
    static final long SECOND = 1_000_000_000L;

    final BacklogWatch watch = new BacklogWatch();
    final BacklogCounts empty = new BacklogCounts(List.of(), 0, 0);
    final BacklogCounts someDead = new BacklogCounts(List.of(), 3, 0);

    @Test
    void aQuietTaskIsCountedEverySixthRefresh() {
        assertThat(watch.due(0, 0, REFRESH)).as("never counted").isTrue();
        watch.counted(empty, 0, 0);
        assertThat(watch.due(0, 10 * SECOND, REFRESH))
                .as("the same activity, one count")
                .isFalse();
        watch.counted(empty, 0, 0);
        for (int refresh = 1; refresh < BacklogWatch.QUIET_REFRESHES; refresh++) {
            assertThat(watch.due(0, refresh * 10 * SECOND, REFRESH))
                    .as("refresh %d", refresh)
                    .isFalse();
        }
        assertThat(watch.due(0, 60 * SECOND, REFRESH)).isTrue();
    }

    @Test
    void rowsHandledOrFoundHereMakeTheNextRefreshCount() {
        watch.counted(empty, 0, 0);
        assertThat(watch.due(1, 10 * SECOND, REFRESH)).isTrue();
        watch.counted(empty, 1, 10 * SECOND);
        assertThat(watch.due(1, 20 * SECOND, REFRESH)).isFalse();
    }

    @Test
    void countsThatDifferFromTheLastOnesKeepItCountingEveryRefresh() {
        watch.counted(empty, 0, 0);
        // another node works the table: this node's activity stays 0, the counts change
        watch.counted(someDead, 0, 10 * SECOND);
        assertThat(watch.due(0, 20 * SECOND, REFRESH)).isTrue();
        watch.counted(someDead, 0, 20 * SECOND);
        assertThat(watch.due(0, 30 * SECOND, REFRESH))
                .as("the same counts twice: quiet")
                .isFalse();
    }
}
