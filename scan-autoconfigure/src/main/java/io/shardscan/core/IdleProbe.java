package io.shardscan.core;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Checks the idle shards of one task on this node together, so that a node with nothing to do
 * costs the database one statement per first-tier interval, whatever its number of shards and
 * tiers: a tier whose last fetch in a shard came back empty ({@link TierCursor#idle}) is not fetched
 * again; once any tier is due in any idle shard, one {@link TaskStore#dueRequests} asks, for every
 * tier that is due in an idle shard or comes due there within the first tier's interval, which of
 * all the idle shards of that tier have a due row, with the same conditions as the tier's first
 * page. So the slower tiers ride along with the first tier's probe and cost no statement of their
 * own while the first tier is idle too. A tier found with a row is no longer idle and is due at
 * once, also when it was asked early: the row it found is due now. The others rest for the tier's
 * interval, so the idle shards of a tier stay due together. A tier may be asked before its own
 * interval ran out, which costs nothing: whether a failed row is due is decided by its own last
 * failure, a delayed row's by its due time. Busy shards, triggered ones (a wake-up, a new run, a
 * requeue) and those whose last page had rows fetch directly.
 *
 * <p>The tasks of one store on this node ({@link StoreTasks}) ride along with each other's probes
 * the same way: a probe also asks, in the same statement, every other member's idle tiers that come
 * due before the prober's next probe, so several idle tasks on one data source cost about one
 * statement per shortest first-tier interval, not one each. A member is asked only while its
 * {@link #lock} is free, which its own dispatcher holds through each pass; the prober holds it
 * until the answers are written to the member's cursors, then wakes the member's dispatcher. So a
 * probe only ever touches shards that are {@link OwnedShard.State#IDLE}, whose cursors no round
 * and no pass of their own task touches meanwhile.
 */
final class IdleProbe {

    private static final System.Logger log = ScanLogging.getLogger(IdleProbe.class);

    /**
     * Requests one probe asks at most, its own and its riders': a member whose idle tiers would take
     * it past this rides along with another probe, or probes on its own (the JDBC store's statement
     * takes 1 000 branches, one a request).
     */
    static final int MAX_REQUESTS = 1_000;

    private final TaskContext task;
    private final StoreTasks group;
    private final Supplier<? extends Collection<OwnedShard>> owned;
    private final BooleanSupplier startsRounds;
    private final Runnable wake;
    /** Held by the task's own dispatcher through each pass, and by another member's probe asking its shards. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Whether a pass of the task's own found {@link #lock} taken, and waits to be woken. */
    private volatile boolean passWaiting;

    /**
     * @param owned the shards this node holds for the task now
     * @param startsRounds whether the task starts rounds now: a member that does not is not asked
     * @param wake runs a pass of the task's dispatcher, after another member's probe answered its shards
     */
    IdleProbe(
            TaskContext task,
            StoreTasks group,
            Supplier<? extends Collection<OwnedShard>> owned,
            BooleanSupplier startsRounds,
            Runnable wake) {
        this.task = task;
        this.group = group;
        this.owned = owned;
        this.startsRounds = startsRounds;
        this.wake = wake;
    }

    /**
     * Takes the task's shards for a pass of its dispatcher; {@code false} while another member's probe
     * asks them, which wakes the dispatcher once it answered.
     */
    boolean tryLock() {
        // said before trying, so that a prober that unlocks after this try failed always sees it
        passWaiting = true;
        if (lock.tryLock()) {
            passWaiting = false;
            return true;
        }
        return false;
    }

    /**
     * Takes the task's shards for another member's probe: waits a little for a pass of its own, which
     * holds them only briefly (while another member gathers, its own probe waits: see {@link StoreTasks#tryGather}).
     */
    private boolean lockForRide(long deadlineNanos) {
        try {
            return lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** How long a probe waits in all for the members' own passes, each of which holds its shards briefly. */
    private static final Duration RIDE_WAIT = Duration.ofMillis(50);

    /** Joins the probes of the store's tasks: its dispatcher started. */
    void join() {
        group.join(this);
    }

    /** Leaves the probes of the store's tasks: its dispatcher stopped. */
    void leave() {
        group.leave(this);
    }

    /** Wakes the task's dispatcher. */
    void wake() {
        wake.run();
    }

    /** Ends what {@link #tryLock} took. */
    void unlock() {
        lock.unlock();
    }

    /** The idle shards of one tier that a probe asks about. */
    private record Asked(int index, Tier tier, List<OwnedShard> shards) {}

    /** One member's part of a probe: its cursors and requests, in the same order. */
    record Part(IdleProbe member, List<Asked> asked, List<TierCursor> cursors, List<FetchRequest> requests) {

        /** The task the requests are of. */
        TaskDefinition task() {
            return member.task.definition();
        }
    }

    /**
     * When some tier is due in an idle shard of {@code shards}, probes it together with every tier
     * that comes due in an idle shard within the first tier's interval, and with the other members'
     * tiers that come due within it: one statement. The caller holds {@link #tryLock}.
     */
    void run(List<OwnedShard> shards) {
        Instant now = task.clock().now();
        Instant soon = now.plus(task.definition().tiers().get(0).interval());
        List<Asked> asked = asked(shards, now, soon);
        if (asked == null) {
            return;
        }
        if (!group.together()) {
            probe(List.of(prepare(asked)), false);
            return;
        }
        if (!group.tryGather(this)) {
            // another member gathers its riders now, and waits for this pass to take this task along: this
            // dispatcher is woken when it gathered, and asks what it left
            return;
        }
        Part own = prepare(asked);
        List<Part> parts = new ArrayList<>(List.of(own));
        List<IdleProbe> riders = new ArrayList<>();
        try {
            try {
                gather(parts, riders, soon);
            } finally {
                group.gathered();
            }
            if (parts.size() == 1) {
                probe(parts, false);
            } else if (!probe(parts, true)) {
                // the statement of several tables did not answer within the group's bound (a lock on one of
                // them, a slow database): each task asks its own again, apart, the riders on their own threads
                probe(List.of(own), false);
                parts.subList(1, parts.size()).forEach(part -> part.cursors().forEach(cursor -> cursor.retryAt(now)));
            }
        } finally {
            for (IdleProbe rider : riders) {
                rider.lock.unlock();
                if (rider.passWaiting || parts.stream().anyMatch(part -> part.member() == rider)) {
                    // its found tiers get their rounds, or those left get its own probe
                    rider.passWaiting = false;
                    rider.wake.run();
                }
            }
        }
    }

    /** Adds to {@code parts} the idle tiers of the members that come due by {@code soon}, holding each member. */
    private void gather(List<Part> parts, List<IdleProbe> riders, Instant soon) {
        int requests = parts.get(0).requests().size();
        long deadline = System.nanoTime() + RIDE_WAIT.toNanos();
        for (IdleProbe member : group.others(this)) {
            if (requests >= MAX_REQUESTS || !member.lockForRide(deadline)) {
                continue;
            }
            riders.add(member);
            List<Asked> theirs = member.startsRounds.getAsBoolean()
                    ? member.asked(new ArrayList<>(member.owned.get()), null, soon)
                    : null;
            int count = theirs == null ? 0 : requests(theirs);
            if (count > 0 && requests + count <= MAX_REQUESTS) {
                parts.add(member.prepare(theirs));
                requests += count;
            }
        }
    }

    /**
     * The idle tiers to ask: those of {@code shards} that come due by {@code soon}, when one is due at
     * {@code now} or {@code now} is null (a ride along); else null.
     */
    private @Nullable List<Asked> asked(List<OwnedShard> shards, @Nullable Instant now, Instant soon) {
        List<Tier> tiers = task.definition().tiers();
        long nanos = task.clock().nanos();
        List<Asked> asked = new ArrayList<>();
        boolean due = now == null;
        for (int index = 0; index < tiers.size(); index++) {
            List<OwnedShard> idle = new ArrayList<>();
            boolean comesDue = false;
            for (OwnedShard shard : shards) {
                TierCursor cursor = shard.cursor(index);
                if (cursor.idle && shard.idle() && shard.canDispatch(nanos)) {
                    idle.add(shard);
                    due |= now != null && !cursor.nextRunAt.isAfter(now);
                    comesDue |= !cursor.nextRunAt.isAfter(soon);
                }
            }
            if (comesDue) {
                asked.add(new Asked(index, tiers.get(index), idle));
            }
        }
        return due ? asked : null;
    }

    private static int requests(List<Asked> asked) {
        return asked.stream().mapToInt(tier -> tier.shards().size()).sum();
    }

    private Part prepare(List<Asked> asked) {
        EndpointBlacklist endpoints = task.endpoints();
        List<String> excluded = endpoints == null ? List.of() : endpoints.excluded();
        List<TierCursor> cursors = new ArrayList<>();
        List<FetchRequest> requests = new ArrayList<>();
        for (Asked tier : asked) {
            for (OwnedShard shard : tier.shards()) {
                TierCursor cursor = shard.cursor(tier.index());
                cursor.fetching();
                cursors.add(cursor);
                requests.add(task.fetch(shard.shard, tier.tier(), null, Long.MIN_VALUE, null, 1, excluded));
            }
        }
        return new Part(this, asked, cursors, requests);
    }

    /**
     * Asks the parts' requests in one statement and writes the answers to their cursors. Alone, a
     * failure is each part's (logged, asked again in 1 s); {@code together}, through the group's
     * store, bounded shorter, it is only returned.
     *
     * @return whether it was answered
     */
    private boolean probe(List<Part> parts, boolean together) {
        List<Integer> due;
        try {
            due = together
                    ? group.dueRequests(parts)
                    : task.store().dueRequests(task.definition(), parts.get(0).requests());
        } catch (RuntimeException | Error e) {
            if (together) {
                group.apart(task, e);
                return false;
            }
            // an Error too (a class missing from a replaced jar): it must not end the dispatcher's thread
            task.stats().storeReached(!StoreFailure.unreachable(e));
            logFailure(parts.get(0).asked(), e);
            Instant retry = task.clock().now().plusSeconds(1);
            parts.get(0).cursors().forEach(cursor -> cursor.retryAt(retry));
            return false;
        }
        Set<Integer> found = new HashSet<>(due);
        Instant after = task.clock().now();
        int offset = 0;
        for (Part part : parts) {
            int hits = 0;
            for (int position = 0; position < part.cursors().size(); position++) {
                boolean hit = found.contains(offset + position);
                hits += hit ? 1 : 0;
                part.cursors().get(position).probed(hit, after);
            }
            offset += part.cursors().size();
            part.member().task.stats().storeReached(true);
            part.member().task.stats().probed(hits);
        }
        return true;
    }

    /** As a failed round: WARN the first time its kind is seen, then at most once a minute. */
    private void logFailure(List<Asked> asked, Throwable e) {
        long suppressed = task.failures()
                .record("probe: " + FailureLog.kindOf(e), 1, task.clock().nanos());
        String message = "Task " + task.name() + ": the probe of tier"
                + (asked.size() > 1 ? "s " : " ")
                + asked.stream().map(tier -> tier.tier().label()).collect(Collectors.joining(", "))
                + " over "
                + asked.stream()
                        .flatMap(tier -> tier.shards().stream())
                        .distinct()
                        .count()
                + " idle shards failed; they are probed again in 1 s: " + StoreFailure.describe(e);
        if (suppressed >= 0) {
            log.log(
                    Level.WARNING,
                    message + (suppressed > 0 ? "; and " + suppressed + " more probes failed the same way" : ""),
                    e);
        } else {
            log.log(Level.DEBUG, message);
        }
    }
}
