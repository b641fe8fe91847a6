package io.shardscan.core;

/**
 * A task's free workers spread over the rounds one dispatcher pass starts, without a node-wide
 * {@link WorkerBudget}: each round gets {@code free / rounds}, the first ones in the pass's rotation
 * one more while the division leaves a rest, and at least one each while workers last (8 over 2
 * rounds: 4 and 4; 8 over 3: 3, 3 and 2; 2 over 3: 1, 1 and none). Before, the first round took
 * every free worker and the second waited for one of its lanes to end, then ran its whole page on
 * that one worker (see docs/guides/how-it-runs.md, "Free workers over due shards", for the
 * measurement). One pass's, not thread-safe.
 */
final class WorkerShares {

    private int left;
    private int rounds;

    /**
     * @param free the task's workers the dispatcher took for this pass
     * @param rounds the rounds the pass is about to start
     */
    WorkerShares(int free, int rounds) {
        this.left = free;
        this.rounds = rounds;
    }

    /** The next round's share, taken from those left; 0 once none is left. */
    int next() {
        if (left == 0 || rounds == 0) {
            return 0;
        }
        int starting = Math.min(rounds, left);
        int share = (left + starting - 1) / starting;
        left -= share;
        rounds--;
        return share;
    }

    /** The next round does not start after all (its shard is no longer idle): the others share its workers. */
    void skip() {
        rounds = Math.max(0, rounds - 1);
    }

    /** The workers no round took yet, which the dispatcher gives back. */
    int left() {
        return left;
    }
}
