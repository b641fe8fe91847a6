package io.shardscan.annotation;

import io.shardscan.core.task.Row;
import io.shardscan.mybatis.MybatisRowMapper;
import org.apache.ibatis.session.SqlSessionFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;

/** The {@link RowTypeMapper} over a {@link SqlSessionFactory}'s configuration; loaded only when MyBatis is present. */
final class MybatisRowTypes implements RowTypeMapper {

    private final MybatisRowMapper mapper;

    private MybatisRowTypes(MybatisRowMapper mapper) {
        this.mapper = mapper;
    }

    static @Nullable RowTypeMapper of(ListableBeanFactory beanFactory) {
        SqlSessionFactory factory =
                beanFactory.getBeanProvider(SqlSessionFactory.class).getIfUnique();
        return factory == null ? null : new MybatisRowTypes(new MybatisRowMapper(factory.getConfiguration()));
    }

    @Override
    public boolean supports(Class<?> type) {
        return mapper.supports(type);
    }

    @Override
    public Object map(Row row, Class<?> type) {
        return mapper.map(row, type);
    }
}
