package io.shardscan.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

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
}
