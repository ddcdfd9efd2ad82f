package dev.tokenmeter;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatcher;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the dependency arrows of docs/ARCHITECTURE.md honest: {@link #ARROWS} is its table, one
 * row per package, and every package of the tool must have a row. A class that uses a tokenmeter
 * package its row does not name fails the build, and so does any cycle between packages. Plain
 * JUnit tests calling {@code check} (the ArchUnit JUnit engine's {@code @ArchTest} fields were not
 * picked up by Surefire here: "Tests run: 0").
 *
 * <p>Package names are short for {@code dev.tokenmeter.NAME}; {@code NAME..} means the package and
 * every package below it, a bare {@code NAME} the package alone (the simulator's server apart from
 * its engine model, say).
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tokenmeter");

  /** Packages being written: their rows are the design, not yet all in use (none today). */
  private static final Set<String> UNDER_CONSTRUCTION = Set.of();

  /** Package → the tokenmeter packages it may use. Mirrors docs/ARCHITECTURE.md, "Arrows". */
  static final Map<String, List<String>> ARROWS = new LinkedHashMap<>();

  static {
    ARROWS.put("core", List.of());
    ARROWS.put("core.time", List.of());
    ARROWS.put("core.request", List.of());
    ARROWS.put("core.load", List.of());
    ARROWS.put("core.stats", List.of());
    ARROWS.put("core.analysis", List.of("core.load", "core.request", "core.stats"));
    ARROWS.put("core.slo", List.of("core.analysis", "core.load"));
    ARROWS.put("core.production", List.of("core.analysis"));
    ARROWS.put("core.metrics", List.of("core.analysis", "core.load", "core.request", "core.slo"));
    ARROWS.put("core.loadgen", List.of("core.time", "core.load", "core.request", "core.metrics"));
    ARROWS.put("sse..", List.of());
    ARROWS.put("tokenizer..", List.of());
    ARROWS.put("simulator.engine..", List.of());
    ARROWS.put("client..", List.of("core..", "sse.."));
    ARROWS.put("workload..", List.of("core..", "tokenizer.."));
    ARROWS.put("simulator", List.of("core.time", "simulator.engine..", "sse.."));
    ARROWS.put("simulator.virtual..", List.of("core..", "simulator", "simulator.engine.."));
    ARROWS.put("scrape..", List.of("core.time"));
    ARROWS.put("report", List.of("core..", "scrape.."));
    ARROWS.put("report.html..", List.of("core..", "report", "scrape.."));
    ARROWS.put("ledger..", List.of("core.."));
    ARROWS.put("telemetry..", List.of("core..", "ledger..", "governance.."));
    ARROWS.put("governance..", List.of("core..", "ledger.."));
    ARROWS.put("proxy..", List.of("core..", "sse..", "client..", "ledger..", "telemetry..", "governance.."));
    ARROWS.put("run..", List.of("core..", "client..", "simulator", "simulator.virtual..", "simulator.engine..", "report..", "scrape..", "telemetry.."));
    ARROWS.put("api", List.of("core.time", "simulator", "simulator.engine.."));
    ARROWS.put("cli..", List.of("core..", "client..", "workload..", "tokenizer..", "simulator..", "report..", "run..", "ledger..", "proxy..", "telemetry..", "governance.."));
  }

  /** The rule of one row: classes of {@code pkg} use no tokenmeter package but {@code allowed}. */
  static ArchRule arrows(String pkg, List<String> allowed) {
    String[] mayUse = Stream.concat(Stream.of(pkg), allowed.stream()).map(ArchitectureTest::full).toArray(String[]::new);
    return classes()
        .that()
        .resideInAPackage(full(pkg))
        .should()
        .onlyDependOnClassesThat(resideOutsideOfPackage("dev.tokenmeter..").or(resideInAnyPackage(mayUse)))
        .as(pkg + " uses only " + (allowed.isEmpty() ? "itself" : String.join(", ", allowed)) + " of tokenmeter")
        .allowEmptyShould(UNDER_CONSTRUCTION.contains(pkg));
  }

  /** {@code dev.tokenmeter.} + {@code name}. */
  static String full(String name) {
    return "dev.tokenmeter." + name;
  }

  @Test
  void everyPackageUsesOnlyTheArrowsOfItsRow() {
    for (Map.Entry<String, List<String>> row : ARROWS.entrySet()) {
      arrows(row.getKey(), row.getValue()).check(CLASSES);
    }
  }

  @Test
  void everyPackageHasARow() {
    Set<String> missing = new TreeSet<>();
    for (JavaClass c : CLASSES) {
      boolean covered = ARROWS.keySet().stream().anyMatch(k -> PackageMatcher.of(full(k)).matches(c.getPackageName()));
      if (!covered) {
        missing.add(c.getPackageName());
      }
    }
    assertThat(missing).as("packages with no row in ArchitectureTest.ARROWS and docs/ARCHITECTURE.md").isEmpty();
  }

  /**
   * Each row is as narrow as the code: dropping any one of its arrows makes the rule fail on the
   * real classes. This proves every rule can fail, and keeps the table from naming arrows nobody
   * uses (remove such an arrow here and in docs/ARCHITECTURE.md).
   */
  @Test
  void everyArrowIsUsedSoDroppingItFailsTheRule() {
    List<String> unused = new ArrayList<>();
    for (Map.Entry<String, List<String>> row : ARROWS.entrySet()) {
      if (UNDER_CONSTRUCTION.contains(row.getKey())) {
        continue;
      }
      for (String arrow : row.getValue()) {
        List<String> fewer = new ArrayList<>(row.getValue());
        fewer.remove(arrow);
        if (!arrows(row.getKey(), fewer).evaluate(CLASSES).hasViolation()) {
          unused.add(row.getKey() + " -> " + arrow);
        }
      }
    }
    assertThat(unused).as("arrows in the table that no class uses").isEmpty();
  }

  /** The public API is a leaf: the tool never depends on it, so it can stay stable while the tool changes. */
  @Test
  void nothingInTheToolUsesThePublicApi() {
    noClasses().that().resideOutsideOfPackage(full("api"))
        .should().dependOnClassesThat().resideInAPackage(full("api"))
        .as("nothing in the tool uses dev.tokenmeter.api").check(CLASSES);
  }

  @Test
  void noCyclesBetweenTopLevelPackages() {
    slices().matching("dev.tokenmeter.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  /** Finer: every package its own slice, so core's sub-packages (and report.html, simulator.*) too. */
  @Test
  void noCyclesBetweenAnyPackages() {
    slices().matching("dev.tokenmeter.(**)").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void coreUsesNoHttpJsonOrCommandLineLibrary() {
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
  void rulesSeeTheProject() {
    assertThat(CLASSES.contain("dev.tokenmeter.core.loadgen.StageRunner")).isTrue();
    assertThat(CLASSES.contain("dev.tokenmeter.cli.Main")).isTrue();
  }

  static final ArchRule CORE_IS_PURE =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "com.fasterxml..", "picocli..", "ai.djl..", "com.knuddels..", "java.sql..");

  static final ArchRule SSE_HAS_NO_DEPENDENCIES =
      noClasses()
          .that()
          .resideInAPackage("dev.tokenmeter.sse..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "com.fasterxml..");

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
          .resideInAnyPackage("io.netty..", "java.net.http..");

  /** The engine model runs in virtual time, in the simulator and in capacity planning alike. */
  static final ArchRule ENGINE_MODEL_IS_PURE =
      classes()
          .that()
          .resideInAPackage("dev.tokenmeter.simulator.engine..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "dev.tokenmeter.simulator.engine..");
}
