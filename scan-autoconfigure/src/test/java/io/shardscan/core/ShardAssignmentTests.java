package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.ShardAssignment;
import java.util.ArrayList;
import java.util.List;
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

    private static long moved(String[] before, String[] after) {
        return IntStream.range(0, before.length)
                .filter(s -> !before[s].equals(after[s]))
                .count();
    }
}
