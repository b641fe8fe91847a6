package io.shardscan.core.task;

/**
 * Which handler failures are the receiver's fault rather than the row's: such a failure counts
 * towards the endpoint's blacklist (level 1, then level 2) instead of only backing the row off. The
 * engine asks {@link #DEFAULT} and every classifier the application adds (with the auto-configuration,
 * each bean of this type); a failure is the endpoint's when any says so. Implementations are
 * thread-safe and fast: they run on a worker for every failed call.
 */
@FunctionalInterface
public interface EndpointDownClassifier {

    /**
     * An {@link EndpointUnavailableException}, a refused connection, an unknown host, or a call that
     * timed out (connecting or waiting for the answer: a receiver that hangs is as down as one that
     * refuses), anywhere in the failure's causes.
     */
    EndpointDownClassifier DEFAULT = failure -> Causes.any(
            failure,
            t -> t instanceof EndpointUnavailableException
                    || t instanceof java.net.ConnectException
                    || t instanceof java.net.NoRouteToHostException
                    || t instanceof java.net.UnknownHostException
                    || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.http.HttpTimeoutException);

    /** Whether {@code failure}, which a handler threw, means its receiver is down. */
    boolean endpointDown(Throwable failure);

    /** A classifier that says a failure is the endpoint's when this one or {@code other} does. */
    default EndpointDownClassifier or(EndpointDownClassifier other) {
        return failure -> endpointDown(failure) || other.endpointDown(failure);
    }

    /** A throwable's causes, itself first. */
    final class Causes {

        private Causes() {}

        /** Whether {@code test} holds for {@code failure} or any of its causes. */
        public static boolean any(Throwable failure, java.util.function.Predicate<Throwable> test) {
            for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (test.test(t)) {
                    return true;
                }
            }
            return false;
        }
    }
}
