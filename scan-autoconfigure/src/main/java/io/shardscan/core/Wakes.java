package io.shardscan.core;

import io.shardscan.core.spi.WakeChannel;
import java.lang.System.Logger.Level;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The engine's wake-ups: a shard this node holds gets its first tier due now (coalesced in the shard:
 * any number of wake-ups before its round starts make one round); a shard held elsewhere is queued
 * for the {@link WakeChannel}, and one thread publishes the queue, one message per task with every
 * shard queued meanwhile, so a burst of wake-ups becomes a few messages. Thread-safe.
 */
final class Wakes {

    private static final System.Logger log = ScanLogging.getLogger(Wakes.class);

    private final Map<String, TaskRunner> runners;
    private final WakeChannel channel;
    /** Shards to publish, by task; guarded by itself. */
    private final Map<String, BitSet> queued = new LinkedHashMap<>();

    private volatile boolean open;
    /** Between {@link #open()} and {@link #close()}: wake-ups outside it are dropped. */
    private volatile boolean started;

    private final AtomicBoolean droppedLogged = new AtomicBoolean();
    private Thread publisher;

    Wakes(Map<String, TaskRunner> runners, WakeChannel channel) {
        this.runners = runners;
        this.channel = channel;
    }

    /** Wakes {@code shards} of {@code task}, here or through the channel. */
    void wake(String task, Collection<Integer> shards) {
        if (!started) {
            if (droppedLogged.compareAndSet(false, true)) {
                log.log(
                        Level.INFO,
                        "Task " + task + ": a wake-up while the engine is not running was dropped (it starts with"
                                + " the application context's lifecycle, after every @PostConstruct); its rows are"
                                + " picked up by the tier-0 poll. Logged once.");
            }
            return;
        }
        TaskRunner runner = runners.get(task);
        BitSet remote = new BitSet();
        for (int shard : shards) {
            if (!runner.wakeShard(shard)) {
                remote.set(shard);
            }
        }
        if (remote.isEmpty() || channel == WakeChannel.NONE) {
            return;
        }
        synchronized (queued) {
            queued.computeIfAbsent(task, t -> new BitSet()).or(remote);
            queued.notifyAll();
        }
    }

    /** A wake-up from any node: wakes the shards this node holds, ignores the rest. */
    private void received(String task, Collection<Integer> shards) {
        TaskRunner runner = runners.get(task);
        if (runner != null) {
            shards.forEach(runner::wakeShard);
        }
    }

    void open() {
        log.log(Level.INFO, "Shardscan wake-ups: " + channel.description());
        started = true;
        if (channel == WakeChannel.NONE) {
            return;
        }
        open = true;
        channel.open(Set.copyOf(runners.keySet()), this::received);
        publisher = Threads.named("scan-wake-publish-").newThread(this::publishLoop);
        publisher.start();
    }

    void close() {
        started = false;
        if (!open) {
            return;
        }
        open = false;
        synchronized (queued) {
            queued.notifyAll();
        }
        channel.close();
    }

    private void publishLoop() {
        while (open) {
            Map<String, BitSet> batch;
            synchronized (queued) {
                while (open && queued.isEmpty()) {
                    try {
                        queued.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                batch = new LinkedHashMap<>(queued);
                queued.clear();
            }
            // wake-ups queued while this batch is published go out together in the next one
            batch.forEach(
                    (task, shards) -> publish(task, shards.stream().boxed().toList()));
        }
    }

    private void publish(String task, List<Integer> shards) {
        try {
            channel.publish(task, shards);
        } catch (RuntimeException e) {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + task + ": a wake-up of shards " + shards + " was not published; they are"
                            + " scanned at their next tier-0 poll: " + e);
        }
    }
}
