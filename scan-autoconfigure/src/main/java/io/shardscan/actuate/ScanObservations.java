package io.shardscan.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.shardscan.core.ScanListener;
import io.shardscan.core.Tier;
import java.util.Objects;

/**
 * Times the engine's rounds, and optionally its handler calls, through Micrometer's Observation
 * API, so that one instrumentation gives metrics and, where a tracer is set up, spans:
 *
 * <ul>
 *   <li>{@code scan.round} (low cardinality: task, tier, outcome = handled, empty, lost or failed;
 *       high cardinality: shard): one round, fetch to write-back; with Micrometer's meter handler a
 *       timer {@code scan.round} (Prometheus {@code scan_round_seconds}) and a long task timer
 *       {@code scan.round.active};
 *   <li>{@code scan.handler} (task, tier, outcome = done, failed, skipped, dead, timed-out or lost):
 *       one handler call, only when per-row observations are on ({@code scan.observations.rows}),
 *       because a timer sample and, with tracing, a span per row cost more than most handlers.
 * </ul>
 *
 * <p>Thread-safe.
 */
public class ScanObservations implements ScanListener {

    private final ObservationRegistry registry;
    private final boolean rows;

    /**
     * @param registry where the observations go
     * @param rows whether each handler call is observed too
     */
    public ScanObservations(ObservationRegistry registry, boolean rows) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.rows = rows;
    }

    @Override
    public Timing roundStarted(String task, int shard, Tier tier) {
        Observation round = Observation.createNotStarted("scan.round", registry)
                .contextualName("scan round " + task)
                .lowCardinalityKeyValue("task", task)
                .lowCardinalityKeyValue("tier", tier.label())
                .highCardinalityKeyValue("shard", Integer.toString(shard))
                .start();
        return outcome -> round.lowCardinalityKeyValue("outcome", outcome).stop();
    }

    @Override
    public Timing handlerStarted(String task, Tier tier) {
        if (!rows) {
            return Timing.NONE;
        }
        Observation call = Observation.createNotStarted("scan.handler", registry)
                .contextualName("scan handler " + task)
                .lowCardinalityKeyValue("task", task)
                .lowCardinalityKeyValue("tier", tier.label())
                .start();
        return outcome -> call.lowCardinalityKeyValue("outcome", outcome).stop();
    }
}
