package io.shardscan.actuate;

import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.core.env.PropertyResolver;

/**
 * The one switch for the scan endpoint's write operations: Spring Boot's own
 * {@value #PROPERTY}, {@code unrestricted} to turn them on. Resolved as Boot resolves the access of
 * every endpoint ({@code management.endpoints.access.default} when the endpoint's own is unset,
 * capped by {@code management.endpoints.access.max-permitted}), except that an access nobody set is
 * read-only for Shardscan, not unrestricted: a write then gets a refusal that names this property.
 * Boot itself maps no write operation while the access is read-only or none, so the two never
 * disagree about a write that reaches the endpoint. Stateless.
 */
public final class ScanEndpointAccess {

    /** The property that turns write operations on, named in refusals. */
    public static final String PROPERTY = "management.endpoint.scan.access";

    /** The setting that turned writes on before there was one switch, still honoured. */
    static final String DEPRECATED_PROPERTY = "scan.endpoint.write-enabled";

    private static final EndpointId ID = EndpointId.of("scan");

    private ScanEndpointAccess() {}

    /**
     * Whether the scan endpoint accepts write operations.
     *
     * @param properties the application's environment
     * @param deprecatedWriteEnabled {@value #DEPRECATED_PROPERTY}, which stands for an unset access
     *     of {@code unrestricted}: an access that is set, or capped, wins over it
     */
    public static boolean writesEnabled(PropertyResolver properties, boolean deprecatedWriteEnabled) {
        Access unset = deprecatedWriteEnabled ? Access.UNRESTRICTED : Access.READ_ONLY;
        return new PropertiesEndpointAccessResolver(properties).accessFor(ID, unset) == Access.UNRESTRICTED;
    }
}
