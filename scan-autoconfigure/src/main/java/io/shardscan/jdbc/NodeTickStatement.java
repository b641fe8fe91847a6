package io.shardscan.jdbc;

import io.shardscan.core.spi.NodeCounters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one statement of a node's renew interval where the database has data-modifying {@code WITH}
 * ({@link SqlDialect#updatesInWith}): the renewal of every lease the node holds, the heartbeat of
 * every task asked, and the read of those tasks' members and leases. Its rows are those of a task's
 * tick ({@code b}: this node's heartbeat as written, {@code m}: the other members, {@code r}: a lease
 * renewed, {@code l}: a lease as it was before the statement), each with its task in the eighth
 * column; as in a tick, the reads see the tables as they were before the statement's own changes.
 */
final class NodeTickStatement {

    final String sql;
    final List<Object> args = new ArrayList<>();

    /**
     * @param held task to (shard to epoch) of the leases to renew; may be empty
     * @param ticks task to the counters its heartbeat publishes; not empty
     */
    NodeTickStatement(
            SqlDialect dialect,
            String node,
            Map<String, Map<Integer, Long>> held,
            Duration ttl,
            Duration memberTimeout,
            Map<String, NodeCounters> ticks) {
        StringBuilder sql = new StringBuilder("WITH ");
        boolean renews = held.values().stream().anyMatch(leases -> !leases.isEmpty());
        if (renews) {
            StringBuilder which = new StringBuilder();
            args.addAll(List.of(ttl.toMillis(), node));
            held.forEach((task, leases) -> leases.forEach((shard, epoch) -> {
                which.append(which.length() == 0 ? "" : " OR ").append("(task = ? AND shard = ? AND epoch = ?)");
                args.addAll(List.of(task, shard, epoch));
            }));
            sql.append("renewal AS (UPDATE scan_lease SET expires_at = ")
                    .append(dialect.nowPlusMillis())
                    .append(" WHERE owner = ? AND expires_at > ")
                    .append(dialect.now())
                    .append(" AND (")
                    .append(which)
                    .append(") RETURNING task, shard, expires_at), ");
        }
        StringBuilder counters = new StringBuilder("CASE task");
        ticks.forEach((task, published) -> {
            counters.append(" WHEN ? THEN ?");
            args.addAll(List.of(task, published.encode()));
        });
        String tasks = String.join(", ", ticks.keySet().stream().map(t -> "?").toList());
        sql.append("beat AS (UPDATE scan_member SET heartbeat_at = ")
                .append(dialect.now())
                .append(", counters = ")
                .append(counters)
                .append(" END WHERE node = ? AND task IN (")
                .append(tasks)
                .append(") RETURNING node, heartbeat_at, counters, task)");
        args.add(node);
        args.addAll(ticks.keySet());
        sql.append(" SELECT 'b', node, heartbeat_at, counters, 0, 0, 0, task FROM beat UNION ALL SELECT 'm', node, ")
                .append(dialect.selectNow("heartbeat_at"))
                .append(", counters, 0, 0, CASE WHEN heartbeat_at < ")
                .append(dialect.nowPlusMillis())
                .append(" THEN 1 ELSE 0 END, task FROM scan_member WHERE task IN (")
                .append(tasks)
                .append(") AND node <> ?");
        args.add(-memberTimeout.toMillis());
        args.addAll(ticks.keySet());
        args.add(node);
        if (renews) {
            sql.append(" UNION ALL SELECT 'r', NULL, expires_at, NULL, shard, 0, 0, task FROM renewal");
        }
        sql.append(" UNION ALL SELECT 'l', owner, ")
                .append(dialect.selectNow("expires_at"))
                .append(", NULL, shard, epoch, CASE WHEN expires_at > ")
                .append(dialect.now())
                .append(" THEN 1 ELSE 0 END, task FROM scan_lease WHERE task IN (")
                .append(tasks)
                .append(")");
        args.addAll(ticks.keySet());
        this.sql = sql.toString();
    }
}
