package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.SteadyState.Check;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SteadyStateTest {
  static final long S = 1_000_000_000L;

  /**
   * A series whose window is seconds {@code [warmup, warmup + tokens.length)} of a stage with one
   * extra second of warm-up data (a burst, which must be ignored) and one of cool-down; every
   * second has 4 first tokens with the given mean TTFT in ms.
   */
  static TimeSeries series(long[] tokens, double[] ttftMs) {
    int n = tokens.length + 2;
    long[] out = new long[n];
    long[] first = new long[n];
    long[] ttftSum = new long[n];
    out[0] = 10_000; // warm-up burst
    out[n - 1] = 1; // cool-down trickle
    for (int i = 0; i < tokens.length; i++) {
      out[i + 1] = tokens[i];
      first[i + 1] = Double.isNaN(ttftMs[i]) ? 0 : 4;
      ttftSum[i + 1] = Double.isNaN(ttftMs[i]) ? 0 : Math.round(4 * ttftMs[i] * 1e6);
    }
    return new TimeSeries(
        n * S, S, (n - 1) * S, out, new long[n], new long[n], new double[n], first, ttftSum);
  }

  static double[] ttft(double ms, int n) {
    double[] a = new double[n];
    Arrays.fill(a, ms);
    return a;
  }

  @Test
  void steadySeriesReachesSteadyState() {
    long[] tokens = {100, 104, 97, 101, 99, 103, 98, 100, 102};
    SteadyState s = SteadyState.detect(series(tokens, ttft(50, 9)));
    assertThat(s.reached()).isTrue();
    assertThat(s.failedCheck()).isEqualTo(Check.NONE);
    assertThat(s.seconds()).isEqualTo(9);
    // thirds: (100+104+97)/3, (101+99+103)/3, (98+100+102)/3
    assertThat(s.thirdOutputTokensPerSecond()).containsExactly(301 / 3.0, 101.0, 100.0);
    assertThat(s.thirdMeanTtftMillis()).containsExactly(50.0, 50.0, 50.0);
    assertThat(s.reason()).contains("within ±10%");
  }

  @Test
  void rampFailsTheThroughputTest() {
    long[] tokens = {10, 20, 30, 40, 50, 60, 70, 80, 90};
    SteadyState s = SteadyState.detect(series(tokens, ttft(50, 9)));
    assertThat(s.reached()).isFalse();
    assertThat(s.failedCheck()).isEqualTo(Check.THROUGHPUT);
    // thirds 20, 50, 80 around 50: third 1 and 3 are both 60% off, the first one is reported.
    assertThat(s.reason()).isEqualTo(
        "output tokens/s of third 1 is 20.0, 60% below the window mean 50.0 (limit ±10%)");
  }

  @Test
  void stallFailsTheThroughputTest() {
    long[] tokens = {100, 100, 100, 100, 100, 100, 0, 0, 0};
    SteadyState s = SteadyState.detect(series(tokens, ttft(50, 9)));
    assertThat(s.reached()).isFalse();
    assertThat(s.failedCheck()).isEqualTo(Check.THROUGHPUT);
    assertThat(s.reason()).startsWith("output tokens/s of third 3 is 0.0, 100% below");
  }

  @Test
  void risingTtftFailsTheTtftTest() {
    long[] tokens = {100, 100, 100, 100, 100, 100, 100, 100, 100};
    double[] ttft = {50, 50, 50, 60, 60, 60, 100, 100, 100}; // queue building up
    SteadyState s = SteadyState.detect(series(tokens, ttft));
    assertThat(s.reached()).isFalse();
    assertThat(s.failedCheck()).isEqualTo(Check.TTFT);
    // mean 70 ms, allowed ±17.5 ms: third 1 (50) is 20 ms off.
    assertThat(s.reason())
        .isEqualTo("mean TTFT of third 1 is 50.0 ms, the window mean 70.0 ms (limit ±17.5 ms)");
  }

  @Test
  void smallTtftJitterPassesThanksToTheAbsoluteFloor() {
    long[] tokens = {100, 100, 100, 100, 100, 100};
    double[] ttft = {4, 4, 8, 8, 12, 12}; // ±100% relative, but within 5 ms of the 8 ms mean
    assertThat(SteadyState.detect(series(tokens, ttft)).reached()).isTrue();
  }

  @Test
  void noFirstTokenSkipsTheTtftTest() {
    long[] tokens = {100, 100, 100};
    SteadyState s = SteadyState.detect(series(tokens, ttft(Double.NaN, 3)));
    assertThat(s.reached()).isTrue();
    assertThat(s.reason()).endsWith("TTFT test skipped");
    assertThat(s.thirdMeanTtftMillis().get(0)).isNaN();
  }

  @Test
  void tooShortAndEmptyWindowsAreNotSteady() {
    SteadyState shortOne = SteadyState.detect(series(new long[] {100, 100}, ttft(5, 2)));
    assertThat(shortOne.failedCheck()).isEqualTo(Check.TOO_SHORT);
    assertThat(shortOne.reason()).isEqualTo("only 2 whole seconds in the window, 3 needed");

    SteadyState silent = SteadyState.detect(series(new long[] {0, 0, 0}, ttft(Double.NaN, 3)));
    assertThat(silent.failedCheck()).isEqualTo(Check.NO_OUTPUT);

    TimeSeries noWindow =
        new TimeSeries(3 * S, -1, -1, new long[3], new long[3], new long[3], new double[3],
            new long[3], new long[3]);
    assertThat(SteadyState.detect(noWindow).failedCheck()).isEqualTo(Check.TOO_SHORT);
  }

  @Test
  void windowSecondsAreThoseWithTheirMidpointInsideTheWindow() {
    // Window [0.4 s, 3.6 s) of a 4.3 s stage: seconds 0..3 have midpoints inside; second 4 is
    // partial and left out even though it is not in the window anyway.
    long[] out = {100, 100, 100, 100, 7};
    TimeSeries ts =
        new TimeSeries(4_300_000_000L, 400_000_000L, 3_600_000_000L, out, new long[5],
            new long[5], new double[5], new long[5], new long[5]);
    assertThat(SteadyState.detect(ts).seconds()).isEqualTo(4);
  }
}
