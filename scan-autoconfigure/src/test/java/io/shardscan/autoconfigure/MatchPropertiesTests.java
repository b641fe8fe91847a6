package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.TaskDefinition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ByteArrayResource;

/** How {@code match} binds from YAML, as docs/guides/several-tasks-per-table.md writes it: a value, a list of values, or null. */
class MatchPropertiesTests {

    private static TaskDefinition bind(String task) throws IOException {
        String yaml = "scan:\n  tasks:\n    t:\n      table: tb_order\n" + task.indent(6);
        Binder binder = new Binder(ConfigurationPropertySources.from(new YamlPropertySourceLoader()
                .load("test", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))));
        return binder.bind("scan", ScanProperties.class)
                .get()
                .getTasks()
                .get("t")
                .toDefinition("t");
    }

    @Test
    void aValueAListAndNullBindAsTheColumnsConditions() throws IOException {
        TaskDefinition task = bind("match: { biz_type: 3, Region: [cn, hk], deleted_at: null }");
        assertThat(task.match())
                .containsExactly(Match.of("biz_type", 3), Match.of("Region", "cn", "hk"), Match.isNull("deleted_at"));
        assertThat(task.matchOverlap()).isEqualTo(MatchOverlap.REFUSED);
    }

    @Test
    void matchOverlapBindsItsValues() throws IOException {
        assertThat(bind("match-overlap: allowed").matchOverlap()).isEqualTo(MatchOverlap.ALLOWED);
        assertThat(bind("match-overlap: allowed").match()).isEmpty();
    }

    @Test
    void nullAmongValuesIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> bind("match: { biz_type: [3, null] }"))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.t.match.biz_type lists null with values [3, null]")
                .hasMessageContaining("a column matches values or null, not both");
    }
}
