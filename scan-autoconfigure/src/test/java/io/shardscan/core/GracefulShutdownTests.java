package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A graceful stop on H2 with JDBC leases. */
class GracefulShutdownTests extends GracefulShutdownContractTests {

    final DataSource h2 = TestServers.h2("graceful_shutdown");

    @Override
    protected DataSource dataSource() {
        return h2;
    }

    @Override
    protected ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(h2);
    }

    @Override
    protected String taskName() {
        return "orders";
    }

    // the log of a lease lost during the stop is engine behaviour: tested on one coordinator, for the suite's time

    @Test
    void aLeaseRefusedDuringTheStopIsNotNamedAsReleased() {
        aLeaseLostDuringTheStopIsNotNamedAsReleased(() -> renewalsOfA.refuse = true);
    }

    /** The hanging renewal holds the stop up no longer than the call: the stop interrupts it. */
    @Test
    void aLeaseThatLapsedWhileItsRenewalHungIsNotNamedAsReleased() {
        aLeaseLostDuringTheStopIsNotNamedAsReleased(() -> renewalsOfA.hang = true);
    }
}
