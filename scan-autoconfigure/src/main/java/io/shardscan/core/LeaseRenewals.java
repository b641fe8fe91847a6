package io.shardscan.core;

import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The lease renewals of every task of one node: one thread that, every renew interval, renews the
 * leases all tasks hold in one {@link ShardCoordinator#renewAllAndTick}. Keeping a lease therefore waits
 * neither for the task's lease tick (membership, claims and handovers, which also read the task's
 * own tables) nor for other tasks, and costs one coordinator call per node however many tasks it
 * runs: 200 tasks each renewing on its own tick through a 10-connection pool kept losing and
 * retaking their leases. The same call carries the heartbeat and the reads of each settled task's
 * next tick ({@link TickRider}) where the coordinator can answer them there, so that a settled node
 * costs it one call per renew interval, not one per task more. A renewal that hangs shows after
 * {@code scan.lease-ttl} through {@link #waitingNanos}. Thread-safe.
 */
final class LeaseRenewals {

    private static final System.Logger log = ScanLogging.getLogger(LeaseRenewals.class);
    private static final long NOT_WAITING = Long.MIN_VALUE;

    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final ScanClock clock;
    private final List<LeaseKeeper> keepers = new CopyOnWriteArrayList<>();
    private final List<TickRider> riders = new CopyOnWriteArrayList<>();
    private final ScheduledThreadPoolExecutor thread;
    /** When the running renewal called the coordinator; {@link #NOT_WAITING} between renewals. */
    private volatile long sentAt = NOT_WAITING;

    LeaseRenewals(ShardCoordinator coordinator, EngineSettings settings, ScanClock clock) {
        this.coordinator = coordinator;
        this.settings = settings;
        this.clock = clock;
        this.thread = new ScheduledThreadPoolExecutor(1, Threads.named("scan-lease-renew-"));
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * A task whose lease tick may ride along with the renewals. Called on the renewal thread; the
     * task's tick itself runs on its own control thread.
     */
    interface TickRider {

        String task();

        /**
         * The counters the heartbeat of the task's next tick publishes, when that tick may ride along
         * with this renewal; {@code null} when the task ticks on its own.
         */
        @Nullable
        NodeCounters wantsTick();

        /**
         * What the renewal read for the task's tick; {@code null} when the coordinator answered none, or
         * the call failed: the task ticks on its own.
         */
        void ticked(ShardCoordinator.@Nullable Tick read);
    }

    /** Renews the leases of {@code keeper} from the next renewal on. */
    void add(LeaseKeeper keeper) {
        keepers.add(keeper);
    }

    /** Asks {@code rider} at every renewal from the next on whether its next tick rides along. */
    void add(TickRider rider) {
        riders.add(rider);
    }

    void start() {
        long every = settings.renewInterval().toMillis();
        thread.scheduleAtFixedRate(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    /** Ends the renewals, interrupting one that waits for the coordinator. */
    void stop() {
        thread.shutdownNow();
    }

    /** How long the running renewal has waited for the coordinator; 0 when none runs. */
    long waitingNanos() {
        long sent = sentAt;
        return sent == NOT_WAITING ? 0 : Math.max(0, clock.nanos() - sent);
    }

    private void renew() {
        // a scheduled task that threw runs no more: the leases would lapse
        try {
            renewOnce();
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "A lease renewal of node " + settings.nodeId() + " failed: " + e, e);
        }
        for (LeaseKeeper keeper : keepers) {
            try {
                keeper.watch();
            } catch (RuntimeException e) {
                log.log(
                        Level.WARNING,
                        "Task " + keeper.task() + ": checking its leases and statements failed: " + e,
                        e);
            }
        }
    }

    private void renewOnce() {
        Map<LeaseKeeper, Map<Integer, OwnedShard>> asked = new HashMap<>();
        Map<String, Map<Integer, Long>> held = new HashMap<>();
        for (LeaseKeeper keeper : keepers) {
            Map<Integer, OwnedShard> shards = keeper.renewable();
            if (!shards.isEmpty()) {
                asked.put(keeper, shards);
                Map<Integer, Long> epochs = new HashMap<>();
                shards.forEach((shard, owned) -> epochs.put(shard, owned.leaseEpoch));
                held.put(keeper.task(), epochs);
            }
        }
        Map<String, NodeCounters> ticks = new HashMap<>();
        List<TickRider> riding = new ArrayList<>();
        for (TickRider rider : riders) {
            NodeCounters counters = rider.wantsTick();
            if (counters != null) {
                ticks.put(rider.task(), counters);
                riding.add(rider);
            }
        }
        if (held.isEmpty() && ticks.isEmpty()) {
            return;
        }
        long sent = clock.nanos();
        ShardCoordinator.NodeTick answer;
        sentAt = sent;
        try {
            answer = coordinator.renewAllAndTick(
                    settings.nodeId(), held, settings.leaseTtl(), settings.memberTimeout(), ticks);
        } catch (RuntimeException e) {
            asked.keySet().forEach(keeper -> keeper.renewalFailed(e.toString()));
            riding.forEach(rider -> rider.ticked(null));
            return;
        } finally {
            sentAt = NOT_WAITING;
        }
        Map<String, List<Integer>> renewed = answer.renewed();
        asked.forEach((keeper, shards) -> keeper.renewed(shards, renewed.getOrDefault(keeper.task(), List.of()), sent));
        riding.forEach(rider -> rider.ticked(answer.ticks().get(rider.task())));
    }
}
