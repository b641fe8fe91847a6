package io.shardscan.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.Tier;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

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
 * <p>Each handler call runs in a scope: its own {@code scan.handler} observation's with per-row
 * observations on, else its round's, made current on the worker thread. So the handler's own
 * observations (JDBC, HTTP clients) are children of the round's span, and its log lines carry the
 * trace id where the tracer puts it in the MDC. An exception that ended a call or a round is recorded
 * on its observation ({@link Observation#error}), which a tracer marks on the span and the meter
 * handler tags as {@code error}.
 *
 * <p>Thread-safe.
 */
public class ScanObservations implements ScanListener {

    private final ObservationRegistry registry;
    private final boolean rows;
    /** The running round of each shard (task and shard), the parent of its handler calls: one at a time. */
    private final Map<String, Observation> rounds = new ConcurrentHashMap<>();

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
        String key = task + '\n' + shard;
        rounds.put(key, round);
        return Timing.of((outcome, error) -> {
            rounds.remove(key, round);
            end(round, outcome, error);
        });
    }

    @Override
    public Timing handlerStarted(String task, Tier tier) {
        return handlerStarted(task, -1, tier);
    }

    @Override
    public Timing handlerStarted(String task, int shard, Tier tier) {
        Observation round = rounds.get(task + '\n' + shard);
        if (!rows) {
            if (round == null) {
                return Timing.NONE;
            }
            Observation.Scope inRound = round.openScope();
            return outcome -> inRound.close();
        }
        Observation call = Observation.createNotStarted("scan.handler", registry)
                .contextualName("scan handler " + task)
                .lowCardinalityKeyValue("task", task)
                .lowCardinalityKeyValue("tier", tier.label())
                .parentObservation(round)
                .start();
        Observation.Scope scope = call.openScope();
        return Timing.of((outcome, error) -> {
            scope.close();
            end(call, outcome, error);
        });
    }

    private static void end(Observation observation, String outcome, @Nullable Throwable error) {
        if (error != null) {
            observation.error(error);
        }
        observation.lowCardinalityKeyValue("outcome", outcome).stop();
    }
}
