/** JDBC adapters: the task store and the lease-table coordinator, with one dialect per database. */
@NullMarked
package io.shardscan.jdbc;

import org.jspecify.annotations.NullMarked;
