package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanEngine;
import io.shardscan.testsupport.StartupProblems;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Which transaction manager the task store runs through: the application's, the
 * {@link ScanTransactionManager @ScanTransactionManager} one first, and never one over another
 * DataSource than Shardscan's.
 */
class ScanTransactionManagerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + OrderDatabase.create());

    @Test
    void startsWithTheApplicationsManagerOfItsDataSource() {
        runner.withUserConfiguration(OwnManager.class)
                .run(context -> assertThat(context).hasSingleBean(ScanEngine.class));
    }

    @Test
    void aManagerOfAnotherDataSourceStopsStartupNamingTheFix() {
        runner.withUserConfiguration(OtherManager.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("DataSourceTransactionManager runs on the DataSource")
                .contains("not on Shardscan's DataSource")
                .contains("@ScanTransactionManager"));
    }

    @Test
    void theScanTransactionManagerWinsOverThePrimaryOne() {
        runner.withUserConfiguration(OtherManager.class, QualifiedManager.class)
                .run(context -> assertThat(context).hasSingleBean(ScanEngine.class));
    }

    private static DataSource another() {
        return new DriverManagerDataSource(OrderDatabase.create());
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnManager {
        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OtherManager {
        @Bean
        @Primary
        PlatformTransactionManager transactionManager() {
            return new DataSourceTransactionManager(another());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedManager {
        @Bean
        @ScanTransactionManager
        PlatformTransactionManager scanTransactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }
}
