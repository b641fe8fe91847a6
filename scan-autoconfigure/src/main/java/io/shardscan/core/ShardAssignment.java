package io.shardscan.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rendezvous hashing with bounded load: every shard goes to the live member that scores highest
 * for it, unless that member is full, so each of k members ends with ⌊N/k⌋ or ⌈N/k⌉ shards.
 * The result depends only on the member set, so every node computes the same one; pairs are
 * taken by descending score across all shards, which keeps the shards a join or leave moves
 * close to the minimum. Stateless and thread-safe.
 */
public final class ShardAssignment {

    private ShardAssignment() {}

    /**
     * Assigns {@code shards} shards to {@code members}.
     *
     * @return shard index to member, one entry per shard; empty when there are no members
     */
    public static String[] assign(List<String> members, int shards) {
        String[] owners = new String[shards];
        if (members.isEmpty()) {
            return owners;
        }
        List<String> nodes = members.stream().distinct().sorted().toList();
        int k = nodes.size();
        int base = shards / k;
        int extra = shards % k;
        long[] nodeHashes = nodes.stream().mapToLong(ShardAssignment::fnv1a).toArray();
        List<long[]> pairs = new ArrayList<>(shards * k);
        for (int shard = 0; shard < shards; shard++) {
            for (int n = 0; n < k; n++) {
                pairs.add(new long[] {score(nodeHashes[n], shard), shard, n});
            }
        }
        pairs.sort(Comparator.<long[]>comparingLong(p -> p[0]).reversed().thenComparingLong(p -> p[1]));
        int[] load = new int[k];
        int extraUsed = 0;
        for (long[] pair : pairs) {
            int shard = (int) pair[1];
            int n = (int) pair[2];
            if (owners[shard] != null) {
                continue;
            }
            if (load[n] < base) {
                load[n]++;
                owners[shard] = nodes.get(n);
            } else if (load[n] == base && extraUsed < extra) {
                load[n]++;
                extraUsed++;
                owners[shard] = nodes.get(n);
            }
        }
        return owners;
    }

    /** The shards {@code node} is assigned among {@code members}, ascending. */
    public static List<Integer> shardsOf(String node, List<String> members, int shards) {
        String[] owners = assign(members, shards);
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
