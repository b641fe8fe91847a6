package io.shardscan.bench;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Who owns which shard, read from the coordinator, and whether that is a balanced assignment. */
final class Leases {

    private Leases() {}

    /** Shard to owner, for the shards with a live lease. */
    static Map<Integer, String> owners(ShardCoordinator coordinator, String task) {
        Map<Integer, String> owners = new TreeMap<>();
        for (LeaseInfo lease : coordinator.leases(task)) {
            if (lease.owner() != null) {
                owners.put(lease.shard(), lease.owner());
            }
        }
        return owners;
    }

    /** Every shard owned by one of {@code nodes}, each holding ⌊N/k⌋ or ⌈N/k⌉. */
    static boolean balanced(Map<Integer, String> owners, Collection<String> nodes, int shards) {
        if (owners.size() != shards) {
            return false;
        }
        Map<String, Integer> counts = new HashMap<>();
        for (String owner : owners.values()) {
            if (!nodes.contains(owner)) {
                return false;
            }
            counts.merge(owner, 1, Integer::sum);
        }
        int floor = shards / nodes.size();
        int ceil = (shards + nodes.size() - 1) / nodes.size();
        return counts.size() == nodes.size() && counts.values().stream().allMatch(c -> c >= floor && c <= ceil);
    }
}
