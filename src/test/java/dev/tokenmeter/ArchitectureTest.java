package dev.tokenmeter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the dependency arrows of STYLE.md honest: the core knows nothing of HTTP, JSON or the CLI.
 * Plain JUnit tests calling {@code check} (the ArchUnit JUnit engine's {@code @ArchTest} fields were
 * not picked up by Surefire here: "Tests run: 0").
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tokenmeter");

  @Test
  void coreIsPure() {
    CORE_IS_PURE.check(CLASSES);
  }

  @Test
  void sseHasNoDependencies() {
    SSE_HAS_NO_DEPENDENCIES.check(CLASSES);
  }

  @Test
  void onlyCliUsesPicocli() {
    ONLY_CLI_USES_PICOCLI.check(CLASSES);
  }

  @Test
  void engineModelIsPure() {
    ENGINE_MODEL_IS_PURE.check(CLASSES);
  }

  @Test
  void reportDoesNotTouchTheNetwork() {
    REPORT_DOES_NOT_TOUCH_THE_NETWORK.check(CLASSES);
  }

  @Test
  void tokenizerDependsOnNothingElseInTokenmeter() {
    TOKENIZER_STANDS_ALONE.check(CLASSES);
  }

  @Test
  void rulesSeeTheProject() {
    org.assertj.core.api.Assertions.assertThat(CLASSES.contain("dev.tokenmeter.core.engine.StageRunner")).isTrue();
  }

  static final ArchRule CORE_IS_PURE =
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
              "dev.tokenmeter.tokenizer..",
              "ai.djl..",
              "com.knuddels..",
              "dev.tokenmeter.simulator..",
              "dev.tokenmeter.report..",
              "dev.tokenmeter.cli..");

  static final ArchRule SSE_HAS_NO_DEPENDENCIES =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.sse..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "com.fasterxml..", "dev.tokenmeter.client..");

  static final ArchRule ONLY_CLI_USES_PICOCLI =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.tokenmeter.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("picocli..");

  static final ArchRule REPORT_DOES_NOT_TOUCH_THE_NETWORK =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.report..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "dev.tokenmeter.client..", "dev.tokenmeter.simulator..");

  /** The engine model runs in virtual time, in the simulator and in capacity planning alike. */
  static final ArchRule ENGINE_MODEL_IS_PURE =
      classes()
          .that()
          .resideInAPackage("dev.tokenmeter.simulator.engine..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "dev.tokenmeter.simulator.engine..");

  static final ArchRule TOKENIZER_STANDS_ALONE =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.tokenizer..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.tokenmeter.core..",
              "dev.tokenmeter.sse..",
              "dev.tokenmeter.client..",
              "dev.tokenmeter.workload..",
              "dev.tokenmeter.simulator..",
              "dev.tokenmeter.report..",
              "dev.tokenmeter.cli..",
              "io.netty..");
}
