/** Actuator glue: health of the scan engine and the {@code scan} endpoint. */
@NullMarked
package io.shardscan.actuate;

import org.jspecify.annotations.NullMarked;
