package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shipped Grafana dashboard queries only meters the project exports: every {@code scan_*} name in
 * its queries (without the {@code _sum}/{@code _count} of a timer) is a row of the generated metrics
 * reference ({@code docs/reference/metrics.md}), which ScanMetricsPrometheusTests renders from a real
 * registry and checks against a scrape.
 */
class GrafanaDashboardTests {

    private static final Pattern METER = Pattern.compile("\\bscan_[a-z_]+");

    @Test
    void queriesOnlyMetersTheMetricsReferenceDocuments() throws Exception {
        JsonNode dashboard = JsonMapper.builder()
                .build()
                .readTree(Path.of("grafana", "shardscan.json").toFile());
        Set<String> queried = new TreeSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                Matcher meter = METER.matcher(target.path("expr").asString());
                while (meter.find()) {
                    queried.add(meter.group().replaceAll("_(sum|count)$", ""));
                }
            }
        }
        String reference = Files.readString(Path.of("..", "docs", "reference", "metrics.md"));
        assertThat(queried).hasSizeGreaterThan(15);
        assertThat(queried).allSatisfy(name -> assertThat(reference)
                .as("docs/reference/metrics.md lists %s", name)
                .contains("| `" + name + "` |"));
        assertThat(dashboard.path("uid").asString()).isEqualTo("shardscan");
    }
}
