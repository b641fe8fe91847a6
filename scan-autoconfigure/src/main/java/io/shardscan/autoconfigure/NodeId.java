package io.shardscan.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadLocalRandom;

/** The default node id, {@code hostname-pid-xxxx}: readable in the endpoint, unique across restarts. */
final class NodeId {

    private NodeId() {}

    static String generate() {
        return host() + "-" + ProcessHandle.current().pid() + "-"
                + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
    }

    private static String host() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return host;
    }
}
