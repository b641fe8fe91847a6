package io.shardscan.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The outcomes a round's lanes collect, turned into one write-back: a failure past the last tier
 * becomes dead, a skip writes nothing, a row without an outcome (not dispatched) stays pending.
 * Thread-safe for {@link #put}; {@link #toWriteBack} runs after the latch opened.
 */
final class Outcomes {

    private final TaskDefinition task;
    private final List<Row> page;
    private final int errorLength;
    private final long[] ids;
    private final AtomicReferenceArray<Outcome> byPosition;

    /** @param page the fetched rows, in ascending id order as {@link TaskStore#fetch} returns them */
    Outcomes(TaskDefinition task, List<Row> page, int errorLength) {
        this.task = task;
        this.page = page;
        this.errorLength = errorLength;
        this.ids = new long[page.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = page.get(i).id();
            if (i > 0 && ids[i] <= ids[i - 1]) {
                throw new IllegalStateException("the task store returned the page of task " + task.name()
                        + " out of id order (" + ids[i - 1] + " before " + ids[i] + "); TaskStore.fetch must"
                        + " return rows in ascending id order");
            }
        }
        this.byPosition = new AtomicReferenceArray<>(ids.length);
    }

    /** Records a row's outcome; looks the row up by id, since lanes are not in page order. */
    void put(Row row, Outcome outcome) {
        int position = Arrays.binarySearch(ids, row.id());
        if (position < 0) {
            throw new IllegalArgumentException("row " + row.id() + " is not on this page");
        }
        byPosition.set(position, outcome);
    }

    WriteBack toWriteBack(int shard, long epoch, Instant at) {
        List<Long> done = new ArrayList<>();
        List<WriteBack.Failure> failed = new ArrayList<>();
        List<WriteBack.Failure> dead = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            Row row = page.get(i);
            Outcome outcome = byPosition.get(i);
            if (outcome == null) {
                continue;
            }
            switch (outcome.kind()) {
                case DONE -> done.add(row.id());
                case SKIP -> {}
                case DEAD -> dead.add(failure(row, row.retries(), outcome));
                case RETRY -> {
                    int retries = row.retries() + 1;
                    (task.exhausted(retries) ? dead : failed).add(failure(row, retries, outcome));
                }
            }
        }
        return new WriteBack(shard, epoch, at, done, failed, dead);
    }

    private WriteBack.Failure failure(Row row, int retries, Outcome outcome) {
        String reason = outcome.reason() == null ? outcome.kind().name() : outcome.reason();
        return new WriteBack.Failure(row.id(), retries, truncate(reason));
    }

    private String truncate(String reason) {
        return reason.length() <= errorLength ? reason : reason.substring(0, Math.max(0, errorLength - 1)) + "…";
    }
}
