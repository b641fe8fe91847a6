package io.shardscan.core;

import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One node's worker budget ({@code scan.max-workers}), shared by all its tasks; each task stays
 * within its own {@code workers} too. A round gets in line when it is dispatched, before its fetch,
 * so a task with more due rows keeps its place while it reads them; after the fetch it says how long
 * its oldest row has been due and waits. Free workers go to the round in line that ranks first:
 *
 * <ol>
 *   <li>a round whose oldest row has been due longer than its task's {@code max-wait} (aging: it
 *       ranks above every priority, so the task is served first until it has caught up);
 *   <li>then the higher task {@code priority};
 *   <li>then the round whose oldest row has been due longest, then the one that came first.
 * </ol>
 *
 * A round waits in line without a thread: it says what it does once granted ({@link #whenGranted})
 * and its thread goes back to the pool, so the rounds in line do not hold a thread each (200 tasks had
 * 868 round threads, most of them waiting here).
 *
 * <p>A round whose task already holds its own {@code workers} is passed over, so it never holds up
 * another task. A round gets between one and the workers it asked for: as many lanes as it can
 * start now, but no more than its share of its task's free workers while other rounds of that task
 * are in line (free / rounds in line, rounded up), so that two due shards of a task with 8 free
 * workers run 4 lanes each, not 8 and none. Workers come back one by one as lanes end ({@link TaskContext#releaseWorkers}), also
 * from a lane whose hung handler was abandoned, so the budget counts workers, never stuck threads.
 * A waiting round gives up (its rows stay pending) when its task stops or pauses, its shard moves
 * ({@link #sweep()}, every {@link #SWEEP}) or the node stops ({@link #close()}), so neither shutdown,
 * a pause nor a handover waits for workers. Thread-safe.
 */
final class WorkerBudget {

    /** How often the rounds in line are asked whether they are still wanted ({@link #sweep()}). */
    static final Duration SWEEP = Duration.ofMillis(100);

    /** What {@link #whenGranted} returns for a round that stays in line: it is resumed later. */
    static final int IN_LINE = -1;

    /** The rank of an aged round: above every priority a task can have. */
    private static final int AGED = TaskDefinition.MAX_PRIORITY + 1;

    private final ScanClock clock;
    private final int size;
    private final List<Request> waiting = new ArrayList<>();
    private int free;
    private long arrivals;
    private boolean closed;

    WorkerBudget(int size, ScanClock clock) {
        if (size < 1) {
            throw new IllegalArgumentException("a worker budget needs at least 1 worker (was " + size + ")");
        }
        this.size = size;
        this.free = size;
        this.clock = clock;
    }

    /** The workers the budget has in all: {@code scan.max-workers}. */
    int size() {
        return size;
    }

    /**
     * Puts a round of {@code task} in line for workers, before it fetches, so that a task with more
     * due rows holds its place while it reads them; it ranks by its task's priority until
     * {@link #whenGranted} tells how long its rows have been due. It may be granted workers meanwhile.
     * The round must end with {@link #whenGranted} or {@link #cancel}.
     */
    Request request(TaskContext task) {
        return request(task, 1).get(0);
    }

    /**
     * Puts {@code rounds} rounds of {@code task} in line at once, as one dispatcher pass starts them,
     * so that they share the task's free workers instead of the first taking them all; otherwise as
     * {@link #request(TaskContext)}.
     */
    List<Request> request(TaskContext task, int rounds) {
        List<Request> requests = new ArrayList<>(rounds);
        List<Request> resumed;
        synchronized (this) {
            for (int i = 0; i < rounds; i++) {
                Request request = new Request(task, task.definition().rounds().workers(), arrivals++, clock.nanos());
                task.stats().roundsWaiting(1);
                waiting.add(request);
                requests.add(request);
            }
            resumed = grant();
        }
        resume(resumed);
        return requests;
    }

    /**
     * The round fetched its page and waits for workers of the budget and of its task's own cap,
     * without a thread: once granted, or once it gives up, {@code resume} is called, once, on the
     * thread that granted or gave up, outside the budget's lock (it should only hand the round on).
     *
     * @param wanted the workers its page can use, at least 1
     * @param oldestDue since when the round's oldest row has been due, or {@code null} when unknown
     *     (the round then never ages)
     * @param stillWanted asked every {@link #SWEEP} while it waits; once it says {@code false} the
     *     round gives up
     * @param resume given the workers granted, at least 1, taken from the budget and from the task's
     *     permits; 0 when the round gave up
     * @return the workers granted already (then {@code resume} is never called; more than {@code
     *     wanted} when granted before the fetch: the round gives back the rest), 0 when it gave up at
     *     once, or {@link #IN_LINE}
     */
    int whenGranted(
            Request request, int wanted, @Nullable Instant oldestDue, BooleanSupplier stillWanted, IntConsumer resume) {
        synchronized (this) {
            if (request.granted == 0) {
                if (closed || !stillWanted.getAsBoolean()) {
                    leave(request);
                    return 0;
                }
                request.wanted = wanted;
                request.oldestDue = oldestDue;
                request.stillWanted = stillWanted;
                request.resume = resume;
                return IN_LINE;
            }
            request.task.stats().roundsWaiting(-1);
            request.done = true;
        }
        told(request);
        return request.granted;
    }

    /** The round ends without running lanes (nothing due, or it failed): it leaves the line, giving back any workers. */
    void cancel(Request request) {
        List<Request> resumed;
        synchronized (this) {
            if (request.done) {
                return;
            }
            resumed = leave(request);
        }
        resume(resumed);
    }

    /** Takes the round out of line, giving back any workers it got; returns the rounds granted them. */
    private List<Request> leave(Request request) {
        request.done = true;
        request.task.stats().roundsWaiting(-1);
        waiting.remove(request);
        if (request.granted == 0) {
            return List.of();
        }
        request.task.workerPermits().release(request.granted);
        free += request.granted;
        request.granted = 0;
        return grant();
    }

    /** {@code count} workers of {@code task} are free again; the task's own permits were released first. */
    void release(int count) {
        if (count <= 0) {
            return;
        }
        List<Request> resumed;
        synchronized (this) {
            free += count;
            resumed = grant();
        }
        resume(resumed);
    }

    /**
     * Every round in line that is no longer wanted (its task stopped or paused, its shard moved)
     * gives up; the node runs it every {@link #SWEEP}.
     */
    void sweep() {
        sendAway(request -> !request.stillWanted.getAsBoolean());
    }

    /**
     * The node stops: no round gets workers any more, and every round in line gives up at once, so
     * workers that come free as one task stops never start another task's rows.
     */
    void close() {
        synchronized (this) {
            closed = true;
        }
        sendAway(request -> true);
    }

    /** The rounds waiting in line without a thread that {@code unwanted} picks give up (a round in line holds no workers). */
    private void sendAway(Predicate<Request> unwanted) {
        List<Request> gone = new ArrayList<>();
        synchronized (this) {
            for (Request request : List.copyOf(waiting)) {
                if (request.resume != null && unwanted.test(request)) {
                    leave(request);
                    gone.add(request);
                }
            }
        }
        resume(gone);
    }

    /** How long the longest waiting round of {@code task} has waited; zero when none waits. */
    synchronized Duration longestWait(TaskContext task) {
        long now = clock.nanos();
        long longest = 0;
        for (Request request : waiting) {
            if (request.task == task) {
                longest = Math.max(longest, now - request.arrivedNanos);
            }
        }
        return Duration.ofNanos(longest);
    }

    /**
     * Hands free workers to the waiting rounds in rank order, passing over those whose task is at its
     * own cap; returns the rounds granted that wait without a thread, for {@link #resume} outside the lock.
     */
    private List<Request> grant() {
        List<Request> resumed = new ArrayList<>();
        Instant now = null;
        while (!closed && free > 0 && !waiting.isEmpty()) {
            now = now == null ? clock.now() : now;
            Request best = null;
            for (Request request : waiting) {
                if (request.task.workerPermits().availablePermits() > 0
                        && (best == null || request.before(best, now))) {
                    best = request;
                }
            }
            if (best == null) {
                break;
            }
            int available = best.task.workerPermits().availablePermits();
            int count = Math.min(Math.min(best.wanted, free), share(available, inLine(best.task)));
            // only the budget takes a budgeted task's permits, under this lock, so they are there
            if (!best.task.workerPermits().tryAcquire(count)) {
                break;
            }
            free -= count;
            best.granted = count;
            best.grantedNanos = clock.nanos();
            best.aged = best.rank(now) == AGED;
            waiting.remove(best);
            if (best.resume != null) {
                best.task.stats().roundsWaiting(-1);
                best.done = true;
                resumed.add(best);
            }
        }
        return resumed;
    }

    /** Resumes rounds granted or given up, outside the lock. */
    private static void resume(List<Request> resumed) {
        for (Request request : resumed) {
            if (request.granted > 0) {
                told(request);
            }
            Objects.requireNonNull(request.resume).accept(request.granted);
        }
    }

    /** Tells the task's stats and listener how long a granted round waited; outside the lock, so a listener never holds up the line. */
    private static void told(Request request) {
        Duration waited = Duration.ofNanos(request.grantedNanos - request.arrivedNanos);
        request.task.stats().budgetWaited(waited.toNanos(), request.aged);
        request.task.listener().budgetWaited(request.task.name(), waited, request.aged);
    }

    /** The rounds of {@code task} in line. */
    private int inLine(TaskContext task) {
        int rounds = 0;
        for (Request request : waiting) {
            if (request.task == task) {
                rounds++;
            }
        }
        return rounds;
    }

    /** A round's share of its task's {@code available} workers while {@code rounds} of its rounds, itself too, are in line. */
    private static int share(int available, int rounds) {
        return (available + rounds - 1) / rounds;
    }

    /** One round's place in line for workers. Guarded by the budget's lock. */
    static final class Request {
        private final TaskContext task;
        private final long arrival;
        private final long arrivedNanos;
        private int wanted;
        private @Nullable Instant oldestDue;
        private int granted;
        private long grantedNanos;
        private boolean aged;
        private boolean done;
        /** Set once the round waits without a thread. */
        private @Nullable IntConsumer resume;

        private BooleanSupplier stillWanted = () -> true;

        private Request(TaskContext task, int wanted, long arrival, long arrivedNanos) {
            this.task = task;
            this.wanted = wanted;
            this.arrival = arrival;
            this.arrivedNanos = arrivedNanos;
        }

        /** The task's priority, or {@link #AGED} once the oldest row has been due longer than the task's max-wait. */
        private int rank(Instant now) {
            Duration maxWait = task.definition().rounds().maxWait();
            if (maxWait != null && oldestDue != null && !now.isBefore(oldestDue.plus(maxWait))) {
                return AGED;
            }
            return task.definition().rounds().priority();
        }

        /** Whether this round gets workers before {@code other} at {@code now}. */
        private boolean before(Request other, Instant now) {
            int rank = rank(now);
            int otherRank = other.rank(now);
            if (rank != otherRank) {
                return rank > otherRank;
            }
            if (oldestDue != null && other.oldestDue != null && !oldestDue.equals(other.oldestDue)) {
                return oldestDue.isBefore(other.oldestDue);
            }
            return arrival < other.arrival;
        }
    }
}
