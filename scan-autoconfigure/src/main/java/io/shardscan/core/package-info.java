/** The scan engine: no Spring import. */
@NullMarked
package io.shardscan.core;

import org.jspecify.annotations.NullMarked;
