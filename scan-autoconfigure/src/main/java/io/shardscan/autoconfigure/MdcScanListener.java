package io.shardscan.autoconfigure;

import io.shardscan.core.ScanListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * Puts {@code scan.task}, {@code scan.shard} and {@code scan.epoch} in the SLF4J MDC while the
 * engine runs a round or a lane, so that every log line of it (the engine's own, through the
 * JUL bridge, and the handler's) says which task, shard and lease it belongs to. The previous
 * values come back afterwards, as pooled threads are shared. Thread-safe.
 */
public class MdcScanListener implements ScanListener {

    /** The MDC key of the task name. */
    public static final String TASK = "scan.task";

    /** The MDC key of the shard number. */
    public static final String SHARD = "scan.shard";

    /** The MDC key of the lease epoch. */
    public static final String EPOCH = "scan.epoch";

    @Override
    public Runnable around(String task, int shard, long epoch, Runnable work) {
        return () -> {
            String previousTask = MDC.get(TASK);
            String previousShard = MDC.get(SHARD);
            String previousEpoch = MDC.get(EPOCH);
            MDC.put(TASK, task);
            MDC.put(SHARD, Integer.toString(shard));
            MDC.put(EPOCH, Long.toString(epoch));
            try {
                work.run();
            } finally {
                restore(TASK, previousTask);
                restore(SHARD, previousShard);
                restore(EPOCH, previousEpoch);
            }
        };
    }

    private static void restore(String key, @Nullable String previous) {
        if (previous == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, previous);
        }
    }
}
