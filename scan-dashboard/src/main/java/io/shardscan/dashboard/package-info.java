/** The web dashboard: a page and a small JSON API under {@code scan.dashboard.path}, over the scan endpoint's beans. */
@NullMarked
package io.shardscan.dashboard;

import org.jspecify.annotations.NullMarked;
