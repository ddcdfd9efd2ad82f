package dev.tokenmeter.junit5;

import dev.tokenmeter.api.LoadResult;
import dev.tokenmeter.api.LoadTest;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;

/**
 * Load tests as assertions: a short {@code tokenmeter bench} against the application's own
 * endpoint (one that speaks a bench API, e.g. OpenAI chat), failing the test when an SLO is missed,
 * with the measured figures in the message.
 *
 * <pre>{@code
 * @Test
 * void theChatEndpointHoldsItsSlo(Simulator sim) {
 *   sim.answer(Answer.text("A short answer."));
 *   LoadResult r = LoadTests.assertSlo(LoadTest.against("http://127.0.0.1:" + appPort).model("chat")
 *       .concurrency(4).duration(Duration.ofSeconds(5)), "ttft.p99<=800ms");
 *   assertTrue(r.outputTokensPerSecond() > 0);
 * }
 * }</pre>
 */
public final class LoadTests {
  private LoadTests() {}

  /**
   * Runs {@code test} with the SLOs added (the bench's grammar, docs/METRICS.md, e.g. {@code
   * ttft.p99<=800ms}, {@code error_rate<=0.01}) and returns its result when every one was met.
   *
   * @throws org.opentest4j.AssertionFailedError when one was missed or no request succeeded,
   *     naming the figures; when the bench could not run at all, with its message
   */
  public static LoadResult assertSlo(LoadTest test, String... slos) {
    if (slos.length == 0) {
      throw new IllegalArgumentException("LoadTests.assertSlo needs at least one SLO, e.g. \"ttft.p99<=800ms\"");
    }
    for (String slo : slos) {
      test.slo(slo);
    }
    LoadResult r;
    try {
      r = test.run();
    } catch (IllegalStateException e) {
      return Assertions.fail(e.getMessage(), e);
    }
    if (!r.sloMet() || r.completed() == 0) {
      Assertions.fail("SLO " + String.join(", ", slos) + " missed: " + r.describe());
    }
    return r;
  }

  /** {@link #assertSlo} with {@code users} virtual users for {@code duration} against {@code url}. */
  public static LoadResult assertSlo(String url, int users, Duration duration, String... slos) {
    return assertSlo(LoadTest.against(url).concurrency(users).duration(duration), slos);
  }
}
