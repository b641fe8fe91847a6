package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.actuate.MeteredEngine;
import io.shardscan.testsupport.Engines;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shipped Grafana dashboard ({@code grafana/shardscan.json}) queries only what a running engine exports:
 * every {@code scan_*} name in its panels' queries and its variables' is in a real Prometheus scrape of an
 * engine with every kind of task, and every exact label matcher selects a scraped series, so a renamed meter
 * or tag value fails here.
 */
class GrafanaDashboardTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @Test
    void queriesOnlyWhatARunningEngineExports() throws Exception {
        JsonNode dashboard = JsonMapper.builder()
                .build()
                .readTree(Path.of("grafana", "shardscan.json").toFile());
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.put(
                        "panel '" + panel.path("title").asString() + "' "
                                + target.path("refId").asString(),
                        target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.has("definition")) {
                queries.put(
                        "variable " + variable.path("name").asString(),
                        variable.path("definition").asString());
            }
        }
        ScrapedSeries scraped = new ScrapedSeries(MeteredEngine.start(engines));
        Set<String> read = new TreeSet<>();
        queries.forEach((where, query) -> {
            scraped.assertReadable(where, query);
            read.addAll(ScrapedSeries.meters(query));
        });
        assertThat(read).hasSizeGreaterThan(15);
        assertThat(dashboard.path("uid").asString()).isEqualTo("shardscan");
    }

    /** The gauges an operator alerts on have panels of their own. */
    @Test
    void showsTheLagAndReachabilityGauges() throws Exception {
        String dashboard = Files.readString(Path.of("grafana", "shardscan.json"));
        assertThat(dashboard)
                .contains(
                        "scan_backlog_oldest_age_seconds",
                        "scan_coordinator_reachable",
                        "scan_store_reachable",
                        "scan_statement_running_seconds");
    }
}
