package io.shardscan.core.task;

/**
 * Thrown by a handler when the row's receiver cannot be reached (connection refused, connect
 * timeout, 503): the failure is the endpoint's, not the row's, and counts towards the endpoint's
 * blacklist. The row fails as with any exception. A handler may return
 * {@link Outcome#endpointDown(String)} instead.
 */
public class EndpointUnavailableException extends RuntimeException {

    public EndpointUnavailableException(String message) {
        super(message);
    }

    public EndpointUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
