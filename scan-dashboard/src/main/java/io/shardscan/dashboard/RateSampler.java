package io.shardscan.dashboard;

import io.shardscan.actuate.Periodic;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Samples, every {@code scan.dashboard.rate-sample}, the processed counter every member of every task
 * published with its last heartbeat (this node's own totals for a member that published none, such as
 * under the static coordinator) into the {@link RateHistory}. Runs no query: the members are those of
 * the last lease tick. Thread-safe.
 */
final class RateSampler extends Periodic {

    private final ScanEngine engine;
    private final RateHistory history;

    RateSampler(ScanEngine engine, RateHistory history, Duration every) {
        super("scan-dashboard-rates", "scan.dashboard.rate-sample", every, "5s");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.history = Objects.requireNonNull(history, "history");
    }

    /** Takes one sample of every task now. */
    void sample() {
        long now = System.nanoTime();
        for (String name : engine.taskNames()) {
            TaskView task = engine.task(name);
            List<Member> members = task.members();
            for (Member member : members) {
                NodeCounters counters = member.counters();
                if (counters != null) {
                    history.record(name, member.node(), counters.processed(), now);
                } else if (member.node().equals(engine.nodeId())) {
                    history.record(name, member.node(), task.stats().processed(), now);
                }
            }
            if (members.isEmpty()) {
                history.record(name, engine.nodeId(), task.stats().processed(), now);
            } else {
                history.retain(name, members.stream().map(Member::node).toList());
            }
        }
    }

    @Override
    protected void runOnce() {
        sample();
    }
}
