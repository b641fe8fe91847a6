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
        List<Member> live = List.of(member("node-a", 16), member("node-b", 32));
        List<LeaseInfo> leases = List.of(lease(0, "node-a"), lease(1, "node-a"));

        assertThat(ShardCountRule.judge("node-a", 16, live, leases).conflict()).isNull();
        assertThat(ShardCountRule.judge("node-a", 16, live, leases).peers())
                .extracting(Member::node)
                .as("the shards are shared only among nodes of the winning count")
                .containsExactly("node-a");
        assertThat(ShardCountRule.judge("node-b", 32, live, leases).conflict())
                .isEqualTo(new ShardCountConflict(32, 16, List.of("node-a")));
    }

    @Test
    void whenBothCountsHoldLeasesTheHolderOfTheLowestNumberedLeaseWinsOnEveryNode() {
        List<Member> live = List.of(member("node-a", 16), member("node-b", 32));
        List<LeaseInfo> leases = List.of(lease(20, "node-a"), lease(3, "node-a"), lease(2, "node-b"), lease(1, null));

        assertThat(ShardCountRule.judge("node-b", 32, live, leases).conflict()).isNull();
        assertThat(ShardCountRule.judge("node-a", 16, live, leases).conflict())
                .isEqualTo(new ShardCountConflict(16, 32, List.of("node-b")));
    }

    @Test
    void withoutLeasesTheLowestNodeIdWinsAndLeasesOfGoneNodesCountForNothing() {
        List<Member> live = List.of(member("node-a", 16), member("node-b", 32));
        List<LeaseInfo> leases = List.of(lease(0, "node-gone"));

        assertThat(ShardCountRule.judge("node-a", 16, live, leases).conflict()).isNull();
        assertThat(ShardCountRule.judge("node-b", 32, live, leases).conflict()).isNotNull();
    }

    @Test
    void aNodeAloneRunsItsCountAndMembersWithoutACountShareWithEveryone() {
        List<LeaseInfo> leases = List.of(lease(0, "node-a"));
        assertThat(ShardCountRule.judge("node-b", 32, List.of(member("node-b", 32)), leases)
                        .conflict())
                .isNull();

        List<Member> live = List.of(new Member("node-a", NOW, new NodeCounters(0, 0, 0, 0)), member("node-b", 32));
        ShardCountRule.Verdict verdict = ShardCountRule.judge("node-b", 32, live, leases);
        assertThat(verdict.conflict())
                .as("a node of an older version publishes no count")
                .isNull();
        assertThat(verdict.peers()).extracting(Member::node).containsExactly("node-a", "node-b");
    }

    private static Member member(String node, int shards) {
        return new Member(node, NOW, new NodeCounters(0, 0, 0, 0, shards));
    }

    private static LeaseInfo lease(int shard, String owner) {
        return new LeaseInfo(shard, owner, 1, owner == null ? null : NOW.plusSeconds(5));
    }
}
