package io.shardscan.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.properties.HasModifiers;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/** Keeps the arrows of DESIGN.md: glue → adapters → core, and no Spring in core. */
@AnalyzeClasses(packages = "io.shardscan", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTests {

    @ArchTest
    static final ArchRule coreImportsNoSpring = noClasses()
            .that()
            .resideInAPackage("io.shardscan.core..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "org.springframework..", "io.micrometer..", "org.apache.ibatis..", "io.lettuce..", "org.slf4j..")
            .because("core is plain Java; Spring lives in the glue and adapters");

    @ArchTest
    static final ArchRule theTaskModelStandsAlone = noClasses()
            .that()
            .resideInAPackage("io.shardscan.core.task..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.shardscan.core", "io.shardscan.core.spi..")
            .because("core.task is the user's model (handlers, definitions, outcomes): it knows no port and no"
                    + " engine, so a handler's author reads one package");

    @ArchTest
    static final ArchRule thePortsKnowNoEngine = noClasses()
            .that()
            .resideInAPackage("io.shardscan.core.spi..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.shardscan.core")
            .because("core.spi is what an adapter's author implements: the ports and their records, over the"
                    + " task model alone");

    @ArchTest
    static final ArchRule packagesHaveNoCycles =
            SlicesRuleDefinition.slices().matching("io.shardscan.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule coreImportsNoOtherLayer = noClasses()
            .that()
            .resideInAPackage("io.shardscan.core..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "io.shardscan.jdbc..",
                    "io.shardscan.redis..",
                    "io.shardscan.mybatis..",
                    "io.shardscan.annotation..",
                    "io.shardscan.autoconfigure..",
                    "io.shardscan.actuate..");

    @ArchTest
    static final ArchRule adaptersImportOnlyCore = noClasses()
            .that()
            .resideInAnyPackage("io.shardscan.jdbc..", "io.shardscan.redis..", "io.shardscan.mybatis..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.shardscan.annotation..", "io.shardscan.autoconfigure..", "io.shardscan.actuate..");

    @ArchTest
    static final ArchRule adaptersDoNotImportEachOther = noClasses()
            .that()
            .resideInAPackage("io.shardscan.jdbc..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.shardscan.redis..", "io.shardscan.mybatis..");

    @ArchTest
    static final ArchRule redisDoesNotImportOtherAdapters = noClasses()
            .that()
            .resideInAPackage("io.shardscan.redis..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.shardscan.jdbc..", "io.shardscan.mybatis..")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule mybatisImportsOnlyCore = classes()
            .that()
            .resideInAPackage("io.shardscan.mybatis..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(
                    "io.shardscan.core..",
                    "io.shardscan.mybatis..",
                    "java..",
                    "org.apache.ibatis..",
                    "org.mybatis..",
                    "org.jspecify..")
            .because("the MyBatis adapter maps rows with MyBatis alone, so it can be reused without Spring")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule onlyTheMybatisAdapterAndItsGlueTouchMybatis = noClasses()
            .that()
            .resideOutsideOfPackages("io.shardscan.mybatis..", "io.shardscan.annotation..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.apache.ibatis..", "org.mybatis..")
            .because("MyBatis is optional: everything else must load without it");

    private static final String SQL_DIALECT = "io.shardscan.jdbc.SqlDialect";

    /** A dialect of one database: a concrete subclass of SqlDialect. */
    private static final DescribedPredicate<JavaClass> DATABASE_DIALECT = JavaClass.Predicates.assignableTo(SQL_DIALECT)
            .and(DescribedPredicate.not(HasModifiers.Predicates.modifier(JavaModifier.ABSTRACT)))
            .as("are dialects of one database");

    private static final DescribedPredicate<JavaClass> NOT_A_DIALECT = DescribedPredicate.not(
                    JavaClass.Predicates.assignableTo(SQL_DIALECT))
            .as("not a dialect");

    @ArchTest
    static final ArchRule onlyDialectsNameADatabasesDialect = noClasses()
            .that(NOT_A_DIALECT)
            .should()
            .dependOnClassesThat(DATABASE_DIALECT)
            .because("a database is one dialect class, found by SqlDialect.forDriver; the rest asks SqlDialect's"
                    + " hooks (CONTRIBUTING.md, Adding a database)");

    @ArchTest
    static final ArchRule onlyDialectsReadTheProductName = noClasses()
            .that(NOT_A_DIALECT)
            .should()
            .callMethod("java.sql.DatabaseMetaData", "getDatabaseProductName")
            .because("which database it is is SqlDialect.detect's question alone; the rest asks the dialect");
}
