package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.support.GenericApplicationContext;

class ScanTaskRegistryTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + OrderDatabase.create());

    @Test
    void failsWhenConfiguredTaskHasNoHandler() {
        runner.withPropertyValues("scan.tasks.order-sms.table=tb_order")
                .run(context -> assertFailure(
                        context,
                        "scan.tasks.order-sms is configured but no bean has a @ScanTask(\"order-sms\") method:"
                                + " add one or remove the configuration"));
    }

    @Test
    void failsWhenHandlerHasNoConfiguration() {
        runner.withBean("smsJobs", SmsJobs.class)
                .run(context -> assertFailure(
                        context,
                        "@ScanTask(\"order-sms\") on bean 'smsJobs' method SmsJobs.send(OrderRow) has no"
                                + " scan.tasks.order-sms configuration: add scan.tasks.order-sms.table="));
    }

    @Test
    void aHandlerWhoseTaskNameIsATypoOfAConfiguredOneIsToldWhichItMeant() {
        runner.withBean("smsJobs", SmsJobs.class)
                .withPropertyValues("scan.tasks.order-sns.table=tb_order")
                .run(context -> assertFailure(
                        context,
                        "@ScanTask(\"order-sms\") on bean 'smsJobs' method SmsJobs.send(OrderRow) has no"
                                + " scan.tasks.order-sms configuration: did you mean @ScanTask(\"order-sns\"),"
                                + " configured and without a handler?"));
    }

    @Test
    void failsWhenTwoBeansHandleOneTask() {
        runner.withBean("smsJobs", SmsJobs.class)
                .withBean("otherSmsJobs", OtherSmsJobs.class)
                .withPropertyValues("scan.tasks.order-sms.table=tb_order")
                .run(context -> assertFailure(
                        context,
                        "@ScanTask(\"order-sms\") is on 2 methods: bean 'smsJobs' method SmsJobs.send(OrderRow) and"
                                + " bean 'otherSmsJobs' method OtherSmsJobs.resend(OrderRow): keep one handler"));
    }

    @Test
    void failsOnUnusableSignature() {
        runner.withBean("badJobs", BadJobs.class)
                .withPropertyValues("scan.tasks.order-sms.table=tb_order")
                .run(context -> assertFailure(
                        context,
                        "@ScanTask(\"order-sms\") on bean 'badJobs' method BadJobs.send(OrderRow, String) cannot be"
                                + " used: its second parameter is String, not ScanContext"));
    }

    @Test
    void passesTheTransactionalFlagToTheEngine() {
        runner.withBean("txJobs", TransactionalJobs.class)
                .withPropertyValues(
                        "scan.tasks.order-sms.table=tb_order",
                        "scan.tasks.order-sms.id-column=order_id",
                        "scan.tasks.order-sms.shard-key-column=user_id")
                .run(context -> assertThat(context.getBean(ScanTaskRegistry.class)
                                .tasks(context.getBean(ScanProperties.class).getTasks()))
                        .singleElement()
                        .satisfies(task -> assertThat(task.transactional()).isTrue()));
    }

    @Test
    void failsOnInvalidTierNamingItsIndex() {
        runner.withBean("smsJobs", SmsJobs.class)
                .withPropertyValues(
                        "scan.tasks.order-sms.table=tb_order",
                        "scan.tasks.order-sms.tiers[0].retries=0",
                        "scan.tasks.order-sms.tiers[0].interval=3s",
                        "scan.tasks.order-sms.tiers[1].retries=one-five",
                        "scan.tasks.order-sms.tiers[1].interval=30s")
                .run(context -> assertFailure(context, "scan.tasks.order-sms.tiers[1].retries is invalid"));
    }

    @Test
    void listsEveryProblemAtOnce() {
        runner.withBean("smsJobs", SmsJobs.class)
                .withPropertyValues("scan.tasks.order-push.table=tb_order")
                .run(context -> {
                    assertFailure(context, "2 scan task problems:");
                    assertFailure(context, "no scan.tasks.order-sms configuration");
                    assertFailure(context, "scan.tasks.order-push is configured but no bean");
                });
    }

    @Test
    void callsHandlerThroughItsProxy() throws Exception {
        AtomicInteger advised = new AtomicInteger();
        ProxyFactory factory = new ProxyFactory(new SmsJobs());
        factory.setProxyTargetClass(true);
        factory.addAdvice((MethodInterceptor) invocation -> {
            advised.incrementAndGet();
            return invocation.proceed();
        });
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean("smsJobs", SmsJobs.class, () -> (SmsJobs) factory.getProxy());
            context.refresh();
            TaskProperties properties = new TaskProperties();
            properties.setTable("tb_order");

            List<ScanEngine.ScanTask> tasks =
                    new ScanTaskRegistry(context.getBeanFactory()).tasks(Map.of("order-sms", properties));

            assertThat(tasks)
                    .singleElement()
                    .satisfies(task -> assertThat(task.definition().table()).isEqualTo("tb_order"));
            ((TaskHandler.PerRow) tasks.get(0).handler())
                    .handle(new Row(1, 1, 0, Map.of("order_id", 1L)), new ScanContext("order-sms", "node-1", 1, 1, 1));
            assertThat(advised).hasValue(1);
        }
    }

    @Test
    void theTaskReadsOnlyTheColumnsItsHandlersTypeNames() {
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean("smsJobs", SmsJobs.class);
            context.registerBean("rowJobs", RowJobs.class);
            context.refresh();
            TaskProperties properties = new TaskProperties();
            properties.setTable("tb_order");
            Map<String, TaskProperties> configured = new java.util.LinkedHashMap<>();
            configured.put("order-sms", properties);
            configured.put("order-raw", properties);

            assertThat(new ScanTaskRegistry(context.getBeanFactory()).tasks(configured))
                    .extracting(task -> task.definition().rowColumns())
                    .containsExactly(RowColumns.matching(List.of("orderId")), RowColumns.ALL);
        }
    }

    @Test
    void isRegisteredAsAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(ScanAutoConfiguration.class.getName());
    }

    private static void assertFailure(AssertableApplicationContext context, String message) {
        assertThat(context).hasFailed();
        assertThat(context.getStartupFailure())
                .rootCause()
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining(message);
    }

    record OrderRow(long orderId) {}

    static class SmsJobs {
        @ScanTask("order-sms")
        public void send(OrderRow order) {}
    }

    static class OtherSmsJobs {
        @ScanTask("order-sms")
        public void resend(OrderRow order) {}
    }

    static class RowJobs {
        @ScanTask("order-raw")
        public void send(Row row) {}
    }

    static class BadJobs {
        @ScanTask("order-sms")
        public void send(OrderRow order, String text) {}
    }

    static class TransactionalJobs {
        @ScanTask(value = "order-sms", transactional = true)
        public void send(OrderRow order) {}
    }
}
