package dev.tokenmeter.testkit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Proves that a {@code *FuzzIT} class really fuzzed: each fuzz target counts its inputs with
 * {@link #one}, and when the class ran under Jazzer's fuzzing mode ({@code JAZZER_FUZZ} set, as
 * {@code -Pfuzz} does) and executed fewer than {@link #MINIMUM_INPUTS}, the class fails naming the
 * count. A harness that stopped fuzzing (a broken agent, a target that returns at once, an option
 * that turned fuzzing off) would otherwise pass on the seeds alone. In regression mode (every
 * {@code ./mvnw verify}) only the seeds are replayed and nothing is checked.
 *
 * <pre>{@code
 * @ExtendWith(FuzzRuns.class)
 * class SloParserFuzzIT {
 *   @FuzzTest(maxDuration = "3s")
 *   void slo(byte[] bytes) {
 *     FuzzRuns.one(SloParserFuzzIT.class);
 *     ...
 * }</pre>
 */
public final class FuzzRuns implements AfterAllCallback {
  /**
   * Inputs each class must execute while fuzzing: 2,000, far below what the slowest target ran in
   * its 3 s on the 2-core machine (11,627 for {@code --variant}; docs/RELIABILITY.md, "Fuzzing"),
   * and far above a seed corpus replayed (under 100 inputs each).
   */
  public static final long MINIMUM_INPUTS = 2_000;

  private static final Map<Class<?>, LongAdder> RUNS = new ConcurrentHashMap<>();

  /** Counts one input of {@code fuzzClass}'s fuzz target. */
  public static void one(Class<?> fuzzClass) {
    RUNS.computeIfAbsent(fuzzClass, c -> new LongAdder()).increment();
  }

  /** Inputs counted for {@code fuzzClass} so far. */
  public static long runs(Class<?> fuzzClass) {
    LongAdder n = RUNS.get(fuzzClass);
    return n == null ? 0 : n.sum();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Class<?> c = context.getRequiredTestClass();
    long n = runs(c);
    if (System.getenv("JAZZER_FUZZ") == null) {
      return;
    }
    System.out.println("FuzzRuns: " + c.getSimpleName() + " executed " + n + " inputs");
    if (n < MINIMUM_INPUTS) {
      throw new AssertionError(c.getSimpleName() + " executed " + n + " inputs while fuzzing, fewer than "
          + MINIMUM_INPUTS + ": the fuzzer did not really run (docs/RELIABILITY.md, \"Fuzzing\")");
    }
  }
}
