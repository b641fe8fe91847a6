package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.Row;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How a page of a task without an endpoint column is split into lanes by shard key. */
class LanesTests {

    @Test
    void theKeysOfOneShardFillEveryLane() {
        // shard 5 of 64: every key is 5 mod 64, so the key mod 8 alone is one lane
        for (int shards : new int[] {2, 8, 64}) {
            List<Row> page = new ArrayList<>();
            for (long key = 5 % shards, id = 1; page.size() < 200; key += shards, id++) {
                page.add(new Row(id, key, 0, Map.of()));
            }
            for (int count : new int[] {2, 4, 8}) {
                assertThat(Lanes.split(page, count, null, true))
                        .as("lanes of %d holding 200 keys of one shard of %d", count, shards)
                        .hasSize(count);
            }
        }
    }

    @Test
    void aKeysRowsShareALaneInIdOrder() {
        List<Row> page = new ArrayList<>();
        for (long id = 1; id <= 300; id++) {
            page.add(new Row(id, id % 17 - 8, 0, Map.of()));
        }
        List<List<Row>> lanes = Lanes.split(page, 8, null, true);
        Set<Long> seen = new HashSet<>();
        for (List<Row> lane : lanes) {
            assertThat(lane).isSortedAccordingTo((a, b) -> Long.compare(a.id(), b.id()));
            Set<Long> keys = new HashSet<>();
            lane.forEach(row -> keys.add(row.shardKey()));
            assertThat(keys).as("keys of one lane found in another").noneMatch(seen::contains);
            seen.addAll(keys);
        }
        assertThat(lanes.stream().mapToInt(List::size).sum()).isEqualTo(300);
    }

    @Test
    void aLaneIsWithinTheCountForAnyKey() {
        for (long key : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
            assertThat(Lanes.laneOf(key, 7)).isBetween(0, 6);
        }
    }
}
