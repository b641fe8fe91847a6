package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.actuate.MeteredEngine;
import io.shardscan.testsupport.Engines;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.yaml.snakeyaml.Yaml;

/**
 * The Prometheus alert rules shipped beside the Grafana dashboard ({@code grafana/shardscan-alerts.yml}) are a
 * rule file Prometheus loads, and read only what a running engine exports: every {@code scan_*} name in their
 * expressions is in a real scrape, and every exact label matcher selects a scraped series, so a renamed meter
 * or tag value fails here. Whether an expression fires when it should is PromQL's business: the rules were
 * checked once with {@code promtool test rules} (see the Grafana section of docs/guides/dashboard.md).
 */
class PrometheusRulesTests {

    private static final Path RULES = Path.of("grafana", "shardscan-alerts.yml");

    @RegisterExtension
    final Engines engines = new Engines();

    @Test
    void everyRuleIsAnAlertWithASeverityASummaryAndADuration() throws IOException {
        List<Map<String, Object>> rules = rules();
        assertThat(rules)
                .extracting(rule -> rule.get("alert"))
                .doesNotHaveDuplicates()
                .contains(
                        "ShardscanTaskStalled",
                        "ShardscanCoordinatorUnreachable",
                        "ShardscanStoreUnreachable",
                        "ShardscanDeadRowsGrowing",
                        "ShardscanLagHigh");
        assertThat(rules).allSatisfy(rule -> {
            assertThat(rule).containsKeys("alert", "expr", "labels", "annotations");
            assertThat(rule.keySet()).isSubsetOf("alert", "expr", "for", "labels", "annotations");
            assertThat((String) rule.get("alert")).matches("Shardscan[A-Z][A-Za-z]+");
            assertThat((String) rule.get("expr")).contains("scan_");
            if (rule.containsKey("for")) {
                assertThat((String) rule.get("for")).matches("\\d+[smh]");
            }
            assertThat(map(rule.get("labels"))).containsOnlyKeys("severity");
            assertThat((String) map(rule.get("labels")).get("severity")).isIn("warning", "critical");
            assertThat(map(rule.get("annotations"))).containsOnlyKeys("summary", "description");
        });
    }

    @Test
    void expressionsReadOnlyWhatARunningEngineExports() throws IOException {
        ScrapedSeries scraped = new ScrapedSeries(MeteredEngine.start(engines));
        for (Map<String, Object> rule : rules()) {
            scraped.assertReadable("alert " + rule.get("alert"), (String) rule.get("expr"));
        }
    }

    /** The rules of every group, as Prometheus reads the file: a map with {@code groups}, each with {@code rules}. */
    private static List<Map<String, Object>> rules() throws IOException {
        Map<String, Object> file;
        try (Reader reader = Files.newBufferedReader(RULES)) {
            file = new Yaml().load(reader);
        }
        assertThat(file).containsOnlyKeys("groups");
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Object group : (List<?>) file.get("groups")) {
            assertThat(map(group)).containsOnlyKeys("name", "rules");
            for (Object rule : (List<?>) map(group).get("rules")) {
                rules.add(map(rule));
            }
        }
        return rules;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
