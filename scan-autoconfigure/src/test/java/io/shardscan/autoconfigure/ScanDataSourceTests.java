package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
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
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Which DataSource Shardscan runs on when the application has several: the
 * {@link ScanDataSource @ScanDataSource} one, else the primary one, and with neither it stops
 * startup instead of backing off without a word.
 */
class ScanDataSourceTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withBean(Handlers.class)
            .withPropertyValues(
                    "scan.tasks.order-sms.table=tb_order",
                    "scan.tasks.order-sms.id-column=order_id",
                    "scan.tasks.order-sms.shard-key-column=user_id");

    @Test
    void twoDataSourcesWithoutAChoiceStopStartupNamingBothAndTheFix() {
        runner.withUserConfiguration(Orders.class, Reports.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("[orders, reports] DataSource beans")
                .contains("@ScanDataSource")
                .contains("@Primary"));
    }

    @Test
    void runsOnTheScanDataSourceOverThePrimaryOne() {
        // the primary DataSource has no tb_order: the task's table check would refuse it
        runner.withUserConfiguration(ScanOrders.class, PrimaryReports.class)
                .run(context -> assertThat(context).hasSingleBean(ScanEngine.class));
    }

    @Test
    void runsOnThePrimaryDataSourceWithoutAScanDataSource() {
        runner.withUserConfiguration(Orders.class, PrimaryReports.class)
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(problem -> assertThat(problem).contains("tb_order")));
    }

    private static DataSource withOrders() {
        return new DriverManagerDataSource(OrderDatabase.create(), "sa", "");
    }

    private static DataSource withoutOrders() {
        return new DriverManagerDataSource(
                "jdbc:h2:mem:reports-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
    }

    @Configuration(proxyBeanMethods = false)
    static class Orders {
        @Bean
        DataSource orders() {
            return withOrders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ScanOrders {
        @Bean
        @ScanDataSource
        DataSource orders() {
            return withOrders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Reports {
        @Bean
        DataSource reports() {
            return withoutOrders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryReports {
        @Bean
        @Primary
        DataSource reports() {
            return withoutOrders();
        }
    }

    static class Handlers {
        @ScanTask("order-sms")
        public void send(ScanAutoConfigurationTests.OrderRow order) {}
    }
}
