package io.shardscan.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line: {@code <scenario> [--rows N] [--nodes K|K,K,..] [--workers W] [--dbscheduler-rows N]
 * [--pg-url URL] [--redis-url URL] [--embedded]}. Scenario-specific defaults apply where an option is absent.
 */
public final class Options {

    /** The machine's PostgreSQL, database {@code test}, user {@code postgres}. */
    public static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    /** The machine's Redis. */
    public static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

    private final String scenario;
    private final Map<String, String> values;
    private final boolean embedded;

    private Options(String scenario, Map<String, String> values, boolean embedded) {
        this.scenario = scenario;
        this.values = values;
        this.embedded = embedded;
    }

    /**
     * Parses the arguments.
     *
     * @throws IllegalArgumentException for an unknown or incomplete option
     */
    public static Options parse(String... args) {
        if (args.length == 0 || args[0].startsWith("--")) {
            throw new IllegalArgumentException("name a scenario first");
        }
        Map<String, String> values = new LinkedHashMap<>();
        boolean embedded = false;
        List<String> known = List.of(
                "rows",
                "nodes",
                "workers",
                "dbscheduler-rows",
                "pg-url",
                "redis-url",
                "handler-ms",
                "xmx",
                "passes",
                "rate",
                "seconds",
                "warmup-probes",
                "dbscheduler-warmup-seconds",
                "transactional",
                "tables",
                "databases",
                "busy",
                "pickups",
                "hold-seconds",
                "due-shards",
                "tasks",
                "shards",
                "coordinator");
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--embedded")) {
                embedded = true;
                continue;
            }
            String name = arg.startsWith("--") ? arg.substring(2) : "";
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            }
            if (!known.contains(name) || value == null) {
                throw new IllegalArgumentException(
                        "unknown or incomplete option '" + arg + "'; known: --" + known + " and --embedded");
            }
            values.put(name, value);
        }
        return new Options(args[0], values, embedded);
    }

    public String scenario() {
        return scenario;
    }

    public boolean embedded() {
        return embedded;
    }

    /** An integer option, or {@code fallback}; underscores are allowed ({@code 500_000}). */
    public int intValue(String name, int fallback) {
        String value = values.get(name);
        return value == null ? fallback : Integer.parseInt(value.replace("_", ""));
    }

    /**
     * A comma-separated list of integers ({@code 1,2,4}), or {@code fallback} alone; underscores are allowed.
     *
     * @return one value for a single number
     */
    public int[] intValues(String name, int fallback) {
        String value = values.get(name);
        if (value == null) {
            return new int[] {fallback};
        }
        return Arrays.stream(value.split(","))
                .mapToInt(v -> Integer.parseInt(v.trim().replace("_", "")))
                .toArray();
    }

    public String pgUrl() {
        return values.getOrDefault("pg-url", DEFAULT_PG_URL);
    }

    public String redisUrl() {
        return values.getOrDefault("redis-url", DEFAULT_REDIS_URL);
    }

    /** A string option, or {@code fallback}. */
    public String value(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** The options as they would be typed, with the servers replaced, for child processes and logs. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        values.forEach((k, v) -> out.add("--" + k + "=" + v));
        return out;
    }
}
