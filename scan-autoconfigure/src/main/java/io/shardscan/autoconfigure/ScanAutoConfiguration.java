package io.shardscan.autoconfigure;

import io.shardscan.annotation.RowTypeMapper;
import io.shardscan.core.CompositeScanListener;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ScanLogging;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.RangeCursor;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.jdbc.JdbcEndpointBans;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcRangeFailures;
import io.shardscan.jdbc.JdbcRangeLedger;
import io.shardscan.jdbc.JdbcRangeTable;
import io.shardscan.jdbc.JdbcRangeTransactions;
import io.shardscan.jdbc.JdbcTaskRuns;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SqlDialect;
import io.shardscan.redis.RedisEndpointBans;
import io.shardscan.redis.RedisRangeCursor;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.redis.RedisWakeChannel;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Runs the scan engine on the application's {@link DataSource} (the
 * {@link ScanDataSource @ScanDataSource} one when there are several): the tasks come from
 * {@code scan.tasks.*} and the {@link io.shardscan.annotation.ScanTask @ScanTask} methods of its
 * beans. Every bean backs off when the application defines its own; {@code scan.enabled=false}
 * turns it all off.
 */
@AutoConfiguration(
        after = DataSourceAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration"
        })
@ConditionalOnClass(DataSourceScriptDatabaseInitializer.class)
@ConditionalOnBooleanProperty(name = "scan.enabled", matchIfMissing = true)
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(ScanProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class ScanAutoConfiguration {

    private static final System.Logger log = System.getLogger(ScanAutoConfiguration.class.getName());

    private static final String MYBATIS_SESSION_FACTORY = "org.apache.ibatis.session.SqlSessionFactory";

    private static final String FLYWAY = "org.flywaydb.core.Flyway";

    /**
     * Leases in Redis when it is configured, on a Lettuce connection of the coordinator's own to the
     * server the application's Redis connection details name; registered before the JDBC and static
     * fallbacks.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RedisConnectionFactory.class, LettuceConnectionFactory.class, DataRedisConnectionDetails.class
    })
    @Conditional(RedisCoordinatorCondition.class)
    static class RedisCoordinatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(ShardCoordinator.class)
        @ConditionalOnBean(DataRedisConnectionDetails.class)
        ScanRedisConnection scanRedisConnection(
                DataRedisConnectionDetails connectionDetails,
                ScanProperties properties,
                ScanDatabase database,
                Environment environment) {
            String namespace = ScanRedisNamespace.resolve(
                    properties.getRedis().getNamespace(),
                    environment.getProperty("spring.application.name"),
                    database.dataSource());
            return new ScanRedisConnection(connectionDetails, properties.getLeaseTtl(), namespace);
        }

        @Bean
        @ConditionalOnMissingBean(ShardCoordinator.class)
        @ConditionalOnBean(ScanRedisConnection.class)
        ShardCoordinator scanRedisShardCoordinator(ScanRedisConnection connection) {
            return new RedisShardCoordinator(connection.connectionFactory(), connection.namespace());
        }

        @Bean
        @ConditionalOnMissingBean(RangeCursor.class)
        @ConditionalOnBean(ScanRedisConnection.class)
        @Lazy
        RangeCursor scanRedisRangeCursor(ScanRedisConnection connection) {
            return new RedisRangeCursor(connection.connectionFactory(), connection.namespace());
        }

        @Bean
        @ConditionalOnMissingBean(WakeChannel.class)
        @ConditionalOnBean(ScanRedisConnection.class)
        WakeChannel scanRedisWakeChannel(
                ScanRedisConnection connection, ScanDatabase database, ScanProperties properties) {
            return ScanWakeChannels.redis(
                    new RedisWakeChannel(connection.connectionFactory(), connection.namespace()),
                    database.dataSource(),
                    properties);
        }

        @Bean
        @ConditionalOnMissingBean(EndpointBans.class)
        @ConditionalOnBean(ScanRedisConnection.class)
        EndpointBans scanRedisEndpointBans(ScanRedisConnection connection) {
            return new RedisEndpointBans(connection.connectionFactory(), connection.namespace());
        }
    }

    /** MyBatis result types for handlers, when the application has one {@code SqlSessionFactory}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = MYBATIS_SESSION_FACTORY)
    static class MybatisConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnSingleCandidate(type = MYBATIS_SESSION_FACTORY)
        RowTypeMapper scanMybatisRowTypeMapper(ListableBeanFactory beanFactory) {
            return Objects.requireNonNull(RowTypeMapper.mybatis(beanFactory), "a single SqlSessionFactory");
        }
    }

    /**
     * Shardscan's tables migrated by Flyway in their own history table, when {@code scan.jdbc.flyway.enabled}
     * is set; without Flyway on the class path that setting fails startup, naming the dependency.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("scan.jdbc.flyway.enabled")
    static class FlywayConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ScanFlywayInitializer scanFlywayInitializer(
                ScanDatabase database,
                ObjectProvider<SqlDialect> dialect,
                ScanProperties properties,
                ResourceLoader resourceLoader) {
            if (!ClassUtils.isPresent(FLYWAY, resourceLoader.getClassLoader())) {
                throw new InvalidTaskException("scan.jdbc.flyway.enabled is true, but Flyway is not on the class"
                        + " path: add org.flywaydb:flyway-core and the module of your database"
                        + " (flyway-database-postgresql, flyway-mysql), or set scan.jdbc.flyway.enabled=false");
            }
            return new ScanFlywayInitializer(
                    database.dataSource(),
                    dialect.getObject(),
                    properties.getJdbc().getFlyway().getTable(),
                    resourceLoader.getClassLoader());
        }
    }

    /** Task, shard and epoch in the logging context of every round, where SLF4J is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.slf4j.MDC")
    static class MdcConfiguration {

        @Bean
        @ConditionalOnMissingBean
        MdcScanListener scanMdcListener() {
            return new MdcScanListener();
        }
    }

    @Bean
    ScanDatabase scanDatabase(
            @ScanDataSource ObjectProvider<DataSource> scanDataSource,
            ObjectProvider<DataSource> dataSource,
            ListableBeanFactory beans) {
        return ScanDatabase.choose(scanDataSource, dataSource, beans);
    }

    /**
     * The dialect of the database Shardscan runs on, detected from its product name when a bean
     * needs it; an application's own {@link SqlDialect} bean replaces it (for a database Shardscan
     * ships no dialect for, or one whose product name detection does not know).
     */
    @Bean
    @ConditionalOnMissingBean
    @Lazy
    SqlDialect scanSqlDialect(ScanDatabase database) {
        return SqlDialect.detect(database.dataSource());
    }

    @Bean
    @ConditionalOnMissingBean
    ScanClock scanClock() {
        return ScanClock.system();
    }

    @Bean
    @ConditionalOnMissingBean
    TaskStore scanTaskStore(
            ScanDatabase database,
            SqlDialect dialect,
            @ScanTransactionManager ObjectProvider<PlatformTransactionManager> scanTransactionManager,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        return new JdbcTaskStore(
                database.dataSource(),
                ScanTransactions.choose(database.dataSource(), scanTransactionManager, transactionManager),
                dialect);
    }

    @Bean
    @ConditionalOnMissingBean
    ShardCoordinator scanShardCoordinator(
            ScanProperties properties, ScanDatabase database, ObjectProvider<SqlDialect> dialect, ScanClock clock) {
        return ScanCoordinators.create(properties, database.dataSource(), dialect::getObject, clock);
    }

    /** How wake-ups reach other nodes without Redis: PostgreSQL LISTEN/NOTIFY, or none on other databases. */
    @Bean
    @ConditionalOnMissingBean
    WakeChannel scanWakeChannel(ScanDatabase database) {
        return ScanWakeChannels.database(database.dataSource());
    }

    /**
     * The shared cursor of range tasks in the database, when Redis does not hold it (as the leases); its
     * statements are bounded by the engine's statement timeout.
     */
    @Bean
    @ConditionalOnMissingBean
    @Lazy
    RangeCursor scanRangeCursor(ScanDatabase database, SqlDialect dialect, ScanEngineBuilder engine) {
        return new JdbcRangeCursor(database.dataSource(), engine.settings().statementTimeout(), dialect);
    }

    /**
     * Where range tasks keep their runs, progress and failures; created only when a task runs in range
     * mode, after the engine's settings were checked. Every statement is bounded from the start by the
     * engine's statement timeout (twice scan.lease-ttl, as the customizers leave it), so a page read or a
     * position commit that waits on a lock is cancelled, whatever wraps these stores. A transactional
     * range task's handler and its position commit run in one transaction of the transaction manager the
     * task store uses (the application's), on the same DataSource.
     */
    @Bean
    @ConditionalOnMissingBean
    @Lazy
    RangeStores scanRangeStores(
            ScanDatabase database,
            SqlDialect dialect,
            RangeCursor cursor,
            ScanEngineBuilder engine,
            @ScanTransactionManager ObjectProvider<PlatformTransactionManager> scanTransactionManager,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        Duration timeout = engine.settings().statementTimeout();
        return new RangeStores(
                new JdbcTaskRuns(database.dataSource(), timeout, dialect),
                cursor,
                new JdbcRangeLedger(database.dataSource(), timeout, dialect),
                new JdbcRangeTable(database.dataSource(), timeout, dialect),
                new JdbcRangeFailures(database.dataSource(), timeout, dialect),
                new JdbcRangeTransactions(
                        database.dataSource(),
                        ScanTransactions.choose(database.dataSource(), scanTransactionManager, transactionManager),
                        timeout,
                        dialect));
    }

    /** The level-2 endpoint blacklist in the database, when Redis does not hold it. */
    @Bean
    @ConditionalOnMissingBean
    EndpointBans scanEndpointBans(ScanDatabase database, SqlDialect dialect) {
        return new JdbcEndpointBans(database.dataSource(), dialect);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanSchemaInitializer scanSchemaInitializer(
            ScanDatabase database, ObjectProvider<SqlDialect> dialect, ScanProperties properties) {
        ScanProperties.Jdbc jdbc = properties.getJdbc();
        // with Flyway on, its migration alone creates the tables
        return new ScanSchemaInitializer(
                database.dataSource(),
                jdbc.getFlyway().isEnabled() ? DatabaseInitializationMode.NEVER : jdbc.getInitializeSchema(),
                dialect::getObject);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanTaskRegistry scanTaskRegistry(
            ConfigurableListableBeanFactory beanFactory, ObjectProvider<RowTypeMapper> rowTypeMapper) {
        return new ScanTaskRegistry(beanFactory, rowTypeMapper.getIfUnique());
    }

    /**
     * The engine's settings and listener as the {@code scan.*} properties and the customizers leave
     * them: read by the engine, and by the stores built bounded by its statement timeout.
     */
    @Bean
    ScanEngineBuilder scanEngineBuilder(
            ScanProperties properties,
            ObjectProvider<ScanListener> listeners,
            ObjectProvider<ScanEngineCustomizer> customizers,
            ObjectProvider<EndpointDownClassifier> endpointDown,
            EndpointBans endpointBans,
            Environment environment) {
        ScanEngineBuilder builder = new ScanEngineBuilder(
                        properties,
                        CompositeScanListener.of(listeners.orderedStream().toList()))
                .endpointBans(endpointBans)
                // the application's classifiers add to the default: a refused connection stays the endpoint's
                .endpointDown(endpointDown
                        .orderedStream()
                        .reduce(EndpointDownClassifier.DEFAULT, EndpointDownClassifier::or));
        if (Threading.VIRTUAL.isActive(environment)) {
            // as Boot's own executors with spring.threads.virtual.enabled; each task's pool keeps its workers bound
            builder.workerThreads((task, prefix) -> new VirtualThreadTaskExecutor(prefix).getVirtualThreadFactory());
            log.log(
                    System.Logger.Level.INFO,
                    "Shardscan's handlers run on virtual threads (spring.threads.virtual.enabled), each task at most"
                            + " its scan.tasks.<name>.workers at once; its lease and dispatch threads stay platform"
                            + " threads");
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder;
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    ScanEngine scanEngine(
            ScanProperties properties,
            ScanTaskRegistry registry,
            TaskStore store,
            ShardCoordinator coordinator,
            ScanClock clock,
            ScanDatabase database,
            ConfigurableEnvironment environment,
            ScanEngineBuilder builder,
            ObjectProvider<RangeStores> rangeStores,
            ObjectProvider<SqlDialect> dialect,
            WakeChannel wakeChannel,
            ListableBeanFactory beans,
            ResourceLoader resourceLoader) {
        // the engine's lines go to the application's logging, which outlives java.util.logging at shutdown
        ScanLogging.use(CommonsSystemLogger::new);
        log.log(System.Logger.Level.INFO, ScanCoordinators.explain(properties, coordinator));
        ScanConnectionTimeoutCheck.warning(coordinator, database.dataSource(), properties.getLeaseTtl())
                .ifPresent(warning -> log.log(System.Logger.Level.WARNING, warning));
        // every check runs here, while the bean is created, so a problem stops startup before the web server starts
        return ScanStartupChecks.engine(
                        environment,
                        properties,
                        registry,
                        builder,
                        store,
                        coordinator,
                        database.dataSource(),
                        dialect::getObject,
                        clock,
                        rangeStores::getObject,
                        new ScanTableSources(
                                beans,
                                database.dataSource(),
                                store,
                                properties.getJdbc(),
                                resourceLoader.getClassLoader()))
                .wakeThrough(wakeChannel);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanLifecycle scanLifecycle(ScanEngine engine) {
        return new ScanLifecycle(engine);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanTasks scanTasks(ScanEngine engine) {
        return new ScanTasks(engine);
    }
}
