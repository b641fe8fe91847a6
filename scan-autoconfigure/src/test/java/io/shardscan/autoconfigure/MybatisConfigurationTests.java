package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.RowTypeMapper;
import io.shardscan.core.ScanEngine;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** MyBatis result types come in only with MyBatis and its {@code SqlSessionFactory}. */
class MybatisConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class, MybatisAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + OrderDatabase.create());

    @Test
    void hasNoMybatisBeansWithoutMybatisOnTheClassPath() {
        // MyBatis hidden; the factories of the mybatis-spring-boot jar on the test class path are still read,
        // so only MyBatis itself is filtered
        runner.withClassLoader(new FilteredClassLoader("org.apache.ibatis")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ScanEngine.class);
            assertThat(context).doesNotHaveBean(RowTypeMapper.class);
            assertThat(context.getBeanDefinitionNames())
                    .noneMatch(name -> name.toLowerCase().contains("sqlsession"));
        });
    }

    @Test
    void mapsMybatisResultTypesWhenTheApplicationHasASqlSessionFactory() {
        runner.run(context -> assertThat(context).hasSingleBean(RowTypeMapper.class));
    }
}
