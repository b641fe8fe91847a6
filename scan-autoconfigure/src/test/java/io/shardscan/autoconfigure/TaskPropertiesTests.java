package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class TaskPropertiesTests {

    @Test
    void defaultsMatchTheCoreDefaults() {
        TaskProperties properties = new TaskProperties();
        properties.setTable("tb_order");

        assertThat(properties.toDefinition("orders"))
                .isEqualTo(TaskDefinition.builder("orders").table("tb_order").build());
    }

    @Test
    void bindsRelaxedNamesAndEnumValues() {
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(
                "scan.tasks.order-sms.table", "tb_order",
                "scan.tasks.order-sms.on-exhausted", "keep-retrying",
                "scan.tasks.order-sms.index-check", "fail",
                "scan.tasks.order-sms.round-timeout", "90s",
                "scan.tasks.order-sms.handler-timeout", "60s",
                "scan.tasks.order-sms.ordering", "none",
                "scan.jdbc.initialize-schema", "always")));

        ScanProperties properties = binder.bind("scan", ScanProperties.class).get();
        TaskDefinition definition = properties.getTasks().get("order-sms").toDefinition("order-sms");

        assertThat(definition.onExhausted()).isEqualTo(OnExhausted.KEEP_RETRYING);
        assertThat(definition.indexCheck()).isEqualTo(IndexCheck.FAIL);
        assertThat(definition.rounds().timeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(definition.rounds().handlerTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(definition.ordering()).isEqualTo(Ordering.NONE);
        assertThat(properties.getJdbc().getInitializeSchema().name()).isEqualTo("ALWAYS");
    }

    /** A bare number is seconds, and the grace survives the registry's narrowing of the definition. */
    @Test
    void followGraceReachesTheRangeTask() {
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(
                "scan.tasks.events.table", "tb_event",
                "scan.tasks.events.mode", "range",
                "scan.tasks.events.run", "follow",
                "scan.tasks.events.follow-grace", "30")));

        RangeTask task = binder.bind("scan", ScanProperties.class)
                .get()
                .getTasks()
                .get("events")
                .toRangeTask("events");

        assertThat(task.followGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(task.withDefinition(task.definition()).followGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(new TaskProperties().getFollowGrace()).isEqualTo(RangeTask.DEFAULT_FOLLOW_GRACE);
    }

    @Test
    void aNegativeFollowGraceNamesTheProperty() {
        TaskProperties properties = new TaskProperties();
        properties.setTable("tb_event");
        properties.setMode(TaskMode.RANGE);
        properties.setFollowGrace(Duration.ofSeconds(-1));

        assertThatThrownBy(() -> properties.toRangeTask("events"))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.events.follow-grace must not be negative (was PT-1S)");
    }

    @Test
    void namesTheTierWhoseRetriesDoNotParse() {
        TaskProperties properties = new TaskProperties();
        properties.setTable("tb_order");
        properties.setTiers(List.of(
                new TierProperties("0", Duration.ofSeconds(3)), new TierProperties("5-1", Duration.ofSeconds(30))));

        assertThatThrownBy(() -> properties.toDefinition("orders"))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith(
                        "scan.tasks.orders.tiers[1].retries is invalid: retries '5-1' ends before it" + " starts");
    }

    @Test
    void namesTheTierWithoutInterval() {
        TaskProperties properties = new TaskProperties();
        properties.setTable("tb_order");
        properties.setTiers(List.of(new TierProperties("0", null)));

        assertThatThrownBy(() -> properties.toDefinition("orders"))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.orders.tiers[0].interval must be set");
    }

    @Test
    void bindsATextShardKey() {
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(
                "scan.tasks.ledger.table", "ledger_event",
                "scan.tasks.ledger.shard-key-column", "account_id",
                "scan.tasks.ledger.shard-key-type", "text")));
        TaskDefinition definition = binder.bind("scan", ScanProperties.class)
                .get()
                .getTasks()
                .get("ledger")
                .toDefinition("ledger");

        assertThat(definition.columns().shardKeyType()).isEqualTo(io.shardscan.core.task.KeyType.TEXT);
        assertThat(definition.columns().shardKey()).isEqualTo("account_id");
    }

    @Test
    void namesTheRetriesThatDoNotParseOfATierWithoutInterval() {
        Binder binder = new Binder(new MapConfigurationPropertySource(
                Map.of("scan.tasks.orders.table", "tb_order", "scan.tasks.orders.tiers[0].retries", "abc")));
        TaskProperties properties =
                binder.bind("scan", ScanProperties.class).get().getTasks().get("orders");

        assertThatThrownBy(() -> properties.toDefinition("orders"))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageStartingWith("scan.tasks.orders.tiers[0].retries is invalid: retries 'abc' is not a count")
                .hasMessageContaining("; and scan.tasks.orders.tiers[0].interval must be set");
    }

    @Test
    void bindsDueAtColumnAndDelay() {
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(
                "scan.tasks.order-close.table", "tb_order",
                "scan.tasks.order-close.due-at-column", "created_at",
                "scan.tasks.order-close.delay", "15m")));

        TaskDefinition definition = binder.bind("scan", ScanProperties.class)
                .get()
                .getTasks()
                .get("order-close")
                .toDefinition("order-close");

        assertThat(definition.columns().dueAt()).isEqualTo("created_at");
        assertThat(definition.delay()).isEqualTo(Duration.ofMinutes(15));
        assertThat(definition.delayed()).isTrue();
        assertThat(new TaskProperties().getDelay()).isZero();
    }
}
