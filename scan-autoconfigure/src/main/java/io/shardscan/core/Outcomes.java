package io.shardscan.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
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
     * @param page the fetched rows, in ascending id order as {@link TaskStore#fetch} returns them,
     *     or in due order for a task with a due-at column
     */
    Outcomes(TaskDefinition task, RetryRules rules, List<Row> page) {
        this.rules = rules;
        this.page = page;
        long[] ids = new long[page.size()];
        boolean ascending = true;
        for (int i = 0; i < ids.length; i++) {
            ids[i] = page.get(i).id();
            if (i > 0 && ids[i] <= ids[i - 1] && !task.delayed()) {
                throw new IllegalStateException("the task store returned the page of task " + task.name()
                        + " out of id order (" + ids[i - 1] + " before " + ids[i] + "); TaskStore.fetch must"
                        + " return rows in ascending id order");
            }
            ascending &= i == 0 || ids[i] > ids[i - 1];
        }
        this.pagePositions = ascending ? null : idOrder(task, ids);
        this.ids = ascending
                ? ids
                : Arrays.stream(pagePositions).mapToLong(i -> ids[i]).toArray();
        this.byPosition = new AtomicReferenceArray<>(ids.length);
        this.writtenByCall = new AtomicIntegerArray(ids.length);
        this.drained = new boolean[ids.length];
    }

    /** A due-ordered page's positions sorted by id, so that outcomes are found by binary search all the same. */
    private static int[] idOrder(TaskDefinition task, long[] ids) {
        int[] order = IntStream.range(0, ids.length)
                .boxed()
                .sorted(Comparator.comparingLong(i -> ids[i]))
                .mapToInt(Integer::intValue)
                .toArray();
        for (int i = 1; i < order.length; i++) {
            if (ids[order[i]] == ids[order[i - 1]]) {
                throw new IllegalStateException("the task store returned row " + ids[order[i]] + " of task "
                        + task.name() + " twice in one page");
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
        int position = Arrays.binarySearch(ids, row.id());
        if (position < 0) {
            throw new IllegalArgumentException("row " + row.id() + " is not on this page");
        }
        return pagePositions == null ? position : pagePositions[position];
    }

    /**
     * The outcomes recorded since the last drain that {@link #written} confirmed, as one write-back.
     * Until confirmed they are drained again, so a write-back that failed is tried once more.
     */
    Batch drain(int shard, long epoch, long run, Instant at) {
        List<Long> done = new ArrayList<>();
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
            switch (rules.recorded(row.retries(), outcome)) {
                case DONE -> done.add(row.id());
                case SKIP -> {}
                case DEAD -> dead.add(failure(row, outcome.kind() == Outcome.Kind.RETRY ? 1 : 0, outcome));
                case RETRY -> failed.add(failure(row, 1, outcome));
            }
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
        return new WriteBack.Failure(row.id(), row.retries() + added, reason);
    }

    /** A write-back and the page positions it covers. */
    record Batch(WriteBack writeBack, int[] positions) {

        /** Whether a skip-only batch, or none at all, leaves nothing to write. */
        boolean isEmpty() {
            return writeBack.isEmpty();
        }
    }
}
