package io.shardscan.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/** Configuration of the scan engine and its tasks, under {@code scan.*}. */
@ConfigurationProperties("scan")
public class ScanProperties {

    /** Whether to start the scan engine. */
    private boolean enabled = true;

    /** This node's id among the members; defaults to host name, process id and 4 random hex digits. */
    private @Nullable String nodeId;

    /** Which coordinator hands out shard leases. */
    private Coordinator coordinator = Coordinator.AUTO;

    /** This node's index among scan.node-count nodes in static mode, from 0. */
    private @Nullable Integer nodeIndex;

    /** The number of nodes in static mode; setting it turns static mode on under coordinator auto. */
    private @Nullable Integer nodeCount;

    /** How long a shard lease lives without renewal. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration leaseTtl = Duration.ofSeconds(6);

    /** How often leases are renewed and members heartbeat; at most half of lease-ttl. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration renewInterval = Duration.ofSeconds(2);

    /** How long a silent member stays in the live set. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration memberTimeout = Duration.ofSeconds(6);

    /** How long shutdown waits for running rounds before releasing leases. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /** The handler threads all tasks of this node share, each task within its own workers. */
    private @Nullable Integer maxWorkers = 200;

    /**
     * This node's weight in every task's assignment, 1 to 100: a node of weight 2 takes twice the
     * shards of a node of weight 1, e.g. for a bigger server.
     */
    private int nodeWeight = 1;

    /**
     * How long a node that dropped out of the members and came back holds back before it takes shards
     * from the others, doubled for each further rejoin within rejoin-window; 0 switches it off.
     */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration rejoinHold = Duration.ofSeconds(30);

    /** How far back a node's rejoins count towards a longer hold; also the longest hold. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration rejoinWindow = Duration.ofMinutes(10);

    /** This node's tags, e.g. [big, reports]: a task with scan.tasks.X.node-tags runs only on nodes that have them all. */
    private List<String> nodeTags = new ArrayList<>();

    /** How often the scan endpoint's background thread recounts every task's backlog. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration backlogRefresh = Duration.ofSeconds(10);

    /** Settings of the JDBC coordinator and store. */
    private final Jdbc jdbc = new Jdbc();

    /** Settings of the scan actuator endpoint. */
    private final Endpoint endpoint = new Endpoint();

    private final Redis redis = new Redis();
    private final Observations observations = new Observations();

    /** The tasks by name. */
    private Map<String, TaskProperties> tasks = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getNodeId() {
        return nodeId;
    }

    public void setNodeId(@Nullable String nodeId) {
        this.nodeId = nodeId;
    }

    public Coordinator getCoordinator() {
        return coordinator;
    }

    public void setCoordinator(Coordinator coordinator) {
        this.coordinator = coordinator;
    }

    public @Nullable Integer getNodeIndex() {
        return nodeIndex;
    }

    public void setNodeIndex(@Nullable Integer nodeIndex) {
        this.nodeIndex = nodeIndex;
    }

    public @Nullable Integer getNodeCount() {
        return nodeCount;
    }

    public void setNodeCount(@Nullable Integer nodeCount) {
        this.nodeCount = nodeCount;
    }

    public Duration getLeaseTtl() {
        return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public Duration getRenewInterval() {
        return renewInterval;
    }

    public void setRenewInterval(Duration renewInterval) {
        this.renewInterval = renewInterval;
    }

    public Duration getMemberTimeout() {
        return memberTimeout;
    }

    public void setMemberTimeout(Duration memberTimeout) {
        this.memberTimeout = memberTimeout;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public @Nullable Integer getMaxWorkers() {
        return maxWorkers;
    }

    public void setMaxWorkers(@Nullable Integer maxWorkers) {
        this.maxWorkers = maxWorkers;
    }

    public int getNodeWeight() {
        return nodeWeight;
    }

    public List<String> getNodeTags() {
        return nodeTags;
    }

    public void setNodeTags(List<String> nodeTags) {
        this.nodeTags = nodeTags;
    }

    public void setNodeWeight(int nodeWeight) {
        this.nodeWeight = nodeWeight;
    }

    public Duration getRejoinHold() {
        return rejoinHold;
    }

    public void setRejoinHold(Duration rejoinHold) {
        this.rejoinHold = rejoinHold;
    }

    public Duration getRejoinWindow() {
        return rejoinWindow;
    }

    public void setRejoinWindow(Duration rejoinWindow) {
        this.rejoinWindow = rejoinWindow;
    }

    public Duration getBacklogRefresh() {
        return backlogRefresh;
    }

    public void setBacklogRefresh(Duration backlogRefresh) {
        this.backlogRefresh = backlogRefresh;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public Observations getObservations() {
        return observations;
    }

    public Redis getRedis() {
        return redis;
    }

    public Map<String, TaskProperties> getTasks() {
        return tasks;
    }

    public void setTasks(Map<String, TaskProperties> tasks) {
        this.tasks = tasks;
    }

    /** Which coordinator hands out shard leases. */
    public enum Coordinator {
        /**
         * Static mode when scan.node-count is set, else Redis when a Redis connection is configured (a
         * spring.data.redis host, url, cluster, sentinel or master-replica, or connection details such as a
         * service connection), else JDBC.
         */
        AUTO,
        /**
         * Leases in Redis at the application's Redis connection details, on a Lettuce connection of its own
         * whose calls time out after a third of the lease TTL.
         */
        REDIS,
        /** Leases in tables of the application's database. */
        JDBC,
        /** Shards split by scan.node-index and scan.node-count, with no coordinator traffic. */
        STATIC
    }

    /** Settings of the JDBC coordinator and store. */
    public static class Jdbc {

        /** When to create the lease, member and fence tables: embedded databases only, always or never. */
        private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

        private final Flyway flyway = new Flyway();

        public DatabaseInitializationMode getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Flyway getFlyway() {
            return flyway;
        }

        /** Settings of Shardscan's own Flyway migration. */
        public static class Flyway {

            /**
             * Whether Flyway creates and upgrades Shardscan's tables, after the application's own migrations and in
             * a history table of their own; scan.jdbc.initialize-schema then runs nothing.
             */
            private boolean enabled = false;

            /** The history table of Shardscan's migrations, apart from the application's, whose versions it never meets. */
            private String table = "scan_schema_history";

            public boolean isEnabled() {
                return enabled;
            }

            public void setEnabled(boolean enabled) {
                this.enabled = enabled;
            }

            public String getTable() {
                return table;
            }

            public void setTable(String table) {
                this.table = table;
            }
        }
    }

    /** Settings of the scan actuator endpoint. */
    public static class Endpoint {

        /** Whether the scan endpoint accepts pause, resume, trigger and requeue-dead. */
        private boolean writeEnabled = false;

        public boolean isWriteEnabled() {
            return writeEnabled;
        }

        public void setWriteEnabled(boolean writeEnabled) {
            this.writeEnabled = writeEnabled;
        }
    }

    /** Settings of the Redis coordinator. */
    public static class Redis {

        /**
         * What the Redis keys of every task start with (scan:{namespace/task}:...); empty for scan:{task}:...
         * Default: spring.application.name and the database's URL, so applications on other databases that share
         * the Redis and a task name stay apart. Every node of one application must have the same.
         */
        private @Nullable String namespace;

        public @Nullable String getNamespace() {
            return namespace;
        }

        public void setNamespace(@Nullable String namespace) {
            this.namespace = namespace;
        }
    }

    /** Settings of the engine's Micrometer observations. */
    public static class Observations {

        /** Whether each handler call is observed (scan.handler), not only each round (scan.round). */
        private boolean rows = false;

        public boolean isRows() {
            return rows;
        }

        public void setRows(boolean rows) {
            this.rows = rows;
        }
    }
}
