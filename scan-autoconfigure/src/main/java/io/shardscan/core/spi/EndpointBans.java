package io.shardscan.core.spi;

import java.time.Duration;
import java.util.List;

/**
 * Where the level-2 blacklist of endpoints lives, shared by every node of a task: the trips of
 * each endpoint and its ban. The engine decides when a trip happens and when trips make a ban;
 * a store only records them, with its own clock (never a node's), and tells which bans are still
 * in force. Implementations are thread-safe.
 */
public interface EndpointBans {

    /**
     * Records one level-1 trip of {@code endpoint} now, forgets its trips older than {@code window},
     * and counts the rest.
     *
     * @return the endpoint's trips within {@code window}, this one included
     */
    int trip(String task, String endpoint, Duration window);

    /**
     * Bans {@code endpoint} from now for {@code ban} with {@code reason} and forgets its trips; a
     * ban already recorded keeps its start. Of nodes banning one endpoint at once, one starts the
     * ban and the others extend it.
     *
     * @return whether this call started the ban: {@code false} when a ban (or its probe's hold)
     *     was in force, which this call extended
     */
    boolean ban(String task, String endpoint, Duration ban, String reason);

    /**
     * The task's bans, each with whether it is still in force.
     *
     * @return the bans, in endpoint order; empty when none
     */
    List<EndpointBan> bans(String task);

    /**
     * Claims the probe of a ban that is no longer in force: extends it by {@code hold}, so that
     * other nodes keep excluding the endpoint while the caller lets one row through. Of callers
     * racing for one probe, one wins.
     *
     * @return whether the caller won the probe; {@code false} when the ban is in force or gone
     */
    boolean claimProbe(String task, String endpoint, Duration hold);

    /**
     * Lifts the ban of {@code endpoint} and forgets its trips.
     *
     * @return whether there was a ban
     */
    boolean lift(String task, String endpoint);
}
