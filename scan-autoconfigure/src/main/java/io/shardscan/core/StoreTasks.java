package io.shardscan.core;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tasks on this node that read through one store, and so one data source, whose idle probes
 * and pause reads ask each other's along, in one statement each (see {@link IdleProbe} and
 * {@link EverywherePause}). A task joins when it starts and leaves when it stops. One member gathers its riders
 * at a time, so members due together share one statement. That statement is bounded by
 * {@link #TOGETHER_TIMEOUT}, not the tasks' statement timeout: when it does not answer in time (a
 * lock on one of the tables, a slow database) each task asks its own again apart, and the group's
 * tasks probe apart for {@link #APART_FOR}, so a lock on one task's table delays the others' probes
 * by a second at most. Thread-safe.
 */
final class StoreTasks {

    private static final System.Logger log = ScanLogging.getLogger(StoreTasks.class);

    /** How long a probe of several tasks' tables may run before the tasks ask apart. */
    static final Duration TOGETHER_TIMEOUT = Duration.ofSeconds(1);

    /** How long the tasks probe apart after a probe of several tables did not answer. */
    static final Duration APART_FOR = Duration.ofMinutes(1);

    private final TaskStore together;
    private final ScanClock clock;
    private final CopyOnWriteArrayList<IdleProbe> probes = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<EverywherePause> pauses = new CopyOnWriteArrayList<>();
    private final ReentrantLock pauseReading = new ReentrantLock();
    /** Held while one member gathers its riders. */
    private final ReentrantLock gathering = new ReentrantLock();
    /** Members whose probe came while another gathered, woken when it has. */
    private final Set<IdleProbe> waiting = ConcurrentHashMap.newKeySet();

    private volatile long apartUntilNanos;

    /**
     * @param store the store the members read through, unbounded: the group bounds its own statements by
     *     {@link #TOGETHER_TIMEOUT} (or {@code statementTimeout} when shorter)
     */
    StoreTasks(TaskStore store, Duration statementTimeout, ScanClock clock) {
        this.together =
                store.boundedBy(statementTimeout.compareTo(TOGETHER_TIMEOUT) < 0 ? statementTimeout : TOGETHER_TIMEOUT);
        this.clock = clock;
        this.apartUntilNanos = clock.nanos();
    }

    void join(IdleProbe probe) {
        probes.addIfAbsent(probe);
    }

    void leave(IdleProbe probe) {
        probes.remove(probe);
    }

    void join(EverywherePause pause) {
        pauses.addIfAbsent(pause);
    }

    void leave(EverywherePause pause) {
        pauses.remove(pause);
    }

    /** Held through one task's pause read, so that tasks whose ticks come together read once. */
    ReentrantLock pauseReading() {
        return pauseReading;
    }

    /** The pauses of the tasks but {@code pause}'s, each read along with it. */
    List<EverywherePause> pauses(EverywherePause pause) {
        return pauses.stream().filter(other -> other != pause).toList();
    }

    /** Whether the members ask each other's shards along now: more than one, and not apart. */
    boolean together() {
        return probes.size() > 1 && clock.nanos() - apartUntilNanos >= 0;
    }

    /**
     * Begins {@code probe}'s gathering of riders, unless another member gathers: then {@code probe} is
     * woken when it has ({@link #gathered}), and {@code false}.
     */
    boolean tryGather(IdleProbe probe) {
        // noted before trying, so that a gathering that ends after this try failed always sees it
        waiting.add(probe);
        if (gathering.tryLock()) {
            waiting.remove(probe);
            return true;
        }
        return false;
    }

    /** Ends what {@link #tryGather} began, and wakes the members that came meanwhile. */
    void gathered() {
        gathering.unlock();
        for (IdleProbe member : List.copyOf(waiting)) {
            if (waiting.remove(member)) {
                member.wake();
            }
        }
    }

    /** The members but {@code probe}, in the order they joined, from the one after {@code probe}. */
    List<IdleProbe> others(IdleProbe probe) {
        List<IdleProbe> all = List.copyOf(probes);
        int at = all.indexOf(probe);
        if (at < 0) {
            return all;
        }
        // from the one after, so that when a probe can take only some riders, each member gets its turn
        List<IdleProbe> others = new ArrayList<>(all.subList(at + 1, all.size()));
        others.addAll(all.subList(0, at));
        return others;
    }

    /** One statement for the parts of several tasks, bounded by {@link #TOGETHER_TIMEOUT}. */
    List<Integer> dueRequests(List<IdleProbe.Part> parts) {
        List<TaskDefinition> tasks = new ArrayList<>();
        List<FetchRequest> requests = new ArrayList<>();
        for (IdleProbe.Part part : parts) {
            tasks.addAll(Collections.nCopies(part.requests().size(), part.task()));
            requests.addAll(part.requests());
        }
        return together.dueRequests(tasks, requests);
    }

    /** After a probe of several tables that did not answer: the members probe apart for {@link #APART_FOR}. */
    void apart(TaskContext prober, Throwable failure) {
        apartUntilNanos = clock.nanos() + APART_FOR.toNanos();
        log.log(
                Level.INFO,
                "Task " + prober.name() + ": the probe of the idle shards of " + probes.size() + " tasks on one"
                        + " data source, in one statement, did not answer within " + TOGETHER_TIMEOUT + " ("
                        + StoreFailure.describe(failure) + "); each task asks its own apart for the next "
                        + APART_FOR + ", so a lock on one table does not hold the others' probes");
    }
}
