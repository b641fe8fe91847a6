package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The starter is an (empty) jar, as Spring Boot's own starters are, so the usual dependency line
 * works without a type, and it brings only what every application needs; the sample app's
 * executable jar is not installed into the local repository.
 */
class StarterPomTests {

    @Test
    void starterIsAJarWithExactlyTheDependenciesEveryApplicationNeeds() throws Exception {
        Element project = project("scan-starter");
        assertThat(children(project, "packaging")).allMatch("jar"::equals);
        List<String> dependencies = new ArrayList<>();
        NodeList nodes = project.getElementsByTagName("dependency");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element dependency = (Element) nodes.item(i);
            assertThat(children(dependency, "scope")).isEmpty();
            assertThat(children(dependency, "optional")).isEmpty();
            assertThat(children(dependency, "type")).isEmpty();
            dependencies.add(children(dependency, "groupId").get(0) + ":"
                    + children(dependency, "artifactId").get(0));
        }
        assertThat(dependencies)
                .containsExactlyInAnyOrder(
                        "io.shardscan:shardscan-spring-boot-autoconfigure",
                        "org.springframework.boot:spring-boot-starter-jdbc",
                        "org.springframework.boot:spring-boot-starter-actuator",
                        "io.micrometer:micrometer-core");
    }

    @Test
    void sampleAppIsNotInstalledIntoTheLocalRepository() throws Exception {
        Element properties = (Element)
                project("sample-app").getElementsByTagName("properties").item(0);
        assertThat(children(properties, "maven.install.skip")).containsExactly("true");
        assertThat(children(properties, "maven.deploy.skip")).containsExactly("true");
    }

    private static Element project(String module) throws Exception {
        Path pom = Path.of("..", module, "pom.xml");
        assertThat(pom).exists();
        try (var in = Files.newInputStream(pom)) {
            return DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(in)
                    .getDocumentElement();
        }
    }

    private static List<String> children(Element parent, String name) {
        List<String> values = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element element && element.getTagName().equals(name)) {
                values.add(element.getTextContent().trim());
            }
        }
        return values;
    }
}
