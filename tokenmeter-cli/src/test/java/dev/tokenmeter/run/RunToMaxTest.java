package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RunToMaxTest {
  @Test
  void onlyIgnoreEosTrueAsksEveryAnswerToRunToItsLimit() {
    assertThat(RunToMax.asked("{\"ignore_eos\":true}")).isEqualTo("ignore_eos");
    assertThat(RunToMax.asked("{\"ignore_eos\":false,\"top_p\":0.9}")).isNull();
    assertThat(RunToMax.asked("{\"min_tokens\":5}")).isNull();
    assertThat(RunToMax.asked(null)).isNull();
    assertThat(RunToMax.asked("  ")).isNull();
  }
}
