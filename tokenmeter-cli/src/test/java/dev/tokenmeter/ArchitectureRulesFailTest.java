package dev.tokenmeter;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link ArchitectureTest} can fail: checked against two test-only packages that
 * break them on purpose ({@code archfixture.inner} calls {@code archfixture.outer}, which calls it
 * back). {@link ArchitectureTest#everyArrowIsUsedSoDroppingItFailsTheRule} shows the same on the
 * real code, row by row.
 */
class ArchitectureRulesFailTest {
  private static final JavaClasses FIXTURE = new ClassFileImporter().importPackages("dev.tokenmeter.archfixture");

  @Test
  void anArrowOutsideTheRowFails() {
    EvaluationResult r = ArchitectureTest.arrows("archfixture.inner", List.of()).evaluate(FIXTURE);
    assertThat(r.hasViolation()).isTrue();
    assertThat(r.getFailureReport().toString()).contains("Inner.upward()").contains("Outer.depth()");
  }

  @Test
  void theSameArrowInTheRowPasses() {
    assertThat(ArchitectureTest.arrows("archfixture.inner", List.of("archfixture.outer")).evaluate(FIXTURE).hasViolation())
        .isFalse();
  }

  @Test
  void aCycleFails() {
    EvaluationResult r = slices().matching("dev.tokenmeter.archfixture.(*)..").should().beFreeOfCycles().evaluate(FIXTURE);
    assertThat(r.hasViolation()).isTrue();
    assertThat(r.getFailureReport().toString()).contains("inner").contains("outer");
  }

  @Test
  void theFixtureIsImported() {
    assertThat(FIXTURE.contain("dev.tokenmeter.archfixture.inner.Inner")).isTrue();
    assertThat(FIXTURE.contain("dev.tokenmeter.archfixture.outer.Outer")).isTrue();
  }
}
