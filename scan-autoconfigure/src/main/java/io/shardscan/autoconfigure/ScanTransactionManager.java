package io.shardscan.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifies the {@link org.springframework.transaction.PlatformTransactionManager} Shardscan runs
 * its write-back and transactional handlers through, when the application has several or its
 * primary one is over another DataSource. Without it Shardscan takes the unique (or primary)
 * transaction manager, else a {@code DataSourceTransactionManager} of its own.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface ScanTransactionManager {}
