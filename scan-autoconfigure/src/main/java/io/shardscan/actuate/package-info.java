/** Actuator glue: health of the scan engine. */
@NullMarked
package io.shardscan.actuate;

import org.jspecify.annotations.NullMarked;
