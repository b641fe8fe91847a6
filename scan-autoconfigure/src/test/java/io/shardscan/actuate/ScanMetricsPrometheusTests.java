package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.GeneratedDoc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The names a PromQL user types: a real Prometheus scrape of the meters of an engine on H2, against
 * the Prometheus names in the meter tables of the docs. {@code docs/reference/metrics.md} is generated from
 * that engine's registry ({@code -Dscan.docs.write=true} rewrites it); the operating guide's table is written
 * by hand.
 */
class ScanMetricsPrometheusTests {

    /**
     * A Prometheus name in the first column of a meter table of the docs, e.g. {@code `scan_rows_total`},
     * and its type (third column): a gauge in seconds is one sample, a timer three.
     */
    private static final Pattern METER_ROW =
            Pattern.compile("^\\| `(scan_[a-z_]+)` \\| [^|]+ \\| ([^|]+) \\|", Pattern.MULTILINE);

    private static final GeneratedDoc REFERENCE =
            new GeneratedDoc("docs/reference/metrics.md", ScanMetricsPrometheusTests.class.getSimpleName());

    @RegisterExtension
    final Engines engines = new Engines();

    @Test
    void prometheusNamesDoNotDoubleTheirUnit() {
        assertThat(scrapedNames())
                .containsExactlyInAnyOrder(
                        "scan_rows_total",
                        "scan_backlog_rows",
                        "scan_backlog_oldest_age_seconds",
                        "scan_shards_owned",
                        "scan_coordinator_reachable",
                        "scan_store_reachable",
                        "scan_statement_running_seconds",
                        "scan_shards_conflict",
                        "scan_shards_holding_back",
                        "scan_lease_lost_total",
                        "scan_latch_timeouts_total",
                        "scan_handler_timeouts_total",
                        "scan_handlers_abandoned",
                        "scan_writebacks_refused_total",
                        "scan_fence_foreign_total",
                        "scan_keys_waiting",
                        "scan_backlog_unfetchable_rows",
                        "scan_archived_rows_total",
                        "scan_workers_held",
                        // registered only with scan.max-workers
                        "scan_budget_wait_seconds_count",
                        "scan_budget_wait_seconds_sum",
                        "scan_budget_wait_seconds_max",
                        // registered only for a task with an endpoint column
                        "scan_endpoint_banned",
                        "scan_endpoint_trips_total",
                        // registered only for a task that keeps runs
                        "scan_run_done",
                        "scan_run_id",
                        // registered only for a range task
                        "scan_range_processed",
                        "scan_range_failed",
                        "scan_range_percent",
                        "scan_range_rate",
                        "scan_range_eta",
                        // registered only for a task with a schedule
                        "scan_schedule_firings_total",
                        // the observations, through Micrometer's meter handler: a timer and a long task timer each
                        "scan_round_seconds_count",
                        "scan_round_seconds_sum",
                        "scan_round_seconds_max",
                        "scan_round_active_seconds_count",
                        "scan_round_active_seconds_sum",
                        "scan_round_active_seconds_max",
                        "scan_handler_seconds_count",
                        "scan_handler_seconds_sum",
                        "scan_handler_seconds_max",
                        "scan_handler_active_seconds_count",
                        "scan_handler_active_seconds_sum",
                        "scan_handler_active_seconds_max");
    }

    @Test
    void withoutMaxWorkersNoBudgetWaitIsExported() {
        assertThat(scrapedNames(null)).isNotEmpty().noneMatch(name -> name.startsWith("scan_budget_wait"));
    }

    @Test
    void theMetricsReferenceIsWhatTheRegistryHas() throws IOException {
        REFERENCE.check(
                REFERENCE.withHeader("the meter registry of an engine on H2", MetricsReference.render(registry(8))));
    }

    @Test
    void theMeterTablesOfTheDocsListWhatAScrapeHas() throws IOException {
        Set<String> scraped = new TreeSet<>(scrapedNames());
        assertThat(documented(Path.of("..", "docs", "reference", "metrics.md")))
                .as("docs/reference/metrics.md")
                .isEqualTo(scraped);
        assertThat(documented(Path.of("..", "docs", "guides", "operating.md")))
                .as("the meter table of docs/guides/operating.md")
                .isEqualTo(scraped);
    }

    /** What a scrape has of the meters in the table of {@code doc}. */
    private static Set<String> documented(Path doc) throws IOException {
        Set<String> documented = new TreeSet<>();
        Matcher row = METER_ROW.matcher(Files.readString(doc));
        while (row.find()) {
            String name = row.group(1);
            if (name.endsWith("_seconds") && !row.group(2).startsWith("gauge")) {
                // a timer or long task timer: what a scrape has of it
                documented.addAll(Set.of(name + "_count", name + "_sum", name + "_max"));
            } else {
                documented.add(name);
            }
        }
        return documented;
    }

    /** The names of the {@code scan_} samples of one scrape, with a budget of workers. */
    private Set<String> scrapedNames() {
        return scrapedNames(8);
    }

    /** The names of the {@code scan_} samples of one scrape, with {@code scan.max-workers} or without. */
    private Set<String> scrapedNames(@Nullable Integer maxWorkers) {
        return MeteredEngine.scrapedNames(registry(maxWorkers));
    }

    private PrometheusMeterRegistry registry(@Nullable Integer maxWorkers) {
        return MeteredEngine.start(engines, maxWorkers);
    }
}
