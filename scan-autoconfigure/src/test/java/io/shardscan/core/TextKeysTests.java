package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TextKeys;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The shards a wake-up names for a task with a text shard key (the databases' side: TextShardKeyTests). */
class TextKeysTests {

    static final TaskDefinition TEXT = TaskDefinition.builder("events")
            .table("tb_event")
            .idColumn("event_id")
            .shardKeyColumn("tenant")
            .shardKeyType(KeyType.TEXT)
            .shards(8)
            .build();

    @Test
    void aTextOrUuidKeyNamesTheShardOfItsHash() {
        UUID account = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
        assertThat(ShardKeys.shards(TEXT, List.of("tenant-1", account)))
                .containsExactlyInAnyOrder(TextKeys.shardOf("tenant-1", 8), TextKeys.shardOf(account.toString(), 8));
        // MD5("abc") starts 90 01 50 98: 2 416 005 272, which is 0 modulo 8
        assertThat(TextKeys.shardOf("abc", 8)).isZero();
        assertThat(TextKeys.shardOf("abc", 7)).isEqualTo((int) (2_416_005_272L % 7));
    }

    @Test
    void aWholeNumberForATextKeySaysWhatToPass() {
        assertThatThrownBy(() -> ShardKeys.shards(TEXT, List.of(17L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("its shard key tenant is text (shard-key-type: text)")
                .hasMessageContaining("pass the row's tenant as a String or UUID");
    }

    @Test
    void keysThatDifferAreToldApart() {
        assertThat(TextKeys.identity("tenant-1")).isNotEqualTo(TextKeys.identity("tenant-2"));
        assertThat(TextKeys.identity(UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e")))
                .isEqualTo(TextKeys.identity("0f8fad5b-d9cb-469f-a165-70867728950e"));
    }
}
