package io.shardscan.core;

import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RetryRules;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;

/**
 * The outcomes a round's lanes collect, written back in batches as they come: a failure past the
 * last tier becomes dead, a skip writes nothing, a row without an outcome (not started) stays
 * pending. Thread-safe for {@link #put}; {@link #drain} and {@link #written} run on the round's
 * thread only.
 */
final class Outcomes {

    private final RetryRules rules;
    private final List<Row> page;
    private final long[] ids;
    /** The page position of each id in {@link #ids}; {@code null} when the page is in id order. */
    private final int[] pagePositions;

    private final AtomicReferenceArray<Outcome> byPosition;
    /** Rows whose outcome a transactional call wrote back itself: finished, nothing left to drain. */
    private final AtomicIntegerArray writtenByCall;

    private final boolean[] drained;

    /**
     * @param page the fetched rows, in ascending id order ({@link RowKey#ORDER}) as {@link TaskStore#fetch}
     *     returns them, or in due order for a task with a due-at column
     */
    Outcomes(TaskDefinition task, RetryRules rules, List<Row> page) {
        this.rules = rules;
        this.page = page;
        long[] ids = new long[page.size()];
        boolean ascending = true;
        for (int i = 0; i < ids.length; i++) {
            Row row = page.get(i);
            ids[i] = row.id();
            if (i > 0 && !task.delayed() && !before(page.get(i - 1), row)) {
                throw new IllegalStateException("the task store returned the page of task " + task.name()
                        + " out of id order (" + page.get(i - 1).idValue() + " before " + row.idValue()
                        + "); TaskStore.fetch must return rows in ascending id order");
            }
            ascending &= i == 0 || ids[i] > ids[i - 1];
        }
        // a text id's number is a hash, in no order: its page is sorted by it as a due-ordered page is
        this.pagePositions = ascending ? null : idOrder(task, page, ids);
        this.ids = ascending
                ? ids
                : Arrays.stream(pagePositions).mapToLong(i -> ids[i]).toArray();
        this.byPosition = new AtomicReferenceArray<>(ids.length);
        this.writtenByCall = new AtomicIntegerArray(ids.length);
        this.drained = new boolean[ids.length];
    }

    /** Whether {@code a}'s id comes before {@code b}'s: {@link RowKey#ORDER} without a due time, and cheap. */
    private static boolean before(Row a, Row b) {
        return a.textId() == null || b.textId() == null
                ? a.id() < b.id()
                : a.textId().compareTo(b.textId()) < 0;
    }

    /** A page's positions sorted by id number, so that outcomes are found by binary search all the same. */
    private static int[] idOrder(TaskDefinition task, List<Row> page, long[] ids) {
        int[] order = IntStream.range(0, ids.length)
                .boxed()
                .sorted(Comparator.comparingLong(i -> ids[i]))
                .mapToInt(Integer::intValue)
                .toArray();
        for (int i = 1; i < order.length; i++) {
            for (int j = i - 1; j >= 0 && ids[order[j]] == ids[order[i]]; j--) {
                if (page.get(order[j]).key().sameRow(page.get(order[i]).key())) {
                    throw new IllegalStateException("the task store returned row "
                            + page.get(order[i]).idValue() + " of task " + task.name() + " twice in one page");
                }
            }
        }
        return order;
    }

    /** Records a row's outcome, once; looks the row up by id, since lanes are not in page order. */
    void put(Row row, Outcome outcome) {
        byPosition.compareAndSet(positionOf(row), null, outcome);
    }

    /** A transactional call wrote the row's outcome back with its own statements: the row finished. */
    void writtenByCall(Row row) {
        writtenByCall.set(positionOf(row), 1);
    }

    /**
     * The rows of the page left pending where they are: without an outcome (never started, left when
     * their lane stopped, or still in a call) or skipped. In page order.
     */
    List<Row> unfinished() {
        List<Row> unfinished = new ArrayList<>();
        for (int i = 0; i < page.size(); i++) {
            Outcome outcome = byPosition.get(i);
            Row row = page.get(i);
            boolean pending = outcome == null
                    ? writtenByCall.get(i) == 0
                    : rules.recorded(row.retries(), outcome) == Outcome.Kind.SKIP;
            if (pending) {
                unfinished.add(row);
            }
        }
        return unfinished;
    }

    private int positionOf(Row row) {
        int found = Arrays.binarySearch(ids, row.id());
        if (found >= 0) {
            // two text ids may share their number (once in about 2^64 pairs): the row is one of its run
            int first = found;
            while (first > 0 && ids[first - 1] == row.id()) {
                first--;
            }
            for (int i = first; i < ids.length && ids[i] == row.id(); i++) {
                int position = pagePositions == null ? i : pagePositions[i];
                if (Objects.equals(page.get(position).textId(), row.textId())) {
                    return position;
                }
            }
        }
        throw new IllegalArgumentException("row " + row.idValue() + " is not on this page");
    }

    /**
     * The outcomes recorded since the last drain that {@link #written} confirmed, as one write-back.
     * Until confirmed they are drained again, so a write-back that failed is tried once more.
     */
    Batch drain(int shard, long epoch, long run, Instant at) {
        List<Object> done = new ArrayList<>();
        List<WriteBack.Failure> failed = new ArrayList<>();
        List<WriteBack.Failure> dead = new ArrayList<>();
        int[] positions = new int[ids.length];
        int count = 0;
        for (int i = 0; i < ids.length; i++) {
            Outcome outcome = byPosition.get(i);
            if (outcome == null || drained[i]) {
                continue;
            }
            positions[count++] = i;
            Row row = page.get(i);
            // a switch expression (its value unused): a kind added to Outcome fails compilation here until
            // it is written back
            boolean unused =
                    switch (rules.recorded(row.retries(), outcome)) {
                        case DONE -> done.add(row.idValue());
                        case SKIP -> false;
                        case DEAD -> dead.add(failure(row, outcome.kind() == Outcome.Kind.RETRY ? 1 : 0, outcome));
                        case RETRY -> failed.add(failure(row, 1, outcome));
                    };
        }
        return new Batch(new WriteBack(shard, epoch, at, done, failed, dead, run), Arrays.copyOf(positions, count));
    }

    /** The batch was written: its outcomes are not drained again. */
    void written(Batch batch) {
        for (int i : batch.positions) {
            drained[i] = true;
        }
    }

    private static WriteBack.Failure failure(Row row, int added, Outcome outcome) {
        String reason = outcome.reason() == null ? outcome.kind().name() : outcome.reason();
        return new WriteBack.Failure(row.idValue(), row.retries() + added, reason);
    }

    /** A write-back and the page positions it covers. */
    record Batch(WriteBack writeBack, int[] positions) {

        /** Whether a skip-only batch, or none at all, leaves nothing to write. */
        boolean isEmpty() {
            return writeBack.isEmpty();
        }
    }
}
