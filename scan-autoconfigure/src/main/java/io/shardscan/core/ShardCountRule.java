package io.shardscan.core;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCountConflict;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one rule on shard counts: which count a task's cluster runs, computed by every node from the
 * same tick (members with their published counts, and the leases), so that all of them agree without
 * talking. The count of the live member holding the lowest-numbered live lease wins; while no live
 * member holds one, the count of the live member with the lowest node id. Members that published no
 * count (an older version) are ignored. A node with another count claims nothing: the cluster never
 * runs two counts at once, and never stalls entirely, since the winning count always has a node. When
 * the last node of the winning count leaves, its leases lapse and the next tick picks the other count.
 */
final class ShardCountRule {

    private ShardCountRule() {}

    /**
     * One tick's verdict for a node.
     *
     * @param conflict why this node must claim nothing, or {@code null} when it runs the winning count
     * @param peers the members that share this node's count (or published none), among which the
     *     shards are assigned; only this node while in conflict
     */
    record Verdict(@Nullable ShardCountConflict conflict, List<Member> peers) {}

    static Verdict judge(String node, int shards, List<Member> live, List<LeaseInfo> leases) {
        Map<String, Integer> counts = new HashMap<>();
        for (Member m : live) {
            NodeCounters c = m.counters();
            if (c != null && c.knowsShards()) {
                counts.put(m.node(), c.shards());
            }
        }
        int winning = leases.stream()
                .filter(l -> l.owner() != null && counts.containsKey(l.owner()))
                .min(Comparator.comparingInt(LeaseInfo::shard))
                .map(l -> counts.get(l.owner()))
                .orElseGet(() -> live.stream()
                        .map(Member::node)
                        .filter(counts::containsKey)
                        .min(Comparator.naturalOrder())
                        .map(counts::get)
                        .orElse(shards));
        if (winning == shards) {
            List<Member> peers = live.stream()
                    .filter(m -> Objects.equals(counts.getOrDefault(m.node(), shards), shards))
                    .toList();
            return new Verdict(null, peers);
        }
        List<String> others = live.stream()
                .map(Member::node)
                .filter(n -> Objects.equals(counts.get(n), winning))
                .sorted()
                .toList();
        List<Member> self = live.stream().filter(m -> m.node().equals(node)).toList();
        return new Verdict(new ShardCountConflict(shards, winning, others), self);
    }
}
