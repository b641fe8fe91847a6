package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.shardscan.core.spi.ShardAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShardAssignmentTests {

    @Test
    void threeNodesOnSixtyFourShardsHold21Or22Each() {
        String[] owners = ShardAssignment.assign(List.of("b", "a", "c"), 64);
        assertThat(ShardAssignment.loads(owners).values()).containsExactlyInAnyOrder(21, 21, 22);
        assertThat(owners).doesNotContainNull();
    }

    @Test
    void everyNodeComputesTheSameAssignmentFromAnyOrder() {
        assertThat(ShardAssignment.assign(List.of("n1", "n2", "n3", "n4"), 64))
                .containsExactly(ShardAssignment.assign(List.of("n4", "n2", "n1", "n3"), 64));
    }

    @Test
    void eachJoinUpToEightNodesMovesAtMostOneShardMoreThanNeeded() {
        List<String> members = new ArrayList<>(List.of("node-1"));
        String[] before = ShardAssignment.assign(members, 64);
        for (int k = 2; k <= 8; k++) {
            members.add("node-" + k);
            String[] after = ShardAssignment.assign(members, before);
            long moved = moved(before, after);
            int minimum = 64 / k;
            assertThat(moved).as("moves when node %d joins", k).isEqualTo(minimum);
            int floor = 64 / k;
            int ceil = (64 + k - 1) / k;
            assertThat(ShardAssignment.loads(after).values())
                    .allSatisfy(n -> assertThat(n).isBetween(floor, ceil));
            before = after;
        }
    }

    @Test
    void aLeavingNodesShardsAreTheOnlyOnesThatMoveBeyondOne() {
        List<String> four = List.of("a", "b", "c", "d");
        String[] before = ShardAssignment.assign(four, 64);
        String[] after = ShardAssignment.assign(List.of("a", "b", "c"), before);
        long left = IntStream.range(0, 64).filter(s -> before[s].equals("d")).count();
        assertThat(moved(before, after)).isLessThanOrEqualTo(left + 1);
    }

    @Test
    void aShardHeldByADeadMemberGoesToALiveOne() {
        String[] current = ShardAssignment.assign(List.of("a", "b"), 8);
        String[] after = ShardAssignment.assign(List.of("a"), current);
        assertThat(after).containsOnly("a");
    }

    @Test
    void weightedMembersTakeShardsInProportionLargestRemaindersFirst() {
        String[] owners = ShardAssignment.assign(Map.of("big", 2, "small-1", 1, "small-2", 1), new String[64]);
        assertThat(ShardAssignment.loads(owners))
                .containsOnly(entry("big", 32), entry("small-1", 16), entry("small-2", 16));
        String[] uneven = ShardAssignment.assign(Map.of("a", 3, "b", 1, "c", 1), new String[64]);
        // 64·3/5 = 38.4, 64/5 = 12.8 twice: the two remainders of .8 get the two shards left
        assertThat(ShardAssignment.loads(uneven)).containsOnly(entry("a", 38), entry("b", 13), entry("c", 13));
    }

    @Test
    void equalWeightsAssignAsMembersWithoutWeights() {
        List<String> members = List.of("a", "b", "c");
        String[] current = ShardAssignment.assign(List.of("a", "b"), 64);
        assertThat(ShardAssignment.assign(Map.of("a", 1, "b", 1, "c", 1), current))
                .containsExactly(ShardAssignment.assign(members, current));
    }

    @Test
    void aWeightedJoinOrLeaveMovesOnlyTheShardsItMust() {
        Map<String, Integer> weights = new HashMap<>(Map.of("a", 1, "b", 1));
        String[] before = ShardAssignment.assign(weights, new String[64]);
        weights.put("big", 2);
        String[] joined = ShardAssignment.assign(weights, before);
        assertThat(ShardAssignment.loads(joined)).containsOnly(entry("a", 16), entry("b", 16), entry("big", 32));
        assertThat(moved(before, joined))
                .as("a join of weight 2 among two of weight 1 moves half")
                .isEqualTo(32);

        weights.remove("a");
        String[] left = ShardAssignment.assign(weights, joined);
        // b: 64/3 = 21.3, big: 42.6: big gets the one left over
        assertThat(ShardAssignment.loads(left)).containsOnly(entry("b", 21), entry("big", 43));
        long heldByA = IntStream.range(0, 64).filter(s -> joined[s].equals("a")).count();
        assertThat(moved(joined, left)).as("only a's shards move").isEqualTo(heldByA);
    }

    /** A node that rejoined after its shards went to the others (failover) gets none back while it holds back. */
    @Test
    void aMemberHoldingBackTakesNoShardTheOthersHold() {
        Map<String, Integer> weights = Map.of("a", 1, "b", 1, "c", 1);
        String[] failedOver = ShardAssignment.assign(List.of("a", "c"), 64);

        String[] held = ShardAssignment.assign(weights, failedOver, Set.of("b"));

        assertThat(held).containsExactly(failedOver);
        assertThat(ShardAssignment.shardsOf("b", weights, failedOver, Set.of("b")))
                .isEmpty();
        // once the hold ends, the assignment is the one without it: the minimal movement of a join
        assertThat(ShardAssignment.assign(weights, failedOver, Set.of()))
                .containsExactly(ShardAssignment.assign(weights, failedOver));
        assertThat(moved(failedOver, ShardAssignment.assign(weights, failedOver)))
                .isEqualTo(21);
    }

    /** Free shards and a dead member's go to the members not holding back, as the balanced assignment among them. */
    @Test
    void freeShardsGoToTheMembersNotHoldingBack() {
        Map<String, Integer> weights = Map.of("a", 1, "b", 1, "c", 1);
        String[] current = ShardAssignment.assign(List.of("a", "c"), 64);
        for (int shard = 0; shard < 64; shard += 2) {
            current[shard] = shard % 4 == 0 ? null : "gone";
        }

        String[] owners = ShardAssignment.assign(weights, current, Set.of("b"));

        assertThat(owners).doesNotContainNull().containsOnly("a", "c");
        String[] amongSteady = ShardAssignment.assign(Map.of("a", 1, "c", 1), current);
        IntStream.range(0, 64).forEach(s -> assertThat(owners[s])
                .as("shard %d", s)
                .isEqualTo(current[s] == null || current[s].equals("gone") ? amongSteady[s] : current[s]));
    }

    /** With no steady member left the one holding back takes every shard: a hold never leaves a shard unowned. */
    @Test
    void aMemberHoldingBackAloneTakesEveryShard() {
        String[] current = ShardAssignment.assign(List.of("a", "b"), 64);

        assertThat(ShardAssignment.assign(Map.of("b", 1), current, Set.of("b"))).containsOnly("b");
    }

    /** After a coordinator outage every node rejoined: none holds back, the shards balance as without holds. */
    @Test
    void whenEveryMemberHoldsBackNoneDoes() {
        Map<String, Integer> weights = Map.of("a", 1, "b", 1);
        String[] current = ShardAssignment.assign(List.of("a"), 64);

        assertThat(ShardAssignment.assign(weights, current, Set.of("a", "b")))
                .containsExactly(ShardAssignment.assign(weights, current));
    }

    private static long moved(String[] before, String[] after) {
        return IntStream.range(0, before.length)
                .filter(s -> !before[s].equals(after[s]))
                .count();
    }
}
