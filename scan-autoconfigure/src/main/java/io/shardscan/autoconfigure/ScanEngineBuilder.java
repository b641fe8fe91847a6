package io.shardscan.autoconfigure;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.RejoinDamping;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.WorkerThreads;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.RangeJob;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The node-wide settings and listener of the engine the auto-configuration builds, as
 * {@link ScanEngineCustomizer}s see them. Not thread-safe: used once, at startup.
 */
public final class ScanEngineBuilder {

    private String nodeId;
    private Duration leaseTtl;
    private Duration renewInterval;
    private Duration memberTimeout;
    private Duration shutdownTimeout;
    private @Nullable Integer maxWorkers;
    private int nodeWeight;
    private Duration rejoinHold;
    private Duration rejoinWindow;
    private ScanListener listener;
    private @Nullable EndpointBans endpointBans;
    private WorkerThreads workerThreads = WorkerThreads.PLATFORM;
    private EndpointDownClassifier endpointDown = EndpointDownClassifier.DEFAULT;

    ScanEngineBuilder(ScanProperties properties, ScanListener listener) {
        String configured = properties.getNodeId();
        this.nodeId = configured == null || configured.isBlank() ? NodeId.generate() : configured;
        this.leaseTtl = properties.getLeaseTtl();
        this.renewInterval = properties.getRenewInterval();
        this.memberTimeout = properties.getMemberTimeout();
        this.shutdownTimeout = properties.getShutdownTimeout();
        this.maxWorkers = properties.getMaxWorkers();
        this.nodeWeight = properties.getNodeWeight();
        this.rejoinHold = properties.getRejoinHold();
        this.rejoinWindow = properties.getRejoinWindow();
        this.listener = listener;
    }

    public String nodeId() {
        return nodeId;
    }

    /** Sets this node's id among the members. */
    public ScanEngineBuilder nodeId(String nodeId) {
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        return this;
    }

    /** Sets how long a lease lives without renewal. */
    public ScanEngineBuilder leaseTtl(Duration leaseTtl) {
        this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl");
        return this;
    }

    /** Sets how often leases are renewed; at most half of the lease TTL. */
    public ScanEngineBuilder renewInterval(Duration renewInterval) {
        this.renewInterval = Objects.requireNonNull(renewInterval, "renewInterval");
        return this;
    }

    /** Sets how long a silent member stays in the live set. */
    public ScanEngineBuilder memberTimeout(Duration memberTimeout) {
        this.memberTimeout = Objects.requireNonNull(memberTimeout, "memberTimeout");
        return this;
    }

    /** Sets how long shutdown waits for running rounds. */
    public ScanEngineBuilder shutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        return this;
    }

    /** Sets the handler threads all tasks of this node share; {@code null} for no node-wide budget. */
    public ScanEngineBuilder maxWorkers(@Nullable Integer maxWorkers) {
        this.maxWorkers = maxWorkers;
        return this;
    }

    /**
     * Sets how long this node holds back after it rejoined a task's members, doubled for each further
     * rejoin within {@code window} and at most that; a zero {@code hold} switches it off.
     */
    public ScanEngineBuilder rejoinHold(Duration hold, Duration window) {
        this.rejoinHold = Objects.requireNonNull(hold, "hold");
        this.rejoinWindow = Objects.requireNonNull(window, "window");
        return this;
    }

    /** Sets this node's weight in every task's assignment, 1 to 100. */
    public ScanEngineBuilder nodeWeight(int nodeWeight) {
        this.nodeWeight = nodeWeight;
        return this;
    }

    public WorkerThreads workerThreads() {
        return workerThreads;
    }

    /**
     * Sets the threads the handlers run on; by default platform threads, or virtual threads with
     * {@code spring.threads.virtual.enabled=true} on Java 21 or later. Each task still runs at most
     * its {@code workers} handlers at once.
     */
    public ScanEngineBuilder workerThreads(WorkerThreads workerThreads) {
        this.workerThreads = Objects.requireNonNull(workerThreads, "workerThreads");
        return this;
    }

    public EndpointDownClassifier endpointDown() {
        return endpointDown;
    }

    /**
     * Sets which handler failures are the receiver's fault, counting towards its blacklist; by default
     * {@link EndpointDownClassifier#DEFAULT} or, with the auto-configuration, that and each
     * {@link EndpointDownClassifier} bean (e.g. {@code DEFAULT.or(e -> e instanceof MyGatewayDown)}).
     */
    public ScanEngineBuilder endpointDown(EndpointDownClassifier endpointDown) {
        this.endpointDown = Objects.requireNonNull(endpointDown, "endpointDown");
        return this;
    }

    public ScanListener listener() {
        return listener;
    }

    /** Replaces the listener, e.g. with one that also calls {@link #listener()}. */
    public ScanEngineBuilder listener(ScanListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Sets where the level-2 endpoint blacklist is shared; unset, in this JVM only. */
    public ScanEngineBuilder endpointBans(EndpointBans endpointBans) {
        this.endpointBans = Objects.requireNonNull(endpointBans, "endpointBans");
        return this;
    }

    /**
     * The settings as they stand.
     *
     * @throws IllegalArgumentException naming the property when a value cannot work
     */
    public EngineSettings settings() {
        return new EngineSettings(
                nodeId,
                leaseTtl,
                renewInterval,
                memberTimeout,
                shutdownTimeout,
                maxWorkers,
                workerThreads,
                endpointDown,
                nodeWeight,
                new RejoinDamping(rejoinHold, rejoinWindow));
    }

    /** Whether the endpoint blacklist lives in the database's own tables. */
    boolean endpointBansInDatabase() {
        return endpointBans instanceof io.shardscan.jdbc.JdbcEndpointBans;
    }

    ScanEngine build(List<ScanEngine.ScanTask> tasks, TaskStore store, ShardCoordinator coordinator, ScanClock clock) {
        return build(tasks, store, coordinator, clock, List.of(), null);
    }

    ScanEngine build(
            List<ScanEngine.ScanTask> tasks,
            TaskStore store,
            ShardCoordinator coordinator,
            ScanClock clock,
            List<RangeJob> ranges,
            @Nullable RangeStores rangeStores) {
        return new ScanEngine(
                tasks,
                store,
                coordinator,
                settings(),
                clock,
                listener,
                endpointBans == null ? new InMemoryEndpointBans(clock) : endpointBans,
                ranges,
                ranges.isEmpty() ? null : rangeStores);
    }
}
