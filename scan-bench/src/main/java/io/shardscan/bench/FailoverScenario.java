package io.shardscan.bench;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Three node processes on 60 000 rows with 2 ms handlers; one is killed with SIGKILL mid-way. Measures
 * the seconds until every shard it held has a live new owner, and the rows not done after the run.
 */
final class FailoverScenario implements Scenario {

    private static final String TASK = "bench-failover";

    @Override
    public String name() {
        return "failover";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 60_000);
        int nodeCount = bench.options().intValue("nodes", 3);
        int handlerMs = bench.options().intValue("handler-ms", 2);
        Pg pg = bench.pg(2);
        out.printf("failover: %,d rows, %d node processes, %d ms per row%n", rows, nodeCount, handlerMs);
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        bench.clearRedis(TASK);
        ShardCoordinator coordinator = new RedisShardCoordinator(bench.redis());
        try (Nodes nodes = new Nodes()) {
            for (int i = 0; i < nodeCount; i++) {
                nodes.start(
                        "fail-" + i,
                        "256m",
                        List.of(bench.pgUrl(), bench.redisUrl(), TASK, "8", Integer.toString(handlerMs)));
            }
            nodes.awaitReady(Duration.ofSeconds(60));
            double balancedAfter = Await.seconds(Await.until(
                    "nodes balanced",
                    Duration.ofSeconds(60),
                    Duration.ofMillis(50),
                    () -> Leases.balanced(Leases.owners(coordinator, TASK), nodes.ids(), Pg.SHARDS)));
            Await.until(
                    "10% of rows done",
                    Duration.ofSeconds(120), Duration.ofMillis(100), () -> pg.count("status = 1") >= rows / 10);

            String victim = nodes.ids().get(1);
            Set<Integer> victimShards = new TreeSet<>();
            Leases.owners(coordinator, TASK).forEach((shard, owner) -> {
                if (owner.equals(victim)) {
                    victimShards.add(shard);
                }
            });
            long doneAtKill = pg.count("status = 1");
            long killedAt = System.nanoTime();
            nodes.kill(victim);
            Await.until(
                    "the victim's shards to have new owners", Duration.ofSeconds(120), Duration.ofMillis(20), () -> {
                        Map<Integer, String> owners = Leases.owners(coordinator, TASK);
                        return victimShards.stream()
                                .allMatch(s ->
                                        owners.get(s) != null && !owners.get(s).equals(victim));
                    });
            double failover = Await.seconds(System.nanoTime() - killedAt);
            out.printf(
                    "  killed %s holding %d shards with %,d rows done; owned again after %.2f s%n",
                    victim, victimShards.size(), doneAtKill, failover);
            boolean finished = true;
            try {
                Await.until(
                        "every row done",
                        Duration.ofMinutes(10),
                        Duration.ofMillis(200),
                        () -> pg.count("status = 0") == 0);
            } catch (java.util.concurrent.TimeoutException e) {
                finished = false;
            }
            double total = Await.seconds(System.nanoTime() - killedAt);
            long lost = pg.count("status <> 1");
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
            new Table(
                            "failover: SIGKILL of one of " + nodeCount + " node processes (lease TTL "
                                    + Bench.LEASE_TTL.toSeconds() + " s, renew " + Bench.RENEW_INTERVAL.toSeconds()
                                    + " s)",
                            "victim",
                            "shards held",
                            "rows done at kill",
                            "failover s",
                            "target s",
                            "all done after kill s",
                            "rows lost")
                    .row(
                            victim,
                            victimShards.size(),
                            doneAtKill,
                            failover,
                            Bench.LEASE_TTL.toMillis() * 1.5 / 1000,
                            finished ? total : Double.NaN,
                            lost)
                    .note("nodes balanced " + String.format("%.2f", balancedAfter) + " s after all printed READY")
                    .note("rows lost = rows not done (status <> 1) once the survivors drained the table")
                    .print(out);
            return new ResultLine(name())
                    .put("rows", rows)
                    .put("nodes", nodeCount)
                    .put("victim_shards", victimShards.size())
                    .put("failover_seconds", failover)
                    .put("lease_ttl_seconds", Bench.LEASE_TTL.toSeconds())
                    .put("rows_lost", lost);
        }
    }
}
