package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.RangeCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract of {@link RangeCursor}, run by every backend through a subclass. */
public abstract class RangeCursorContractTests {

    protected abstract RangeCursor createCursor();

    private RangeCursor cursor;
    private String task;

    @BeforeEach
    void setUp() {
        cursor = createCursor();
        task = "cursor-" + System.nanoTime();
    }

    @Test
    void claimsConsecutiveBlocksPerRun() {
        assertThat(cursor.peek(task, 1)).isZero();
        assertThat(cursor.claim(task, 1, 100)).isZero();
        assertThat(cursor.claim(task, 1, 100)).isEqualTo(100);
        assertThat(cursor.peek(task, 1)).isEqualTo(200);
        assertThat(cursor.claim(task, 2, 50)).isZero();
        assertThat(cursor.claim("other-" + task, 1, 10)).isZero();
        assertThat(cursor.peek(task, 1)).isEqualTo(200);
    }

    /** A run that ended removes the earlier runs' cursors and keeps its own for late readers. */
    @Test
    void retiringARunRemovesTheCursorsOfTheRunsBefore() {
        cursor.claim(task, 1, 100);
        cursor.claim(task, 2, 100);
        cursor.retire(task, 2);
        assertThat(cursor.peek(task, 1)).isZero();
        assertThat(cursor.peek(task, 2))
                .as("kept for a node that has not seen the end yet")
                .isEqualTo(100);
        assertThat(cursor.claim(task, 3, 10)).isZero();
    }

    /** Eight threads claim at once, as nodes do: every block is handed out once, none is skipped. */
    @Test
    void concurrentClaimsNeverOverlap() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Callable<List<Long>>> claimers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                claimers.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        mine.add(cursor.claim(task, 1, 10));
                    }
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> claims : threads.invokeAll(claimers)) {
                all.addAll(claims.get());
            }
            assertThat(all).doesNotHaveDuplicates().hasSize(200);
            assertThat(all).allMatch(offset -> offset % 10 == 0 && offset >= 0 && offset < 2000);
            assertThat(cursor.peek(task, 1)).isEqualTo(2000);
        } finally {
            threads.shutdownNow();
        }
    }
}
