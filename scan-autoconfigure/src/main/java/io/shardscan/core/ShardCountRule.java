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
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The one rule on shard counts: which count a task's cluster runs, computed by every node from the
 * same tick (members with their published counts, and the leases), so that all of them agree without
 * talking. Members that published no count (an older version) are ignored.
 *
 * <p>A split: when the live members run exactly two counts and the larger is a multiple of the smaller
 * ({@code 8} and {@code 16}), and the task scans one table, every node takes part. Shards are assigned
 * in the smaller count (the parents); a node of the larger count that is given parent {@code p} claims
 * its children {@code p, p + N, p + 2N, ...} (their rows are exactly the parent's), the parent's own
 * lease first, so that no node of the other count holds it. The fence ({@link
 * io.shardscan.core.spi.TaskStore#fence}) keeps the two counts apart when a lease lapses: a child is not
 * fenced while its parent's fence is the smaller count's, and a parent's fence ends its children's.
 * Once the last node of the smaller count is gone, the larger count's nodes share its shards as usual;
 * so a rolling restart with {@code shards} doubled moves work parent by parent, with no idle window.
 *
 * <p>Any other mix: the count of the live member holding the lowest-numbered live lease wins; while no
 * live member holds one, the count of the live member with the lowest node id. A node with another
 * count claims nothing: the cluster never runs two such counts at once, and never stalls entirely,
 * since the winning count always has a node. When the last node of the winning count leaves, its
 * leases lapse and the next tick picks the other count.
 */
final class ShardCountRule {

    private ShardCountRule() {}

    /**
     * One tick's verdict for a node.
     *
     * @param conflict why this node must claim nothing, or {@code null} when it runs the winning count
     * @param peers the members among which the shards are assigned; only this node while in conflict
     * @param parents the count the shards are assigned in: this node's own count, or in a split the
     *     smaller one, whose shard {@code p} a node of the larger count holds as its children
     * @param splitInto in a split (two counts at once, one dividing the other), the larger count; 0 otherwise
     */
    record Verdict(@Nullable ShardCountConflict conflict, List<Member> peers, int parents, int splitInto) {

        boolean split() {
            return splitInto > 0;
        }
    }

    /**
     * @param splits whether two counts of which one divides the other may run at once (a task of one
     *     table: a sharded task's logical shards are numbered per table, so they do not split in place)
     */
    static Verdict judge(String node, int shards, List<Member> live, List<LeaseInfo> leases, boolean splits) {
        Map<String, Integer> counts = new HashMap<>();
        for (Member m : live) {
            NodeCounters c = m.counters();
            if (c != null && c.knowsShards()) {
                counts.put(m.node(), c.shards());
            }
        }
        TreeSet<Integer> running = new TreeSet<>(counts.values());
        running.add(shards);
        if (splits && running.size() == 2 && running.last() % running.first() == 0) {
            return new Verdict(null, live, running.first(), running.last());
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
            return new Verdict(null, peers, shards, 0);
        }
        List<String> others = live.stream()
                .map(Member::node)
                .filter(n -> Objects.equals(counts.get(n), winning))
                .sorted()
                .toList();
        List<Member> self = live.stream().filter(m -> m.node().equals(node)).toList();
        return new Verdict(new ShardCountConflict(shards, winning, others), self, shards, 0);
    }
}
