package io.shardscan.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Maven Central refuses a module without a name, description, project URL, licence, developer and SCM
 * address: each published module has its own name and description and inherits the rest from
 * shardscan-parent, or has the whole set itself (scan-bom, which has no parent). Read from the POM files,
 * so that a module added without them fails the build, not the release.
 */
class PublishedPomsTests {

    private static final Path ROOT = Path.of("..");

    @ParameterizedTest
    @ValueSource(strings = {"scan-autoconfigure", "scan-dashboard", "scan-starter", "scan-bom"})
    void aPublishedModuleHasWhatMavenCentralRequires(String module) throws Exception {
        Element pom = read(ROOT.resolve(module).resolve("pom.xml"));
        List<String> missing = new ArrayList<>();
        requireText(pom, "name", missing);
        requireText(pom, "description", missing);
        Element from = child(pom, "parent") == null ? pom : read(ROOT.resolve("pom.xml"));
        requireText(from, "url", missing);
        requireText(child(child(from, "licenses"), "license"), "name", missing);
        requireText(child(child(from, "developers"), "developer"), "name", missing);
        requireText(child(from, "scm"), "url", missing);
        requireText(child(from, "scm"), "connection", missing);

        assertThat(missing)
                .as(module + "'s POM (or shardscan-parent's) lacks what Maven Central requires")
                .isEmpty();
        if (!module.equals("scan-bom")) {
            assertThat(text(child(pom, "properties"), "maven.javadoc.skip"))
                    .as(module + " is published: it must not skip its javadoc jar")
                    .isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"scan-autoconfigure", "scan-dashboard", "scan-starter"})
    void theBomNamesEveryPublishedModule(String module) throws Exception {
        String artifact = text(read(ROOT.resolve(module).resolve("pom.xml")), "artifactId");
        Element managed = child(child(read(ROOT.resolve("scan-bom/pom.xml")), "dependencyManagement"), "dependencies");
        List<String> artifacts = new ArrayList<>();
        for (Node node = managed.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element dependency) {
                artifacts.add(text(dependency, "artifactId"));
            }
        }
        assertThat(artifacts).as("the BOM's dependencyManagement").contains(artifact);
    }

    private static void requireText(Element parent, String name, List<String> missing) {
        if (text(parent, name) == null) {
            missing.add(name);
        }
    }

    private static String text(Element parent, String name) {
        Element child = child(parent, name);
        String text = child == null ? null : child.getTextContent().strip();
        return text == null || text.isEmpty() ? null : text;
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static Element read(Path pom) throws Exception {
        Document document =
                DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return document.getDocumentElement();
    }
}
