package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RetryRules;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.TestServers;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The line of rounds in a {@link WorkerBudget}, without a database or handlers: which round gets a
 * worker that comes free, on a settable clock.
 */
class WorkerBudgetLineTests {

    /** No statement of these tests reaches it. */
    static final TaskStore store = new JdbcTaskStore(TestServers.h2("worker_budget_line"));

    final SettableScanClock clock = new SettableScanClock(Instant.parse("2026-01-01T00:00:00Z"));
    WorkerBudget budget = new WorkerBudget(1, clock);

    @AfterEach
    void stop() {
        budget.close();
    }

    @Test
    void aFreeWorkerGoesToTheHigherPriorityUntilTheLowerOnesOldestRowWaitedPastMaxWait() {
        TaskContext high = task("high", 10, null, 2);
        TaskContext low = task("low", 0, Duration.ofSeconds(5), 1);
        assertThat(grantedNow(high)).isEqualTo(1);
        // low is in line first, with a row due since now; then a round of high
        CompletableFuture<Integer> lowRound = inLine(low, clock.now());
        CompletableFuture<Integer> highRound = inLine(high, clock.now());

        high.releaseWorkers(1);
        assertThat(highRound.getNow(-1)).as("the higher priority goes first").isEqualTo(1);
        assertThat(holds(low)).isZero();

        CompletableFuture<Integer> nextHighRound = inLine(high, clock.now());
        clock.advance(Duration.ofSeconds(6));
        high.releaseWorkers(1);
        assertThat(lowRound.getNow(-1))
                .as("low's oldest row waited 6 s, past its max-wait of 5 s")
                .isEqualTo(1);
        assertThat(holds(high)).as("high's next round still waits").isZero();
        assertThat(low.stats().agedRounds()).isEqualTo(1);
        assertThat(high.stats().agedRounds()).isZero();
    }

    @Test
    void aTaskAtItsOwnCapDoesNotHoldUpAnother() {
        budget = new WorkerBudget(2, clock);
        TaskContext capped = task("capped", 10, null, 1);
        TaskContext other = task("other", 0, null, 1);
        assertThat(grantedNow(capped)).isEqualTo(1);
        CompletableFuture<Integer> cappedRound = inLine(capped, clock.now());

        assertThat(inLine(other, clock.now()).getNow(-1))
                .as("the free worker, which capped may not take")
                .isEqualTo(1);
        assertThat(holds(capped)).isEqualTo(1);
        assertThat(cappedRound).isNotDone();
    }

    @Test
    void roundsOfATaskPutInLineTogetherShareItsFreeWorkers() {
        budget = new WorkerBudget(200, clock);
        TaskContext orders = task("orders", 0, null, 8);
        List<Integer> granted = new ArrayList<>();
        for (WorkerBudget.Request request : budget.request(orders, 3)) {
            granted.add(budget.whenGranted(request, 8, null, () -> true, late -> {}));
        }
        assertThat(granted).as("workers of each round, of the task's 8").containsExactly(3, 3, 2);
    }

    @Test
    void closingSendsEveryRoundInLineAwayAndGrantsNothingMore() {
        TaskContext holder = task("holder", 10, null, 1);
        TaskContext waiter = task("waiter", 0, null, 1);
        assertThat(grantedNow(holder)).isEqualTo(1);
        CompletableFuture<Integer> waiting = inLine(waiter, clock.now());

        budget.close();
        assertThat(waiting.getNow(-1)).as("workers the round got").isZero();
        holder.releaseWorkers(1);
        assertThat(holds(waiter)).isZero();
        assertThat(waiter.stats().roundsWaiting()).isZero();
    }

    @Test
    void aRoundInLineNoLongerWantedGivesUpAtTheSweepWithoutAWorker() {
        TaskContext holder = task("holder", 10, null, 1);
        TaskContext waiter = task("waiter", 0, null, 1);
        assertThat(grantedNow(holder)).isEqualTo(1);
        AtomicBoolean wanted = new AtomicBoolean(true);
        CompletableFuture<Integer> round = new CompletableFuture<>();
        assertThat(budget.whenGranted(budget.request(waiter), 1, clock.now(), wanted::get, round::complete))
                .isEqualTo(WorkerBudget.IN_LINE);

        budget.sweep();
        assertThat(round).as("still wanted, it stays in line").isNotDone();
        wanted.set(false);
        budget.sweep();
        assertThat(round.getNow(-1)).as("workers the round got").isZero();
        assertThat(waiter.stats().roundsWaiting()).isZero();
        holder.releaseWorkers(1);
        assertThat(holds(waiter))
                .as("the worker freed does not go to a round that gave up")
                .isZero();
    }

    @Test
    void aRoundAgesFromWhenItsOldestRowBecameDue() {
        RetryRules rules = TaskDefinition.builder("t")
                .table("t")
                .tiers(List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-5", Duration.ofSeconds(30))))
                .build()
                .retryRules();
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        Row.Layout layout = new Row.Layout(List.of("updated_at"));
        Row fresh = layout.row(1, 1, 0, null, new Object[] {Timestamp.from(t)});
        Row failed = layout.row(2, 2, 1, null, new Object[] {Timestamp.from(t.minusSeconds(40))});
        Row delayed = layout.row(3, 3, 0, t.minusSeconds(50), new Object[] {Timestamp.from(t)});
        Row delayedFailed = layout.row(4, 4, 1, t.minusSeconds(5), new Object[] {Timestamp.from(t.minusSeconds(60))});

        assertThat(DueTimes.oldest(rules, List.of(fresh), "UPDATED_AT")).isEqualTo(t);
        assertThat(DueTimes.oldest(rules, List.of(fresh, failed), "updated_at"))
                .as("failed 40 s ago, due after its tier's 30 s")
                .isEqualTo(t.minusSeconds(10));
        assertThat(DueTimes.oldest(rules, List.of(fresh, failed, delayed), "updated_at"))
                .as("due at its due-at column, whatever its updated_at")
                .isEqualTo(t.minusSeconds(50));
        assertThat(DueTimes.oldest(rules, List.of(delayedFailed), "updated_at"))
                .as("failed 60 s ago, but not due before its due time")
                .isEqualTo(t.minusSeconds(5));
        assertThat(DueTimes.oldest(rules, List.of(), "updated_at")).isNull();
    }

    /**
     * Puts a round of {@code task} in line now, its page fetched with a row due since {@code oldestDue};
     * the future completes with the workers it is granted, 0 when it gave up.
     */
    private CompletableFuture<Integer> inLine(TaskContext task, Instant oldestDue) {
        CompletableFuture<Integer> round = new CompletableFuture<>();
        int now = budget.whenGranted(budget.request(task), 1, oldestDue, () -> true, round::complete);
        if (now != WorkerBudget.IN_LINE) {
            round.complete(now);
        }
        return round;
    }

    /** The workers {@code task} holds: granted by the budget, or taken in a round. */
    private static int holds(TaskContext task) {
        return task.definition().rounds().workers() - task.workerPermits().availablePermits();
    }

    private int grantedNow(TaskContext task) {
        return budget.whenGranted(budget.request(task), 1, null, () -> true, late -> {
            throw new AssertionError("granted later");
        });
    }

    private TaskContext task(String name, int priority, @Nullable Duration maxWait, int workers) {
        TaskDefinition definition = TaskDefinition.builder(name)
                .table("tb_" + name)
                .workers(workers)
                .priority(priority)
                .maxWait(maxWait)
                .build();
        return new TaskContext(
                new ScanEngine.ScanTask(definition, (TaskHandler.PerRow) (row, ctx) -> Outcome.done()),
                store,
                Duration.ofSeconds(4),
                clock,
                ScanListener.NONE,
                TaskWorkers.own(1, Threads.named("test-worker-")),
                "node-a",
                () -> {},
                () -> true,
                () -> 0,
                budget,
                new InMemoryEndpointBans(clock),
                EndpointDownClassifier.DEFAULT);
    }
}
