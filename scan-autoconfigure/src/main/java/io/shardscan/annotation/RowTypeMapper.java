package io.shardscan.annotation;

import io.shardscan.core.task.Row;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Maps rows to the handler parameter types an application already maps elsewhere (its MyBatis result
 * types), in place of the built-in record and JavaBean binding. Implementations are thread-safe.
 */
public interface RowTypeMapper {

    /** Whether rows for handlers taking {@code type} go through this mapper. */
    boolean supports(Class<?> type);

    /** Maps one row; throws when a column value cannot be converted, which fails the row. */
    Object map(Row row, Class<?> type);

    /**
     * The mapper for the result types of the bean factory's {@code SqlSessionFactory}.
     *
     * @return {@code null} when MyBatis is not on the bean factory's class path or there is no unique
     *     {@code SqlSessionFactory} bean
     */
    static @Nullable RowTypeMapper mybatis(ListableBeanFactory beanFactory) {
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory c ? c.getBeanClassLoader() : null;
        if (!ClassUtils.isPresent("org.apache.ibatis.session.SqlSessionFactory", classLoader)) {
            return null;
        }
        // only loaded now: MybatisRowTypes links MyBatis classes
        return MybatisRowTypes.of(beanFactory);
    }
}
