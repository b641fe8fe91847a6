package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * Fails when a default in the hand-written tables of {@code docs/guides/configuration.md} drifts from the code.
 * The generated {@code docs/reference/configuration.md} needs no such check: ConfigurationMetadataTests keeps
 * the metadata's defaults the code's, and ConfigurationReferenceTests the reference the metadata.
 */
class DocumentedDefaultsTests {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| `([^`]+)` \\|", Pattern.MULTILINE);

    @Test
    void everyLiteralDefaultInTheConfigurationGuideIsTheCodesDefault() throws IOException {
        Map<String, String> documented = documentedDefaults();
        assertThat(documented).containsKeys("scan.lease-ttl", "scan.tasks.t.page-size", "scan.tasks.t.on-exhausted");
        ScanProperties defaults = new ScanProperties();
        defaults.getTasks().put("t", new TaskProperties());
        Map<String, String> source = new LinkedHashMap<>(documented);
        source.put("scan.tasks.t.table", "tb_order");
        ScanProperties bound = new Binder(new MapConfigurationPropertySource(source))
                .bind("scan", Bindable.of(ScanProperties.class))
                .get();
        assertThat(bound)
                .usingRecursiveComparison()
                .ignoringFields(
                        "tasks.t.table", "tasks.t.explicitlySet", "tasks.t.level1.afterSet", "tasks.t.level2.set")
                .isEqualTo(defaults);
    }

    /** Rows whose default is a literal in back-quotes; per-task rows become properties of task {@code t}. */
    private static Map<String, String> documentedDefaults() throws IOException {
        String guide = Files.readString(Path.of("..", "docs", "guides", "configuration.md"));
        String taskSection = guide.substring(guide.indexOf("Per task (`scan.tasks.<name>.*`)"));
        Map<String, String> defaults = new LinkedHashMap<>();
        Matcher node = ROW.matcher(guide.substring(0, guide.indexOf("Per task (`scan.tasks.<name>.*`)")));
        while (node.find()) {
            defaults.put(node.group(1), node.group(2));
        }
        Matcher task = ROW.matcher(taskSection.substring(0, taskSection.indexOf("\n\n", taskSection.indexOf("|---"))));
        while (task.find()) {
            defaults.put("scan.tasks.t." + task.group(1), task.group(2));
        }
        return defaults;
    }
}
