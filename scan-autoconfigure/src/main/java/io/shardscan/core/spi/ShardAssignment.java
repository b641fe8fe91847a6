package io.shardscan.core.spi;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rendezvous hashing with bounded load, sticky to the current leases: each of k live members gets
 * ⌊N/k⌋ or ⌈N/k⌉ shards, or with weights its share of N in proportion to its weight, rounded down or
 * up (largest remainders first); a member keeps the shards it holds up to its share (the ones it
 * scores highest), and only the rest (free, held by a dead member, or shed by a member over its
 * share) go to members under their share, by descending rendezvous score. So a join or leave moves
 * exactly the shards it must. The result depends only on the members with their weights and the
 * current owners, so every node that reads the same leases computes the same assignment. A member
 * that holds back after rejoining ({@link NodeCounters#holdingBack()}) takes no shard a member that
 * does not hold back holds: that one keeps it until the hold ends, and then the assignment is the one
 * without holds. Stateless and thread-safe.
 */
public final class ShardAssignment {

    private ShardAssignment() {}

    /**
     * Assigns {@code shards} shards to {@code members} from scratch.
     *
     * @return shard index to member, one entry per shard; all {@code null} when there are no members
     */
    public static String[] assign(List<String> members, int shards) {
        return assign(members, new String[shards]);
    }

    /**
     * Assigns shards to {@code members}, moving as few as possible away from {@code current}.
     *
     * @param current shard index to its current owner, {@code null} for a free shard
     * @return shard index to member, one entry per shard; all {@code null} when there are no members
     */
    public static String[] assign(List<String> members, String[] current) {
        return assign(equalWeights(members), current);
    }

    /**
     * Assigns shards to the members, each taking shards in proportion to its weight, moving as few as
     * possible away from {@code current}.
     *
     * @param weights member to its weight, at least 1
     * @param current shard index to its current owner, {@code null} for a free shard
     * @return shard index to member, one entry per shard; all {@code null} when there are no members
     */
    public static String[] assign(Map<String, Integer> weights, String[] current) {
        return assign(weights, current, Set.of());
    }

    /**
     * As {@link #assign(Map, String[])}, with the members of {@code holdingBack} taking no shard they do
     * not hold while a member that does not hold back (a steady one) is there: a shard the balanced
     * assignment gives to one of them stays with its current owner if that is a steady member, and a
     * free shard or a gone member's goes to a steady member (as the balanced assignment among the
     * steady ones has it). A shard held by a member that holds back itself goes as without holds; and
     * when every member holds back (all rejoined after a coordinator outage) none does, so a hold never
     * leaves a shard unowned.
     *
     * @param holdingBack the members that hold back; members outside {@code weights} are ignored
     * @return shard index to member, one entry per shard; all {@code null} when there are no members
     */
    public static String[] assign(Map<String, Integer> weights, String[] current, Set<String> holdingBack) {
        String[] owners = balanced(weights, current);
        Map<String, Integer> steady = new HashMap<>(weights);
        steady.keySet().removeAll(holdingBack);
        if (steady.size() == weights.size() || steady.isEmpty()) {
            return owners;
        }
        String[] amongSteady = null;
        for (int shard = 0; shard < owners.length; shard++) {
            String owner = current[shard];
            if (steady.containsKey(owners[shard]) || owners[shard].equals(owner)) {
                continue;
            }
            if (owner != null && steady.containsKey(owner)) {
                owners[shard] = owner;
            } else if (owner == null || !weights.containsKey(owner)) {
                if (amongSteady == null) {
                    amongSteady = balanced(steady, current);
                }
                owners[shard] = amongSteady[shard];
            }
        }
        return owners;
    }

    private static String[] balanced(Map<String, Integer> weights, String[] current) {
        int shards = current.length;
        String[] owners = new String[shards];
        if (weights.isEmpty()) {
            return owners;
        }
        List<String> nodes = weights.keySet().stream().sorted().toList();
        Map<String, Integer> capacity = capacities(nodes, weights, current);
        Map<String, Integer> load = new HashMap<>();
        for (String node : nodes) {
            List<Integer> held = new ArrayList<>();
            for (int shard = 0; shard < shards; shard++) {
                if (node.equals(current[shard])) {
                    held.add(shard);
                }
            }
            long hash = fnv1a(node);
            held.sort(Comparator.comparingLong((Integer s) -> score(hash, s)).reversed());
            held.stream().limit(capacity.get(node)).forEach(s -> owners[s] = node);
            load.put(node, Math.min(held.size(), capacity.get(node)));
        }
        List<long[]> pairs = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            if (owners[shard] != null) {
                continue;
            }
            for (int n = 0; n < nodes.size(); n++) {
                pairs.add(new long[] {score(fnv1a(nodes.get(n)), shard), shard, n});
            }
        }
        pairs.sort(Comparator.<long[]>comparingLong(p -> p[0]).reversed().thenComparingLong(p -> p[1]));
        for (long[] pair : pairs) {
            int shard = (int) pair[1];
            String node = nodes.get((int) pair[2]);
            if (owners[shard] == null && load.get(node) < capacity.get(node)) {
                owners[shard] = node;
                load.merge(node, 1, Integer::sum);
            }
        }
        return owners;
    }

    /**
     * Each member's share ⌊N·w/W⌋, and one more for the members with the largest remainders until the
     * shares sum to N (ties: the member that holds more shards now, then by id). With equal weights:
     * ⌈N/k⌉ for the N mod k members that hold the most shards now, ⌊N/k⌋ for the rest.
     */
    private static Map<String, Integer> capacities(List<String> nodes, Map<String, Integer> weights, String[] current) {
        Map<String, Integer> held = new HashMap<>();
        nodes.forEach(n -> held.put(n, 0));
        for (String owner : current) {
            if (owner != null && held.containsKey(owner)) {
                held.merge(owner, 1, Integer::sum);
            }
        }
        long total = nodes.stream().mapToLong(weights::get).sum();
        int shards = current.length;
        Map<String, Integer> capacity = new HashMap<>();
        Map<String, Long> remainder = new HashMap<>();
        int given = 0;
        for (String node : nodes) {
            long share = (long) shards * weights.get(node);
            capacity.put(node, (int) (share / total));
            remainder.put(node, share % total);
            given += (int) (share / total);
        }
        List<String> byRemainder = new ArrayList<>(nodes);
        byRemainder.sort(Comparator.comparing((String n) -> remainder.get(n))
                .reversed()
                .thenComparing(Comparator.comparing((String n) -> held.get(n)).reversed())
                .thenComparing(n -> n));
        for (int i = 0; i < shards - given; i++) {
            capacity.merge(byRemainder.get(i), 1, Integer::sum);
        }
        return capacity;
    }

    /** The shards {@code node} is assigned among {@code members} given the current owners, ascending. */
    public static List<Integer> shardsOf(String node, List<String> members, String[] current) {
        return shardsOf(node, equalWeights(members), current);
    }

    /** The same with each member's weight. */
    public static List<Integer> shardsOf(String node, Map<String, Integer> weights, String[] current) {
        return shardsOf(node, weights, current, Set.of());
    }

    /** The same with the members of {@code holdingBack} holding back, as {@link #assign(Map, String[], Set)}. */
    public static List<Integer> shardsOf(
            String node, Map<String, Integer> weights, String[] current, Set<String> holdingBack) {
        String[] owners = assign(weights, current, holdingBack);
        List<Integer> mine = new ArrayList<>();
        for (int shard = 0; shard < owners.length; shard++) {
            if (node.equals(owners[shard])) {
                mine.add(shard);
            }
        }
        return mine;
    }

    /** Shard counts per member, for logs and tests. */
    public static Map<String, Integer> loads(String[] owners) {
        Map<String, Integer> loads = new HashMap<>();
        Arrays.stream(owners).filter(o -> o != null).forEach(o -> loads.merge(o, 1, Integer::sum));
        return loads;
    }

    /** Every member at weight 1. */
    private static Map<String, Integer> equalWeights(List<String> members) {
        Map<String, Integer> weights = new HashMap<>();
        members.forEach(m -> weights.put(m, 1));
        return weights;
    }

    private static long score(long nodeHash, int shard) {
        long z = nodeHash ^ (shard * 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (z ^ (z >>> 31)) >>> 1;
    }

    private static long fnv1a(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
