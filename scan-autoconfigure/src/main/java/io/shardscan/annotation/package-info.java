/** The {@link io.shardscan.annotation.ScanTask @ScanTask} annotation and the adapter that turns annotated methods into task handlers. */
@NullMarked
package io.shardscan.annotation;

import org.jspecify.annotations.NullMarked;
