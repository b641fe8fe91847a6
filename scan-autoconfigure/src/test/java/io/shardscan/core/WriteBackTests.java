package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.WriteBack;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which batches a store may write with its one-statement fast path: done rows only, for no run. */
class WriteBackTests {

    private static final WriteBack.Failure FAILED = new WriteBack.Failure(2L, 1, "failed");

    @Test
    void onlyADoneBatchForNoRunIsDoneOnly() {
        Instant now = Instant.now();
        assertThat(new WriteBack(0, 1, now, List.of(1L), List.of(), List.of()).doneOnly())
                .isTrue();
        assertThat(new WriteBack(0, 1, now, List.of(1L), List.of(FAILED), List.of()).doneOnly())
                .isFalse();
        assertThat(new WriteBack(0, 1, now, List.of(1L), List.of(), List.of(FAILED)).doneOnly())
                .isFalse();
        assertThat(new WriteBack(0, 1, now, List.of(1L), List.of(), List.of(), 7).doneOnly())
                .isFalse();
    }
}
