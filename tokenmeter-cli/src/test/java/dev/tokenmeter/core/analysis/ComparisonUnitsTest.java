package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.StageComparison.Method;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import dev.tokenmeter.core.analysis.StageComparison.Verdict;
import dev.tokenmeter.core.stats.BlockBootstrap;
import dev.tokenmeter.core.stats.QuantileBootstrap;
import dev.tokenmeter.core.stats.Welch;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Comparisons whose requests come in dependent groups: blocks of time that share the server's
 * state, and repeats of a stage. The p-value rests on the groups, and says so.
 */
class ComparisonUnitsTest {
  private static final StageComparison.Settings S = StageComparison.Settings.DEFAULT;
  private static final int PER_BLOCK = 50;

  /**
   * TTFT of {@code offsets.length} one-second blocks of {@link #PER_BLOCK} requests each: every
   * request of block k takes {@code offsets[k]} ms plus up to 1 ms (the block's server state
   * dominates), scheduled at k + i/50 s.
   */
  private static StageSample blocks(double[] offsets, boolean withTimes) {
    double[] ttft = new double[offsets.length * PER_BLOCK];
    double[] at = new double[ttft.length];
    for (int k = 0; k < offsets.length; k++) {
      for (int i = 0; i < PER_BLOCK; i++) {
        ttft[k * PER_BLOCK + i] = 100 + offsets[k] + i / (double) PER_BLOCK;
        at[k * PER_BLOCK + i] = k + i / (double) PER_BLOCK;
      }
    }
    return new StageSample(0, "c=8", Map.of(), Map.of(Metric.TTFT, ttft), Double.NaN, Double.NaN,
        ttft.length, 0, withTimes ? Map.of(Metric.TTFT, at) : Map.of(), Map.of(), 1);
  }

  private static Row ttftP50(StageSample a, StageSample b) {
    return StageComparison.of(a, b, S).rows().stream()
        .filter(r -> r.quantity() == ComparedQuantity.TTFT_P50).findFirst().orElseThrow();
  }

  @Test
  void blocksOfTimeAreTheUnitWhenTheServerStateDrifts() {
    // B's blocks sit 5 ms above A's, inside a 50 ms drift from block to block: six blocks per side
    // cannot tell them apart, while 300 requests per side, taken as independent, "can".
    double[] offsetsA = {0, 10, 20, 30, 40, 50};
    double[] offsetsB = {5, 15, 25, 35, 45, 55};
    Row onBlocks = ttftP50(blocks(offsetsA, true), blocks(offsetsB, true));
    assertThat(onBlocks.test().method()).isEqualTo(Method.WELCH);
    assertThat(onBlocks.test().basis()).isEqualTo("6 one-second blocks per side");
    // Welch over the block medians by hand: medians are offset + 100.48 (rank 25 of 50).
    double[] ma = Arrays.stream(offsetsA).map(o -> 100.48 + o).toArray();
    double[] mb = Arrays.stream(offsetsB).map(o -> 100.48 + o).toArray();
    assertThat(onBlocks.test().pValue()).isCloseTo(Welch.test(ma, mb, 0.95).pValue(), within(1e-12));
    assertThat(onBlocks.test().pValue()).isGreaterThan(0.5);
    assertThat(onBlocks.verdict()).isEqualTo(Verdict.NO_SIGNIFICANT_DIFFERENCE);

    Row onRequests = ttftP50(blocks(offsetsA, false), blocks(offsetsB, false));
    assertThat(onRequests.test().method()).isEqualTo(Method.MANN_WHITNEY);
    assertThat(onRequests.test().basis()).isEqualTo("requests as independent samples (no request times)");
    assertThat(onRequests.test().pValue()).isLessThan(0.01); // the false alarm blocks avoid
  }

  @Test
  void aShiftOfEveryBlockIsFoundAndTailsUseTheBlockBootstrap() {
    double[] offsets = {0, 3, 1, 4, 2, 5, 1, 3, 2, 4, 0, 5};
    double[] shifted = Arrays.stream(offsets).map(o -> o + 20).toArray();
    StageComparison c = StageComparison.of(blocks(offsets, true), blocks(shifted, true), S);
    Row p50 = c.rows().get(ComparedQuantity.TTFT_P50.ordinal());
    assertThat(p50.verdict()).isEqualTo(Verdict.WORSE);
    assertThat(p50.test().estimate()).isCloseTo(20, within(1e-9));
    assertThat(p50.test().ciLow()).isGreaterThan(15);
    Row p99 = c.rows().get(ComparedQuantity.TTFT_P99.ordinal());
    assertThat(p99.test().method()).isEqualTo(Method.BLOCK_BOOTSTRAP);
    assertThat(p99.verdict()).isEqualTo(Verdict.WORSE);
    assertThat(c.basis()).isEqualTo("12 one-second blocks per side");
  }

  @Test
  void tooFewBlocksAreNotTested() {
    Row r = ttftP50(blocks(new double[] {0, 1, 2, 3}, true), blocks(new double[] {9, 9, 9, 9, 9}, true));
    assertThat(r.verdict()).isEqualTo(Verdict.NOT_TESTED);
    assertThat(r.test().note()).isEqualTo("needs 5 blocks per side, has A 4, B 5 one-second blocks; run longer");
  }

  @Test
  void blocksAreAsLongAsATypicalRequest() {
    double[] e2e = {2_400, 2_600, 2_500};
    StageSample a = new StageSample(0, "c=1", Map.of(), Map.of(Metric.E2E, e2e), 1, 1, 3, 0);
    assertThat(ComparisonUnits.blockSeconds(a, a)).isEqualTo(3); // ⌈2.5 s⌉
    StageSample fast = new StageSample(0, "c=1", Map.of(), Map.of(Metric.E2E, new double[] {80}), 1, 1, 1, 0);
    assertThat(ComparisonUnits.blockSeconds(fast, fast)).isEqualTo(1);
  }

  @Test
  void withRepeatsTheRunsAreTheUnit() {
    // Three repeats per side, 4 requests each; run r of A has p50 (rank 2 of 4) 10 + r, of B 12 + r.
    double[] va = {9, 10, 11, 30, 10, 11, 12, 31, 11, 12, 13, 32};
    double[] vb = {11, 12, 13, 30, 12, 13, 14, 31, 13, 14, 15, 32};
    int[] runOf = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
    StageSample a = new StageSample(0, "c=4", Map.of(), Map.of(Metric.TTFT, va), 1, 1, 12, 0,
        Map.of(), Map.of(Metric.TTFT, runOf), 3);
    StageSample b = new StageSample(0, "c=4", Map.of(), Map.of(Metric.TTFT, vb), 1, 1, 12, 0,
        Map.of(), Map.of(Metric.TTFT, runOf), 3);
    Row r = ttftP50(a, b);
    assertThat(r.test().method()).isEqualTo(Method.WELCH);
    assertThat(r.test().basis()).isEqualTo("3 runs per side");
    Welch.Result byHand = Welch.test(new double[] {10, 11, 12}, new double[] {12, 13, 14}, 0.95);
    assertThat(r.test().pValue()).isEqualTo(byHand.pValue());
    assertThat(r.test().estimate()).isEqualTo(2);
    assertThat(r.test().ciLow()).isEqualTo(byHand.low());
  }

  @Test
  void theBlockBootstrapDrawsWholeBlocks() {
    // Two blocks of very different values: a resample holds 0, 1 or 2 copies of each whole block,
    // so its median is one of the blocks' own values, never a mixture drawn request by request.
    double[] a = {1, 1, 1, 9, 9, 9};
    int[] blocks = {0, 0, 0, 1, 1, 1};
    QuantileBootstrap.Interval same = BlockBootstrap.difference(a, blocks, a, blocks, 0.5, 0.95, 1_000, 7);
    assertThat(same.estimate()).isZero();
    assertThat(same.low()).isEqualTo(-8);
    assertThat(same.high()).isEqualTo(8);
    assertThat(same.pValue()).isEqualTo(1);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> BlockBootstrap.difference(a, new int[] {0, 0, 0, 2, 2, 2}, a, blocks, 0.5, 0.95, 100, 1))
        .withMessageContaining("numbered 0..2");
  }
}
