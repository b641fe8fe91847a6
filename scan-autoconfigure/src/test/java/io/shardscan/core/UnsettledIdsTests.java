package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The holes a following scan reads again once they are settled, and only those. */
class UnsettledIdsTests {

    @Test
    void aPageWithoutHolesSettlesWithoutASecondRead() {
        UnsettledIds ids = new UnsettledIds(0);
        for (long id = 1; id <= 10; id++) {
            ids.passed(id - 1, id);
        }
        assertThat(ids.from(10, Long.MIN_VALUE))
                .as("nothing settled yet: read on")
                .isEqualTo(10);
        assertThat(ids.settled()).isZero();

        assertThat(ids.from(10, 10)).isEqualTo(10);
        assertThat(ids.settled()).isEqualTo(10);
    }

    @Test
    void aHoleIsReadAgainOnceSettledAndItsLateRowRunsOnce() {
        UnsettledIds ids = new UnsettledIds(0);
        ids.passed(0, 1);
        ids.passed(1, 5); // 2-4 missing
        ids.passed(5, 6);

        assertThat(ids.from(6, 3)).as("the hole starts at 2: read from 1").isEqualTo(1);
        assertThat(ids.runs(3, 6)).as("3 committed late").isTrue();
        assertThat(ids.runs(3, 6)).as("and runs once").isFalse();
        assertThat(ids.runs(5, 6)).as("5 ran before").isFalse();
        ids.read(1, 6, 3);
        assertThat(ids.settled()).isEqualTo(3);

        assertThat(ids.from(6, 6)).as("4 is still a hole, past the bound then").isEqualTo(3);
        assertThat(ids.runs(4, 6)).isTrue();
        ids.read(3, 6, 6);
        assertThat(ids.settled()).isEqualTo(6);
        assertThat(ids.from(6, 100)).isEqualTo(6);
    }

    @Test
    void aShortPageSettlesToTheRangesEndOnceTheBoundPassedIt() {
        UnsettledIds ids = new UnsettledIds(99);
        ids.passed(99, 100);
        long from = ids.from(100, 150);
        ids.read(from, 199, 150);
        assertThat(ids.settled()).isEqualTo(150);
        ids.read(ids.from(100, 400), 199, 400);
        assertThat(ids.settled()).isEqualTo(199);
    }
}
