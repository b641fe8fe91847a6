package io.shardscan.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Watches this JVM's heap: the peak of heap used sampled every 10 ms (garbage included) and the
 * peak of heap used right after a collection (what the node really keeps live).
 */
public final class HeapWatch implements AutoCloseable {

    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakAfterGc = new AtomicLong();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "heap-watch");
        thread.setDaemon(true);
        return thread;
    });

    /** Starts sampling and listening to collections. */
    public HeapWatch() {
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName)
                .collect(Collectors.toSet());
        sampler.scheduleAtFixedRate(
                () -> peakUsed.accumulateAndGet(
                        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max),
                0,
                10,
                TimeUnit.MILLISECONDS);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(
                        (notification, handback) -> {
                            if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                                    notification.getType())) {
                                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                                        (CompositeData) notification.getUserData());
                                long used = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                                        .filter(e -> heapPools.contains(e.getKey()))
                                        .mapToLong(e -> e.getValue().getUsed())
                                        .sum();
                                peakAfterGc.accumulateAndGet(used, Math::max);
                            }
                        },
                        null,
                        null);
            }
        }
    }

    /** The largest heap used seen by sampling, in MiB. */
    public double peakUsedMb() {
        return peakUsed.get() / 1048576.0;
    }

    /** The largest heap used right after a collection, in MiB (0 before the first collection). */
    public double peakAfterGcMb() {
        return peakAfterGc.get() / 1048576.0;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
