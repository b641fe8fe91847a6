/**
 * The MyBatis adapter: binds fetched rows to the result types of an application's MyBatis
 * configuration, through its result maps and auto-mapping settings.
 */
@NullMarked
package io.shardscan.mybatis;

import org.jspecify.annotations.NullMarked;
