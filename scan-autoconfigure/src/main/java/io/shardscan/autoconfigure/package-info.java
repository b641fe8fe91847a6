/** Spring Boot auto-configuration of the scan engine: properties, handler discovery, wiring and lifecycle. */
@NullMarked
package io.shardscan.autoconfigure;

import org.jspecify.annotations.NullMarked;
