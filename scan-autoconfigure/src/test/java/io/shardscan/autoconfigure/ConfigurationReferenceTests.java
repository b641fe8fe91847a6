package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.GeneratedDoc;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * {@code docs/reference/configuration.md} is the configuration metadata the build generates (from the
 * properties classes and {@code additional-spring-configuration-metadata.json}), as tables by prefix.
 * ConfigurationMetadataTests keeps the metadata's descriptions and defaults those of the code, so the
 * reference's are too. {@code -Dscan.docs.write=true} rewrites the file.
 */
class ConfigurationReferenceTests {

    static final String METADATA = "target/classes/META-INF/spring-configuration-metadata.json";
    private static final String TASK = "scan.tasks.*.";
    private static final GeneratedDoc REFERENCE =
            new GeneratedDoc("docs/reference/configuration.md", ConfigurationReferenceTests.class.getSimpleName());

    @Test
    void theReferenceIsTheBuildsConfigurationMetadata() throws IOException {
        String rendered = render(JsonParserFactory.getJsonParser()
                .parseMap(Files.readString(Path.of(METADATA), StandardCharsets.UTF_8)));
        assertThat(rendered).contains("| `scan.lease-ttl` | `Duration` | `6s` |", "| `scan.tasks.*.page-size` |");
        REFERENCE.check(REFERENCE.withHeader("scan-autoconfigure's " + METADATA, rendered));
    }

    /** The metadata's properties as one table per prefix: node-wide, per task, and each group of a task's. */
    static String render(Map<String, Object> metadata) {
        Map<String, List<String>> hints = new LinkedHashMap<>();
        for (Map<String, Object> hint : list(metadata.get("hints"))) {
            hints.put(
                    (String) hint.get("name"),
                    list(hint.get("values")).stream()
                            .map(value -> "`" + value.get("value") + "`: " + cell(value.get("description")))
                            .toList());
        }
        List<String> groups = list(metadata.get("groups")).stream()
                .map(group -> (String) group.get("name"))
                .toList();
        Map<String, List<Map<String, Object>>> byPrefix =
                new TreeMap<>(Comparator.comparing((String prefix) -> prefix.startsWith("scan.") ? 0 : 1)
                        .thenComparing(Comparator.naturalOrder()));
        list(metadata.get("properties")).stream()
                .sorted(Comparator.comparing(property -> (String) property.get("name")))
                .forEach(property -> byPrefix.computeIfAbsent(
                                prefix((String) property.get("name"), groups), p -> new ArrayList<>())
                        .add(property));
        StringBuilder out = new StringBuilder()
                .append("# Configuration reference\n\n")
                .append(
                        "Every property of `scan-autoconfigure`, with its type, default and description as its"
                                + " configuration metadata (what the IDE shows) has them. Back to the [README](../../README.md).\n\n")
                .append("A per-task property is `scan.tasks.<name>.…`, written `scan.tasks.*.…` here. A duration"
                        + " takes a unit (`250ms`, `5s`, `15m`, `7d`; which ones read a bare number as seconds:"
                        + " [Startup checks](../guides/startup-checks.md)). A hand-written note on many properties is in"
                        + " [Configuration, explained](../guides/configuration.md); the dashboard's `scan.dashboard.*`"
                        + " properties are in the [dashboard guide](../guides/dashboard.md).\n");
        byPrefix.forEach((prefix, properties) -> {
            String scope = prefix.equals("scan.") ? "Node-wide: " : prefix.startsWith(TASK) ? "Per task: " : "";
            out.append("\n## ").append(scope).append('`').append(prefix).append("*`\n\n");
            out.append("| property | type | default | description |\n|---|---|---|---|\n");
            for (Map<String, Object> property : properties) {
                String name = (String) property.get("name");
                List<String> values = hints.getOrDefault(name, List.of());
                out.append("| `")
                        .append(name)
                        .append("` | `")
                        .append(type((String) property.get("type")))
                        .append("` | ")
                        .append(
                                property.containsKey("defaultValue")
                                        ? "`" + value(property.get("defaultValue")) + "`"
                                        : "")
                        .append(" | ")
                        .append(deprecation(property))
                        .append(cell(property.get("description")))
                        .append(values.isEmpty() ? "" : "<br>" + String.join("<br>", values))
                        .append(" |\n");
            }
        });
        return out.toString();
    }

    /**
     * {@code scan.} for node-wide properties, {@code scan.tasks.*.} for a task's own, {@code scan.tasks.*.archive.}
     * for a group of a task's; any other property by the shortest metadata group it is in
     * ({@code management.endpoint.scan.}).
     */
    private static String prefix(String name, List<String> groups) {
        if (name.startsWith(TASK)) {
            int group = name.indexOf('.', TASK.length());
            return group < 0 ? TASK : name.substring(0, group + 1);
        }
        if (name.startsWith("scan.")) {
            return "scan.";
        }
        return groups.stream()
                .map(group -> group + ".")
                .filter(name::startsWith)
                .min(Comparator.comparingInt(String::length))
                .orElse(name.substring(0, name.lastIndexOf('.') + 1));
    }

    /** A Java type without its packages: {@code Map<String, List<String>>}, {@code ScanProperties.Coordinator}. */
    private static String type(@Nullable String type) {
        return type == null
                ? ""
                : type.replaceAll("\\b[a-z][a-z0-9_]*\\.", "").replace('$', '.').replace(",", ", ");
    }

    /** A default as it would be written in YAML: a list of objects in flow style. */
    private static String value(@Nullable Object value) {
        if (value instanceof List<?> items) {
            return items.stream().map(ConfigurationReferenceTests::value).collect(Collectors.joining(", ", "[", "]"));
        }
        if (value instanceof Map<?, ?> map) {
            return map.entrySet().stream()
                    .map(entry -> entry.getKey() + ": " + value(entry.getValue()))
                    .collect(Collectors.joining(", ", "{ ", " }"));
        }
        if (value instanceof Number number) {
            // a parser may read every JSON number as a double
            BigDecimal decimal = new BigDecimal(number.toString()).stripTrailingZeros();
            return decimal.scale() <= 0 ? decimal.toBigInteger().toString() : decimal.toPlainString();
        }
        return String.valueOf(value);
    }

    /** A deprecated property's replacement and why, ahead of its description; nothing for the others. */
    @SuppressWarnings("unchecked")
    private static String deprecation(Map<String, Object> property) {
        if (!(property.get("deprecation") instanceof Map<?, ?> deprecation)) {
            return "";
        }
        Map<String, Object> fields = (Map<String, Object>) deprecation;
        Object replacement = fields.get("replacement");
        Object reason = fields.get("reason");
        return "**Deprecated**" + (replacement == null ? "" : ", use `" + replacement + "`")
                + (reason == null ? "" : ": " + cell(reason).replaceAll("\\.$", "")) + ". ";
    }

    private static String cell(@Nullable Object text) {
        return text == null ? "" : text.toString().replace("\n", " ").replace("|", "\\|");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(@Nullable Object value) {
        return value == null ? List.of() : (List<Map<String, Object>>) value;
    }
}
