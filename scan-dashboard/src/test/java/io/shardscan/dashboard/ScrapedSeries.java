package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardscan.actuate.MeteredEngine;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a running engine with every meter Shardscan registers ({@link MeteredEngine}), against
 * which a shipped query (a Grafana panel's, an alert rule's) is checked: every {@code scan_*} name it reads
 * is scraped, and every exact label matcher ({@code outcome="dead"}) matches a scraped series.
 */
final class ScrapedSeries {

    private static final Pattern METER = Pattern.compile("\\bscan_[a-z_]+");
    private static final Pattern SELECTOR = Pattern.compile("\\b(scan_[a-z_]+)\\{([^}]*)}");
    private static final Pattern EXACT = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final List<String> lines;
    private final Set<String> names;

    ScrapedSeries(PrometheusMeterRegistry registry) {
        this.lines = registry.scrape()
                .lines()
                .filter(line -> line.startsWith("scan_"))
                .toList();
        this.names = MeteredEngine.scrapedNames(registry);
    }

    /** The {@code scan_*} names {@code query} reads; none is asserted. */
    static Set<String> meters(String query) {
        Set<String> found = new TreeSet<>();
        Matcher meter = METER.matcher(query);
        while (meter.find()) {
            found.add(meter.group());
        }
        return found;
    }

    /** Fails unless a scrape has every meter {@code query} reads and a series for each of its exact matchers. */
    void assertReadable(String where, String query) {
        assertThat(names).as("%s reads %s: a scrape has", where, meters(query)).containsAll(meters(query));
        Matcher selector = SELECTOR.matcher(query);
        while (selector.find()) {
            String name = selector.group(1);
            Matcher exact = EXACT.matcher(selector.group(2));
            while (exact.find()) {
                String label = exact.group(1) + "=\"" + exact.group(2) + "\"";
                assertThat(lines)
                        .as("%s selects %s{%s}: a scraped series has it", where, name, label)
                        .anyMatch(line -> line.startsWith(name + "{") && line.contains(label));
            }
        }
    }
}
