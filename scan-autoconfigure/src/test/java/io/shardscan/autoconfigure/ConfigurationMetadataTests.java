package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * The IDE metadata the build generates: every {@code scan.*} property is described, and its
 * default is the code's. Per-task properties (values of the {@code scan.tasks} map, for which
 * the processor generates nothing) are written by hand as {@code scan.tasks.*.<property>} in
 * {@code additional-spring-configuration-metadata.json}; this test keeps them in step with
 * {@link TaskProperties}.
 */
class ConfigurationMetadataTests {

    private static final String TASK = "scan.tasks.*.";
    private static final Map<String, String> NESTED =
            Map.of("level1", "BlacklistLevel1Properties", "level2", "BlacklistLevel2Properties");
    private static final Pattern FIELD_JAVADOC = Pattern.compile(
            "/\\*\\*\\s*((?:(?!\\*/).)+?)\\s*\\*/\\s*(?:@\\w+(?:\\([^)]*\\))?\\s*)*private\\s+(?:final\\s+)?[^;=]*?\\s(\\w+)\\s*[;=]",
            Pattern.DOTALL);

    private final Map<String, Map<String, Object>> properties = new LinkedHashMap<>();
    private final Map<String, List<String>> hints = new LinkedHashMap<>();

    ConfigurationMetadataTests() throws IOException {
        for (URL url : Collections.list(
                getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            Map<String, Object> metadata = read(url);
            for (Map<String, Object> property : list(metadata.get("properties"))) {
                String name = (String) property.get("name");
                if (name.startsWith("scan.")) {
                    properties.put(name, property);
                }
            }
            for (Map<String, Object> hint : list(metadata.get("hints"))) {
                String name = (String) hint.get("name");
                if (name.startsWith("scan.")) {
                    List<String> values = new ArrayList<>();
                    for (Map<String, Object> value : list(hint.get("values"))) {
                        assertThat((String) value.get("description"))
                                .as("hint %s", name)
                                .isNotBlank();
                        values.add(String.valueOf(value.get("value")));
                    }
                    hints.put(name, values);
                }
            }
        }
    }

    @Test
    void everyPropertyHasADescription() {
        assertThat(properties).containsKeys("scan.enabled", "scan.lease-ttl", TASK + "table", TASK + "page-size");
        assertThat(properties.values()).allSatisfy(property -> assertThat((String) property.get("description"))
                .as("description of %s", property.get("name"))
                .isNotBlank());
    }

    @Test
    void everyPropertyWithALiteralDefaultDocumentsThatDefault() {
        ScanProperties defaults = new ScanProperties();
        ScanProperties withTask = new ScanProperties();
        withTask.getTasks().put("t", new TaskProperties());
        Map<String, Object> documented = new LinkedHashMap<>();
        for (Map<String, Object> property : properties.values()) {
            String name = (String) property.get("name");
            Object codeDefault = codeDefault(name.startsWith(TASK) ? withTask : defaults, name);
            boolean literal = codeDefault != null
                    && !(codeDefault instanceof Map<?, ?> map && map.isEmpty())
                    && !(codeDefault instanceof Collection<?> collection && collection.isEmpty());
            assertThat(property.containsKey("defaultValue"))
                    .as("%s has a default in the code (%s), so the metadata must show one", name, codeDefault)
                    .isEqualTo(literal);
            if (literal) {
                flatten(key(name), property.get("defaultValue"), documented);
            }
        }
        ScanProperties bound = new Binder(new MapConfigurationPropertySource(documented))
                .bind("scan", Bindable.of(ScanProperties.class))
                .get();
        assertThat(bound)
                .usingRecursiveComparison()
                .ignoringFields("tasks.t.explicitlySet", "tasks.t.level1.afterSet", "tasks.t.level2.set")
                .isEqualTo(withTask);
    }

    @Test
    void everyTaskPropertyIsListedWithItsJavadocAsDescription() throws IOException {
        String source = Files.readString(
                Path.of("src/main/java/io/shardscan/autoconfigure/TaskProperties.java"), StandardCharsets.UTF_8);
        Map<String, String> javadoc = fieldJavadoc(source, TASK);
        assertThat(javadoc).hasSize(new BeanWrapperImpl(TaskProperties.class).getPropertyDescriptors().length - 1);
        // nested groups are listed by their properties, each described by its own javadoc
        for (Map.Entry<String, String> group : NESTED.entrySet()) {
            javadoc.remove(TASK + group.getKey());
            Matcher nested = FIELD_JAVADOC.matcher(Files.readString(
                    Path.of("src/main/java/io/shardscan/autoconfigure/" + group.getValue() + ".java"),
                    StandardCharsets.UTF_8));
            while (nested.find()) {
                javadoc.put(
                        TASK + group.getKey() + "." + kebab(nested.group(2)),
                        nested.group(1).replaceAll("\\s*\\n\\s*\\*?\\s*", " "));
            }
        }
        // archive is a group: its own properties are listed, each with the javadoc of its field
        assertThat(javadoc.remove(TASK + "archive")).isNotBlank();
        Map<String, String> archive = fieldJavadoc(
                Files.readString(
                        Path.of("src/main/java/io/shardscan/autoconfigure/ArchiveProperties.java"),
                        StandardCharsets.UTF_8),
                TASK + "archive.");
        assertThat(archive).hasSize(new BeanWrapperImpl(ArchiveProperties.class).getPropertyDescriptors().length - 1);
        javadoc.putAll(archive);
        // and so is schedule
        assertThat(javadoc.remove(TASK + "schedule")).isNotBlank();
        Map<String, String> schedule = fieldJavadoc(
                Files.readString(
                        Path.of("src/main/java/io/shardscan/autoconfigure/ScheduleProperties.java"),
                        StandardCharsets.UTF_8),
                TASK + "schedule.");
        assertThat(schedule).hasSize(new BeanWrapperImpl(ScheduleProperties.class).getPropertyDescriptors().length - 1);
        javadoc.putAll(schedule);
        Map<String, Object> documented = new LinkedHashMap<>();
        properties.forEach((name, property) -> {
            if (name.startsWith(TASK)) {
                documented.put(name, property.get("description"));
            }
        });
        assertThat(documented).containsExactlyInAnyOrderEntriesOf(javadoc);
    }

    @Test
    void enumsHaveValueHints() {
        assertThat(hints).containsEntry("scan.coordinator", values(ScanProperties.Coordinator.values()));
        assertThat(hints).containsEntry("scan.jdbc.initialize-schema", values(DatabaseInitializationMode.values()));
        assertThat(hints).containsEntry(TASK + "on-exhausted", values(OnExhausted.values()));
        assertThat(hints).containsEntry(TASK + "index-check", values(IndexCheck.values()));
        assertThat(hints).containsEntry(TASK + "ordering", values(Ordering.values()));
        assertThat(hints).containsEntry(TASK + "match-overlap", values(MatchOverlap.values()));
        assertThat(hints).containsEntry(TASK + "mode", values(TaskMode.values()));
        assertThat(hints).containsEntry(TASK + "run", values(io.shardscan.core.task.RunMode.values()));
        assertThat(hints.keySet()).allSatisfy(name -> assertThat(properties).containsKey(name));
    }

    /** The first sentence-block of each field's javadoc in {@code source}, by property name under {@code prefix}. */
    private static Map<String, String> fieldJavadoc(String source, String prefix) {
        Map<String, String> javadoc = new LinkedHashMap<>();
        Matcher field = FIELD_JAVADOC.matcher(source);
        while (field.find()) {
            javadoc.put(prefix + kebab(field.group(2)), field.group(1).replaceAll("\\s*\\n\\s*\\*?\\s*", " "));
        }
        return javadoc;
    }

    /** The code's default of a metadata property: a per-task one of task {@code t}. */
    private static @Nullable Object codeDefault(ScanProperties defaults, String name) {
        String path = Arrays.stream(key(name).substring("scan.".length()).split("\\."))
                .map(ConfigurationMetadataTests::camel)
                .reduce((a, b) -> a + "." + b)
                .orElseThrow()
                .replace("tasks.t.", "tasks[t].");
        return new BeanWrapperImpl(defaults).getPropertyValue(path);
    }

    private static String key(String name) {
        return name.replace(TASK, "scan.tasks.t.");
    }

    /** A JSON default as configuration keys: lists of objects become {@code name[i].key}. */
    private static void flatten(String name, @Nullable Object value, Map<String, Object> into) {
        if (value instanceof List<?> items) {
            for (int i = 0; i < items.size(); i++) {
                flatten(name + "[" + i + "]", items.get(i), into);
            }
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> flatten(name + "." + k, v, into));
        } else if (value instanceof Double number && number == Math.rint(number)) {
            // the parser reads every JSON number as a double
            into.put(name, Long.toString(number.longValue()));
        } else {
            into.put(name, String.valueOf(value));
        }
    }

    private static List<String> values(Enum<?>[] constants) {
        return Arrays.stream(constants)
                .map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .toList();
    }

    private static String camel(String kebab) {
        StringBuilder out = new StringBuilder();
        for (String part : kebab.split("-")) {
            out.append(out.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(@Nullable Object value) {
        return value == null ? List.of() : (List<Map<String, Object>>) value;
    }

    private static Map<String, Object> read(URL url) throws IOException {
        try (InputStream in = url.openStream()) {
            return JsonParserFactory.getJsonParser().parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
