package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The {@code mode} presets and the endpoint settings, bound as Spring Boot binds them. */
class TaskModeTests {

    private static TaskDefinition task(Map<String, String> settings) {
        Map<String, String> source = new LinkedHashMap<>();
        source.put("scan.tasks.sync.table", "tb_order");
        settings.forEach((k, v) -> source.put("scan.tasks.sync." + k, v));
        ScanProperties properties = new Binder(new MapConfigurationPropertySource(source))
                .bind("scan", ScanProperties.class)
                .get();
        return properties.getTasks().get("sync").toDefinition("sync");
    }

    @Test
    void withoutEndpointColumnATaskHasNoEndpoints() {
        TaskDefinition task = task(Map.of());
        assertThat(task.endpoints()).isNull();
        assertThat(task.onExhausted()).isEqualTo(OnExhausted.DEAD);
        assertThat(task.rounds().handlerTimeout()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void syncKeepsRetryingWithTwoQuickRetriesInAPass() {
        TaskDefinition task = task(Map.of("mode", "sync", "endpoint-column", "store_id"));
        assertThat(task.onExhausted()).isEqualTo(OnExhausted.KEEP_RETRYING);
        assertThat(task.endpoints().column()).isEqualTo("store_id");
        assertThat(task.endpoints().level1After()).isEqualTo(3);
        assertThat(task.endpoints().level2Trips()).isEqualTo(3);
        assertThat(task.endpoints().level2Window()).isEqualTo(Duration.ofMinutes(5));
        assertThat(task.endpoints().level2Ban()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void transferGivesUpWithoutRetryInAPassAndAShortTimeout() {
        TaskDefinition task = task(Map.of("mode", "transfer", "endpoint-column", "store_id"));
        assertThat(task.onExhausted()).isEqualTo(OnExhausted.DEAD);
        assertThat(task.rounds().handlerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(task.endpoints().level1After()).isEqualTo(1);
    }

    @Test
    void everySettingAPresetMakesCanBeOverridden() {
        TaskDefinition task = task(Map.of(
                "mode", "sync",
                "endpoint-column", "store_id",
                "on-exhausted", "dead",
                "level1.after", "5",
                "handler-timeout", "20s",
                "level2.ban", "30s",
                "slow-share", "0.5"));
        assertThat(task.onExhausted()).isEqualTo(OnExhausted.DEAD);
        assertThat(task.endpoints().level1After()).isEqualTo(5);
        assertThat(task.rounds().handlerTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(task.endpoints().level2Ban()).isEqualTo(Duration.ofSeconds(30));
        assertThat(task.endpoints().slowShare()).isEqualTo(0.5);
        TaskDefinition transfer =
                task(Map.of("mode", "transfer", "endpoint-column", "store_id", "on-exhausted", "keep-retrying"));
        assertThat(transfer.onExhausted()).isEqualTo(OnExhausted.KEEP_RETRYING);
    }

    @Test
    void badEndpointSettingsNameThePropertyAndTheFix() {
        assertThatThrownBy(() -> task(Map.of("level1.after", "3")))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("scan.tasks.sync.level1.after is set but scan.tasks.sync.endpoint-column is not");
        assertThatThrownBy(() -> task(Map.of("endpoint-column", "store_id", "slow-share", "1.5")))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("scan.tasks.sync.slow-share must be above 0 and at most 1");
        assertThatThrownBy(() -> task(Map.of("endpoint-column", "store_id", "level2.trips", "0")))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("scan.tasks.sync.level2.trips must be at least 1");
        assertThatThrownBy(() -> task(Map.of("endpoint-column", "store id")))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("scan.tasks.sync.endpoint-column 'store id' is not a plain SQL identifier");
    }
}
