package io.shardscan.core;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Splits a page into lanes by shard key, or by endpoint for a task with an endpoint column (for
 * connection reuse, and so a down endpoint holds one lane), keeping id order within each lane.
 * With per-key order a key whose rows go to several endpoints joins their lanes: a key's rows
 * always share a lane, so they run one after the other.
 */
final class Lanes {
    private Lanes() {}

    static List<List<Row>> split(List<Row> page, int count, @Nullable EndpointRules endpoints, boolean perKey) {
        if (endpoints == null) {
            return split(page, count);
        }
        int[] parent = new int[count];
        for (int i = 0; i < count; i++) {
            parent[i] = i;
        }
        int[] laneOf = new int[page.size()];
        Map<Long, Integer> keyLane = perKey ? new HashMap<>() : Map.of();
        for (int i = 0; i < page.size(); i++) {
            Row row = page.get(i);
            int hash = Objects.hashCode(endpoints.endpointOf(row));
            int lane = Math.floorMod(hash ^ (hash >>> 16), count);
            laneOf[i] = lane;
            if (perKey) {
                Integer other = keyLane.putIfAbsent(row.shardKey(), lane);
                if (other != null) {
                    parent[root(parent, other)] = root(parent, lane);
                }
            }
        }
        List<List<Row>> lanes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lanes.add(new ArrayList<>());
        }
        for (int i = 0; i < page.size(); i++) {
            lanes.get(root(parent, laneOf[i])).add(page.get(i));
        }
        lanes.removeIf(List::isEmpty);
        return lanes;
    }

    private static int root(int[] parent, int lane) {
        while (parent[lane] != lane) {
            parent[lane] = parent[parent[lane]];
            lane = parent[lane];
        }
        return lane;
    }

    static List<List<Row>> split(List<Row> page, int count) {
        List<List<Row>> lanes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lanes.add(new ArrayList<>());
        }
        for (Row row : page) {
            lanes.get(laneOf(row.shardKey(), count)).add(row);
        }
        lanes.removeIf(List::isEmpty);
        return lanes;
    }

    /**
     * The lane of a shard key among {@code count}, by a mixed hash of the key: the keys of one shard
     * are all {@code s mod shards}, so the key itself {@code mod count} put them into {@code
     * count / gcd(shards, count)} lanes (one lane of 8 with the default 64 shards: a round ran its
     * whole page on one worker and gave the other seven back).
     */
    static int laneOf(long shardKey, int count) {
        // murmur3's 64-bit finalizer: every bit of the key moves the low bits
        long h = shardKey;
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) Math.floorMod(h, (long) count);
    }
}
