package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCountConflict;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which shard count a cluster runs, as every node computes it from one tick's view. */
class ShardCountRuleTests {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void theCountOfTheLeaseHoldersWinsAndTheOtherNodeIdles() {
        List<Member> live = List.of(member("node-a", 16), member("node-b", 24));
        List<LeaseInfo> leases = List.of(lease(0, "node-a"), lease(1, "node-a"));

        assertThat(ShardCountRule.judge("node-a", 16, live, leases, true).conflict())
                .isNull();
        assertThat(ShardCountRule.judge("node-a", 16, live, leases, true).peers())
                .extracting(Member::node)
                .as("the shards are shared only among nodes of the winning count")
                .containsExactly("node-a");
        assertThat(ShardCountRule.judge("node-b", 24, live, leases, true).conflict())
                .isEqualTo(new ShardCountConflict(24, 16, List.of("node-a")));
    }

    @Test
    void whenBothCountsHoldLeasesTheHolderOfTheLowestNumberedLeaseWinsOnEveryNode() {
        List<Member> live = List.of(member("node-a", 16), member("node-b", 24));
        List<LeaseInfo> leases = List.of(lease(20, "node-a"), lease(3, "node-a"), lease(2, "node-b"), lease(1, null));

        assertThat(ShardCountRule.judge("node-b", 24, live, leases, true).conflict())
                .isNull();
        assertThat(ShardCountRule.judge("node-a", 16, live, leases, true).conflict())
                .isEqualTo(new ShardCountConflict(16, 24, List.of("node-b")));
    }

    @Test
    void withoutLeasesTheLowestNodeIdWinsAndLeasesOfGoneNodesCountForNothing() {
        List<Member> live = List.of(member("node-a", 16), member("node-b", 24));
        List<LeaseInfo> leases = List.of(lease(0, "node-gone"));

        assertThat(ShardCountRule.judge("node-a", 16, live, leases, true).conflict())
                .isNull();
        assertThat(ShardCountRule.judge("node-b", 24, live, leases, true).conflict())
                .isNotNull();
    }

    @Test
    void aNodeAloneRunsItsCountAndMembersWithoutACountShareWithEveryone() {
        List<LeaseInfo> leases = List.of(lease(0, "node-a"));
        assertThat(ShardCountRule.judge("node-b", 24, List.of(member("node-b", 24)), leases, true)
                        .conflict())
                .isNull();

        List<Member> live = List.of(new Member("node-a", NOW, new NodeCounters(0, 0, 0, 0)), member("node-b", 24));
        ShardCountRule.Verdict verdict = ShardCountRule.judge("node-b", 24, live, leases, true);
        assertThat(verdict.conflict())
                .as("a node of an older version publishes no count")
                .isNull();
        assertThat(verdict.peers()).extracting(Member::node).containsExactly("node-a", "node-b");
    }

    @Test
    void twoCountsOfWhichOneDividesTheOtherSplitAmongEveryNodeInTheSmallerCount() {
        List<Member> live = List.of(member("node-a", 8), member("node-b", 16), member("node-c", 16));
        List<LeaseInfo> leases = List.of(lease(0, "node-a"), lease(1, "node-b"), lease(9, "node-b"));

        for (String node : List.of("node-a", "node-b", "node-c")) {
            ShardCountRule.Verdict verdict =
                    ShardCountRule.judge(node, node.equals("node-a") ? 8 : 16, live, leases, true);
            assertThat(verdict.conflict()).as(node).isNull();
            assertThat(verdict.split()).as(node).isTrue();
            assertThat(verdict.parents())
                    .as("the parents are the smaller count's shards")
                    .isEqualTo(8);
            assertThat(verdict.peers()).extracting(Member::node).containsExactly("node-a", "node-b", "node-c");
        }
    }

    @Test
    void aShardedTaskThreeCountsOrCountsThatDoNotDivideEachOtherDoNotSplit() {
        List<LeaseInfo> leases = List.of(lease(0, "node-a"));
        List<Member> two = List.of(member("node-a", 8), member("node-b", 16));
        assertThat(ShardCountRule.judge("node-b", 16, two, leases, false).conflict())
                .as("a sharded task's logical shards are numbered per table")
                .isEqualTo(new ShardCountConflict(16, 8, List.of("node-a")));

        List<Member> three = List.of(member("node-a", 8), member("node-b", 16), member("node-c", 32));
        assertThat(ShardCountRule.judge("node-c", 32, three, leases, true).conflict())
                .isEqualTo(new ShardCountConflict(32, 8, List.of("node-a")));
        assertThat(ShardCountRule.judge("node-a", 8, three, leases, true).split())
                .isFalse();

        List<Member> apart = List.of(member("node-a", 8), member("node-b", 12));
        assertThat(ShardCountRule.judge("node-b", 12, apart, leases, true).conflict())
                .isEqualTo(new ShardCountConflict(12, 8, List.of("node-a")));
    }

    private static Member member(String node, int shards) {
        return new Member(node, NOW, new NodeCounters(0, 0, 0, 0, shards));
    }

    private static LeaseInfo lease(int shard, String owner) {
        return new LeaseInfo(shard, owner, 1, owner == null ? null : NOW.plusSeconds(5));
    }
}
