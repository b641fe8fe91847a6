package io.shardscan.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The outcomes a round's lanes collect, turned into one write-back: a failure past the last tier
 * becomes dead, a skip writes nothing, a row without an outcome (not dispatched) stays pending.
 * Thread-safe for {@link #put}; {@link #toWriteBack} runs after the latch opened.
 */
final class Outcomes {

    private final TaskDefinition task;
    private final List<Row> page;
    private final int errorLength;
    private final Map<Long, Outcome> byId = new ConcurrentHashMap<>();

    Outcomes(TaskDefinition task, List<Row> page, int errorLength) {
        this.task = task;
        this.page = page;
        this.errorLength = errorLength;
    }

    void put(Row row, Outcome outcome) {
        byId.put(row.id(), outcome);
    }

    WriteBack toWriteBack(int shard, long epoch, Instant at) {
        List<Long> done = new ArrayList<>();
        List<WriteBack.Failure> failed = new ArrayList<>();
        List<WriteBack.Failure> dead = new ArrayList<>();
        for (Row row : page) {
            Outcome outcome = byId.get(row.id());
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
