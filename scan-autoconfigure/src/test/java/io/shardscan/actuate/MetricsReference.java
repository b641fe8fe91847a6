package io.shardscan.actuate;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code docs/reference/metrics.md}: the {@code scan.*} meters of a registry, one row per name, with the name
 * a Prometheus scrape gives it (what a PromQL query types).
 */
final class MetricsReference {

    private MetricsReference() {}

    static String render(MeterRegistry registry) {
        Map<String, Row> rows = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            if (id.getName().startsWith("scan.")) {
                rows.computeIfAbsent(id.getName(), name -> new Row(registry, id))
                        .add(id);
            }
        }
        StringBuilder out = new StringBuilder()
                .append("# Metrics reference\n\n")
                .append("Every meter Shardscan registers, with its type, base unit, tag keys and description as a"
                        + " Prometheus registry has them. Back to the [README](../../README.md).\n\n")
                .append("Taken from an engine with every kind of task (an endpoint column, an `until-empty` run,"
                        + " a range task) and `scan.max-workers` set, after it handled a row, with"
                        + " `scan.observations.rows=true`: a meter of a kind of task is registered only for such a"
                        + " task. A meter without a description is a timer or long task timer of an observation"
                        + " (`scan.round`, `scan.handler`), which Micrometer's observation handler registers. The"
                        + " [operating guide](../guides/operating.md#health-metrics-logs) explains each meter with"
                        + " its tag values. No tag carries a row id.\n\n")
                .append("| Prometheus name | Micrometer name | type | base unit | tags | description |\n")
                .append("|---|---|---|---|---|---|\n");
        rows.values().forEach(row -> out.append(row.markdown()));
        return out.toString();
    }

    /** What the meters of one name have: their type, unit and description, and every tag key any of them has. */
    private static final class Row {

        private final String prometheusName;
        private final Meter.Id id;
        private final Set<String> tagKeys = new TreeSet<>();

        Row(MeterRegistry registry, Meter.Id id) {
            this.id = id;
            String name = registry.config().namingConvention().name(id.getName(), id.getType(), id.getBaseUnit());
            // the Prometheus client adds a counter's _total when it writes a scrape, not the naming convention
            this.prometheusName = id.getType() == Meter.Type.COUNTER ? name + "_total" : name;
        }

        void add(Meter.Id meter) {
            if (meter.getType() != id.getType() || !Objects.equals(meter.getBaseUnit(), id.getBaseUnit())) {
                throw new IllegalStateException("meters named " + id.getName() + " differ: " + id + ", " + meter);
            }
            meter.getTags().stream().map(Tag::getKey).forEach(tagKeys::add);
        }

        String markdown() {
            String description = id.getDescription();
            return "| `" + prometheusName + "` | `" + id.getName() + "` | "
                    + id.getType().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " | "
                    + (id.getBaseUnit() == null ? "" : id.getBaseUnit()) + " | "
                    + String.join(", ", tagKeys) + " | "
                    + (description == null ? "" : description.replace("|", "\\|")) + " |\n";
        }
    }
}
