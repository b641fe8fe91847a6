package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code scan.dashboard.*} property has configuration metadata with a description (for the IDE)
 * and a row in the dashboard guide's table ({@code docs/guides/dashboard.md}) whose default is the one in
 * {@link DashboardProperties}.
 */
class DashboardPropertiesDocumentedTests {

    @Test
    void everyPropertyHasMetadataAndItsCodeDefaultInTheDashboardGuide() throws Exception {
        DashboardProperties defaults = new DashboardProperties();
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("scan.dashboard.enabled", String.valueOf(defaults.isEnabled()));
        expected.put("scan.dashboard.path", defaults.getPath());
        expected.put("scan.dashboard.write-enabled", String.valueOf(defaults.isWriteEnabled()));
        expected.put("scan.dashboard.rate-sample", defaults.getRateSample().toSeconds() + "s");
        expected.put("scan.dashboard.rate-samples", String.valueOf(defaults.getRateSamples()));

        Map<String, String> described = new TreeMap<>();
        for (URL url : Collections.list(
                getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode property :
                        JsonMapper.builder().build().readTree(in).path("properties")) {
                    String name = property.path("name").asString();
                    if (name.startsWith("scan.dashboard.")) {
                        described.put(name, property.path("description").asString());
                    }
                }
            }
        }
        assertThat(described).containsOnlyKeys(expected.keySet());
        assertThat(described.values())
                .allSatisfy(description -> assertThat(description).isNotBlank());

        String guide = Files.readString(Path.of("..", "docs", "guides", "dashboard.md"));
        expected.forEach((name, value) -> assertThat(guide)
                .as("the dashboard guide documents %s with its default %s", name, value)
                .contains("| `" + name + "` | `" + value + "` |"));
    }

    @Test
    void everyDependencySnippetOfTheDocsHasTheProjectsVersion() throws Exception {
        Matcher project = Pattern.compile("<artifactId>shardscan-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(Path.of("..", "pom.xml")));
        assertThat(project.find()).as("the parent pom's version").isTrue();
        Matcher snippet = Pattern.compile(
                        "<dependency>\\s*<groupId>io\\.shardscan</groupId>.*?</dependency>", Pattern.DOTALL)
                .matcher(docs());
        int snippets = 0;
        while (snippet.find()) {
            snippets++;
            // without a version Maven fails: 'dependencies.dependency.version' for io.shardscan:... is missing
            assertThat(snippet.group())
                    .as("a dependency snippet of the README or docs/")
                    .contains("<version>" + project.group(1) + "</version>");
        }
        assertThat(snippets)
                .as("dependency snippets of scan-starter and scan-dashboard")
                .isGreaterThanOrEqualTo(2);
    }

    /** The README and every markdown file under {@code docs/}, one after the other. */
    private static String docs() throws IOException {
        StringBuilder docs = new StringBuilder(Files.readString(Path.of("..", "README.md")));
        try (Stream<Path> files = Files.walk(Path.of("..", "docs"))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".md"))
                    .sorted()
                    .toList()) {
                docs.append('\n').append(Files.readString(file));
            }
        }
        return docs.toString();
    }
}
