package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeCursor;
import io.shardscan.core.spi.RangeFailures;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeLedger;
import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RangeTable;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * How often a range's position commits, on a clock moved by hand: once the commit interval has passed since
 * the last commit, and at the range's end, not after every page; so the rows a crash redoes are those of
 * one commit interval at most (range-jobs.md, "What may run twice"); a commit interval that the stall
 * timeout does not exceed fails the task.
 */
class RangeCommitsTests {

    private static final Duration INTERVAL = Duration.ofMillis(250);
    private static final long IDS = 1_000;

    private final ManualClock clock = new ManualClock();
    private final List<RangeCommit> commits = new ArrayList<>();
    private final Row.Layout layout = new Row.Layout(List.of("user_id"));

    private final RangeTask task = new RangeTask(
            TaskDefinition.builder("users")
                    .table("tb_user")
                    .idColumn("user_id")
                    .pageSize(100)
                    .workers(1)
                    .commitInterval(INTERVAL)
                    .build(),
            IDS,
            Duration.ofMinutes(5),
            RunMode.ONCE);

    @Test
    void aRangeFasterThanTheCommitIntervalCommitsOnceAtItsEnd() {
        long handled = scan(row -> {});

        assertThat(handled).isEqualTo(IDS);
        assertThat(commits)
                .as("ten pages, one commit: the range's end")
                .singleElement()
                .satisfies(commit -> {
                    assertThat(commit.position()).isEqualTo(IDS);
                    assertThat(commit.processed()).isEqualTo(IDS);
                    assertThat(commit.done()).isTrue();
                });
    }

    @Test
    void aSlowRangeCommitsOncePerCommitIntervalSoARedoIsAtMostAnIntervalOfRows() {
        // each row takes 10 ms of the clock: 25 rows per commit interval, pages of 100
        long handled = scan(row -> clock.elapse(Duration.ofMillis(10)));

        assertThat(handled).isEqualTo(IDS);
        assertThat(commits.stream().mapToLong(RangeCommit::processed).sum()).isEqualTo(IDS);
        assertThat(commits)
                .as("never more than one commit interval of rows uncommitted")
                .allSatisfy(commit -> assertThat(commit.processed()).isLessThanOrEqualTo(25));
        assertThat(commits.stream().filter(c -> c.processed() > 0)).hasSize(40);
        assertThat(commits.get(commits.size() - 1).done()).isTrue();
    }

    @Test
    void aCommitIntervalNotShorterThanTheStallTimeoutFailsTheTask() {
        assertThatThrownBy(() -> new RangeTask(task.definition(), IDS, INTERVAL, RunMode.ONCE))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.users.commit-interval (PT0.25S) must be shorter than its"
                        + " stall-timeout (PT0.25S)");
    }

    private long scan(RowWork work) {
        TaskHandler.PerRow handler = (row, context) -> {
            work.run(row);
            return null;
        };
        RangeStores stores = new RangeStores(
                unused(TaskRuns.class),
                unused(RangeCursor.class),
                new Ledger(),
                new Table(),
                unused(RangeFailures.class));
        RangeScan scan = new RangeScan(
                task,
                stores,
                new RangeHandling(task, handler, clock, new FailureLog(), null),
                clock,
                "node-a",
                () -> true,
                duration -> {},
                (LongConsumer) rows -> {},
                new IdHorizon(Duration.ZERO));
        return scan.scan(new HeldRange(1, new RangeLease(1, IDS, 0, 1)), new RunRange(1, IDS, IDS, "jdbc"));
    }

    /** A clock that moves only when told, so no real time passes between two rows however slow the machine. */
    private static final class ManualClock implements ScanClock {

        private final Instant start = Instant.parse("2026-11-29T00:00:00Z");
        private long nanos;

        void elapse(Duration duration) {
            nanos += duration.toNanos();
        }

        @Override
        public Instant now() {
            return start.plusNanos(nanos);
        }

        @Override
        public long nanos() {
            return nanos;
        }
    }

    @FunctionalInterface
    private interface RowWork {
        void run(Row row);
    }

    private static <T> T unused(Class<T> port) {
        return port.cast(Proxy.newProxyInstance(port.getClassLoader(), new Class<?>[] {port}, (proxy, method, args) -> {
            throw new UnsupportedOperationException(method.getName());
        }));
    }

    /** The ids 1 to {@link #IDS}, without gaps. */
    private final class Table implements RangeTable {

        @Override
        public List<Row> page(RangeTask task, long after, long last, int limit) {
            return LongStream.rangeClosed(after + 1, Math.min(last, Math.min(IDS, after + limit)))
                    .mapToObj(id -> layout.row(id, id, 0, new Object[] {id}))
                    .toList();
        }

        @Override
        public List<Row> rows(RangeTask task, List<Long> ids) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long minId(RangeTask task) {
            return 1;
        }

        @Override
        public long maxId(RangeTask task) {
            return IDS;
        }

        @Override
        public SchemaReport inspect(RangeTask task) {
            throw new UnsupportedOperationException();
        }
    }

    /** Keeps every commit; the range's epoch is never taken. */
    private final class Ledger implements RangeLedger {

        @Override
        public Optional<RangeLease> open(String task, long run, long start, long end, String owner) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<RangeLease> takeOver(
                String task, long run, String owner, Duration leaseTtl, Duration stallTimeout, int limit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<Long> heartbeat(String task, long run, String owner, Map<Long, Long> leases) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean commit(String task, RangeCommit commit) {
            commits.add(commit);
            return true;
        }

        @Override
        public RangeProgress progress(String task, long run) {
            throw new UnsupportedOperationException();
        }
    }
}
