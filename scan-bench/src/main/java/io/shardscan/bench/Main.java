package io.shardscan.bench;

import io.shardscan.testsupport.TestServers;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar scan-bench.jar <scenario> [--rows N] [--nodes K|1,2,4] [--workers W] [--dbscheduler-rows N]
 * [--pg-url URL] [--redis-url URL] [--embedded]}: runs one scenario, prints its table and then its
 * {@code RESULT} line. {@code throughput --nodes 1,2,4} runs Shardscan's nodes as separate JVMs, each a
 * Spring Boot application, once per node count, and prints how its cost scales ({@link ThroughputScaling}).
 */
public final class Main {

    private Main() {}

    /** The scenarios by name. */
    public static Map<String, Scenario> scenarios() {
        Map<String, Scenario> scenarios = new LinkedHashMap<>();
        for (Scenario scenario : List.of(
                new ThroughputScenario(),
                new RangeScenario(),
                new FlatnessScenario(),
                new SkewScenario(),
                new FailoverScenario(),
                new RebalanceScenario(),
                new MemoryScenario(),
                new LatencyScenario(),
                new IdleScenario(),
                new ShardedScenario(),
                new FairnessScenario(),
                new TasksScenario())) {
            scenarios.put(scenario.name(), scenario);
        }
        return scenarios;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(NodeProcess.COMMAND)) {
            NodeProcess.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals(ApplicationNodeProcess.COMMAND)) {
            ApplicationNodeProcess.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("scan-bench: " + e.getMessage());
            System.err.println(
                    "usage: java -jar scan-bench.jar <"
                            + String.join("|", scenarios().keySet())
                            + "> [--rows N] [--nodes K|1,2,4] [--workers W] [--dbscheduler-rows N] [--pg-url URL]"
                            + " [--redis-url URL] [--passes N] [--handler-ms MS] [--xmx SIZE] [--rate N] [--seconds N] [--warmup-probes N] [--dbscheduler-warmup-seconds N] [--transactional true] [--tables N] [--databases N] [--busy N] [--pickups N] [--hold-seconds N] [--due-shards N,N] [--tasks N,N] [--shards N] [--coordinator jdbc|redis] [--embedded]");
            System.exit(2);
            return;
        }
        run(options, System.out);
        System.exit(0);
    }

    /**
     * Runs one scenario, starting embedded servers first when asked.
     *
     * @return the result line, also printed last on {@code out}
     */
    public static ResultLine run(Options options, PrintStream out) throws Exception {
        Scenario scenario = scenarios().get(options.scenario());
        if (scenario == null) {
            throw new IllegalArgumentException("unknown scenario '" + options.scenario() + "'; known: "
                    + scenarios().keySet());
        }
        // --embedded: the test suite's servers, started once per JVM and stopped when it exits
        try (Bench bench = new Bench(
                options,
                options.embedded() ? TestServers.postgresEndpoint().urlWithCredentials() : options.pgUrl(),
                options.embedded() ? TestServers.redisUrl() : options.redisUrl())) {
            ResultLine result = scenario.run(bench, out);
            out.println(result);
            out.flush();
            return result;
        }
    }
}
