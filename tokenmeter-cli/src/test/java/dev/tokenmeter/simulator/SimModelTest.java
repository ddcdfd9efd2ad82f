package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pure parts: fault slices, length distributions, the prompt estimate, the timing model. */
class SimModelTest {

  @Test
  void faultsTakeConsecutiveSlicesInDeclarationOrder() {
    Faults faults =
        Faults.none().with(Fault.HTTP_429, 0.1).with(Fault.STALL, 0.2).with(Fault.HTTP_503, 0.05);
    // Order: HTTP_429 [0, .1), HTTP_503 [.1, .15), STALL [.15, .35), then NONE.
    assertThat(faults.pick(0.0, true)).isEqualTo(Fault.HTTP_429);
    assertThat(faults.pick(0.0999, true)).isEqualTo(Fault.HTTP_429);
    assertThat(faults.pick(0.1, true)).isEqualTo(Fault.HTTP_503);
    assertThat(faults.pick(0.1501, true)).isEqualTo(Fault.STALL); // 0.1 + 0.05 rounds above 0.15
    assertThat(faults.pick(0.3499, true)).isEqualTo(Fault.STALL);
    assertThat(faults.pick(0.3501, true)).isEqualTo(Fault.NONE);
    assertThat(faults.pick(0.2, false)).as("mid-stream fault skipped").isEqualTo(Fault.NONE);
    assertThat(Faults.none().pick(0.0, true)).isEqualTo(Fault.NONE);
    assertThat(Faults.none().with(Fault.ERROR_EVENT, 1.0).pick(0.999_999, true))
        .isEqualTo(Fault.ERROR_EVENT);
  }

  @Test
  void faultProbabilitiesAreValidated() {
    assertThatThrownBy(() -> Faults.none().with(Fault.HTTP_500, 0.6).with(Fault.HTTP_503, 0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Faults.none().with(Fault.HTTP_500, -0.1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Faults.none().with(Fault.NONE, 0.1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Faults.none().with(Fault.HTTP_500, 0.1).with(Fault.HTTP_429, 0.2).with(
        Fault.STALL, 0.7).any()).isTrue(); // sums to 1 up to rounding
  }

  @Test
  void outputLengthsStayInRangeAndRepeatBySeed() {
    SplittableRandom a = new SplittableRandom(7);
    SplittableRandom b = new SplittableRandom(7);
    OutputLengths uniform = OutputLengths.uniform(16, 20);
    int[] seen = new int[21];
    for (int i = 0; i < 10_000; i++) {
      int n = uniform.sample(a);
      assertThat(n).isEqualTo(uniform.sample(b));
      seen[n]++;
    }
    for (int n = 16; n <= 20; n++) {
      assertThat(seen[n]).isBetween(1_800, 2_200); // 2,000 expected each
    }
    assertThat(OutputLengths.fixed(9).sample(a)).isEqualTo(9);
    assertThat(OutputLengths.geometric(1).sample(a)).isEqualTo(1);
  }

  @Test
  void geometricLengthsHaveTheRequestedMean() {
    SplittableRandom random = new SplittableRandom(11);
    OutputLengths geometric = OutputLengths.geometric(100);
    long sum = 0;
    int samples = 100_000;
    for (int i = 0; i < samples; i++) {
      int n = geometric.sample(random);
      assertThat(n).isPositive();
      sum += n;
    }
    // Standard deviation ≈ 99.5, so the mean of 1e5 samples is within ±1.6 at 5 sigma.
    assertThat(sum / (double) samples).isBetween(98.4, 102.0);
  }

  @Test
  void promptTokenEstimate() {
    assertThat(PromptTokens.text("")).isZero();
    assertThat(PromptTokens.text("abcd")).isEqualTo(1);
    assertThat(PromptTokens.text("abcde")).isEqualTo(2);
    assertThat(PromptTokens.text("😀😀😀😀😀")).as("code points, not chars").isEqualTo(2);
    // 3 priming + (4 + 3) + (4 + 0)
    assertThat(PromptTokens.chat(List.of("hello there", ""))).isEqualTo(14);
  }

  @Test
  void fixedTimingModel() {
    GenerationRequest r =
        new GenerationRequest(1, GenerationRequest.Api.CHAT, true, 10, 20, 20, 0);
    TimingModel fixed = TimingModel.fixed(50, 20);
    assertThat(fixed.firstTokenDelayNanos(r)).isEqualTo(50);
    assertThat(fixed.interTokenDelayNanos(r, 7)).isEqualTo(20);
    assertThat(TimingModel.zero().interTokenDelayNanos(r, 1)).isZero();
    assertThatThrownBy(() -> TimingModel.fixed(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new GenerationRequest(1, GenerationRequest.Api.CHAT, true, 10, 20, 21, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void vocabularyIsPreEscapedJson() {
    List<String> escaped =
        java.util.stream.IntStream.range(0, Vocabulary.size())
            .mapToObj(
                i -> new String(Vocabulary.jsonBytes(i), java.nio.charset.StandardCharsets.UTF_8))
            .toList();
    assertThat(escaped).contains(" the", "\\n", "\\\"", " café");
  }
}
