package dev.tokenmeter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Keeps the dependency arrows of STYLE.md honest: the core knows nothing of HTTP, JSON or the CLI. */
@AnalyzeClasses(packages = "dev.tokenmeter", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule coreIsPure =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.netty..",
              "com.fasterxml..",
              "picocli..",
              "dev.tokenmeter.sse..",
              "dev.tokenmeter.client..",
              "dev.tokenmeter.workload..",
              "dev.tokenmeter.simulator..",
              "dev.tokenmeter.report..",
              "dev.tokenmeter.cli..");

  @ArchTest
  static final ArchRule sseHasNoDependencies =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.sse..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "com.fasterxml..", "dev.tokenmeter.client..");

  @ArchTest
  static final ArchRule onlyCliUsesPicocli =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.tokenmeter.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("picocli..");

  @ArchTest
  static final ArchRule reportDoesNotTouchTheNetwork =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.report..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "dev.tokenmeter.client..", "dev.tokenmeter.simulator..");
}
