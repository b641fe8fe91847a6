package io.shardscan.testsupport;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A real {@link TaskStore} that also records, for every fetch, when it ran and the value of one
 * column of each row it returned, so a test can tell which rows the engine read and when; what each
 * idle probe asked; and how often each row was written back done by a write-back the fence let
 * through.
 */
public final class RecordingTaskStore implements TaskStore {

    /** One fetched row: when its fetch started (System.nanoTime) and its recorded column's value. */
    public record Fetched(long nanos, String value) {}

    private final TaskStore store;
    private final String column;
    private final ConcurrentLinkedQueue<Fetched> fetched = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<List<FetchRequest>> probes = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Long> looks = new ConcurrentLinkedQueue<>();
    private final Map<Object, AtomicInteger> writtenDone = new ConcurrentHashMap<>();
    private final AtomicLong failWriteBacksUntil = new AtomicLong();
    private volatile Duration failFor = Duration.ZERO;
    private volatile @Nullable Supplier<? extends Error> writeBackFailure;
    private final CallHold fetches = new CallHold();

    public RecordingTaskStore(TaskStore store, String column) {
        this.store = store;
        this.column = column;
    }

    /** How many rows whose column reads {@code value} came from fetches started between the two readings of System.nanoTime. */
    public long fetched(String value, long fromNanos, long toNanos) {
        return fetched.stream()
                .filter(f -> f.value().equals(value) && f.nanos() - fromNanos >= 0 && toNanos - f.nanos() >= 0)
                .count();
    }

    /**
     * How many times the engine looked for rows (a fetch or an idle probe) starting between the two
     * readings of System.nanoTime: a test waits for the engine to look, not for wall time to pass.
     */
    public long looked(long fromNanos, long toNanos) {
        return looks.stream()
                .filter(nanos -> nanos - fromNanos >= 0 && toNanos - nanos >= 0)
                .count();
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest request) {
        // stamped when the fetch starts: a fetch that began before a ban may return after it
        long now = System.nanoTime();
        looks.add(now);
        fetches.pass();
        List<Row> page = store.fetch(task, request);
        page.forEach(row ->
                fetched.add(new Fetched(now, Objects.toString(row.columns().get(column)))));
        return page;
    }

    /**
     * Every fetch from now on waits until {@code released} opens (at most 60 s), before it reaches the
     * database, and interrupts do not end the wait: a database that stopped answering.
     */
    public RecordingTaskStore hangFetches(CountDownLatch released) {
        fetches.holdUntil(released);
        return this;
    }

    /** The fetches waiting in {@link #hangFetches} now. */
    public int hangingFetches() {
        return fetches.held();
    }

    /** The real store's probe, its requests recorded: a probe reads no row, so it records none as fetched. */
    @Override
    public List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> requests) {
        looks.add(System.nanoTime());
        probes.add(List.copyOf(requests));
        return store.dueRequests(task, requests);
    }

    /** The requests of every probe so far, one list per probe, in the order they ran. */
    public List<List<FetchRequest>> probes() {
        return List.copyOf(probes);
    }

    @Override
    public Optional<String> fenceOwner(TaskDefinition task, int shard) {
        return store.fenceOwner(task, shard);
    }

    @Override
    public SchemaReport inspect(TaskDefinition task) {
        return store.inspect(task);
    }

    @Override
    public List<RowKey> failedRows(TaskDefinition task, int shard) {
        return store.failedRows(task, shard);
    }

    @Override
    public long fence(TaskDefinition task, int shard, String owner) {
        return store.fence(task, shard, owner);
    }

    @Override
    public boolean writeBack(TaskDefinition task, WriteBack batch) {
        Supplier<? extends Error> failure = writeBackFailure;
        if (failure != null) {
            long until = failWriteBacksUntil.updateAndGet(u -> u == 0 ? System.nanoTime() + failFor.toNanos() : u);
            if (System.nanoTime() - until < 0) {
                throw failure.get();
            }
        }
        boolean written = store.writeBack(task, batch);
        if (written) {
            batch.done().forEach(id -> writtenDone
                    .computeIfAbsent(id, i -> new AtomicInteger())
                    .incrementAndGet());
        }
        return written;
    }

    /**
     * Makes every write-back throw {@code failure} for {@code duration} from the first one that
     * does, as a node whose jar was replaced under it would (a {@code NoClassDefFoundError}); nothing
     * is written meanwhile.
     */
    public RecordingTaskStore failWriteBacks(Duration duration, Supplier<? extends Error> failure) {
        this.failFor = duration;
        this.writeBackFailure = failure;
        return this;
    }

    /** How many accepted write-backs marked each row done, by row id ({@link io.shardscan.core.task.Row#idValue()}). */
    public Map<Object, Integer> writtenDone() {
        Map<Object, Integer> counts = new java.util.HashMap<>();
        writtenDone.forEach((id, count) -> counts.put(id, count.get()));
        return counts;
    }

    @Override
    public io.shardscan.core.spi.TaskRuns runs() {
        return store.runs();
    }

    @Override
    public io.shardscan.core.spi.TaskAdmin admin() {
        return store.admin();
    }

    @Override
    public io.shardscan.core.spi.TaskControl control() {
        return store.control();
    }

    @Override
    public boolean inTransaction(TransactionalWork work) throws Exception {
        return store.inTransaction(work);
    }

    @Override
    public int archive(TaskDefinition task, int shard, long epoch) {
        return store.archive(task, shard, epoch);
    }
}
