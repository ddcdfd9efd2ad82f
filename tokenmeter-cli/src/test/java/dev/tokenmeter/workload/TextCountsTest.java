package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextCountsTest {
  @Test
  void wordsAreRunsOfNonSpace() {
    assertThat(TextCounts.words("")).isZero();
    assertThat(TextCounts.words("  a  b\tc\n")).isEqualTo(3);
    assertThat(TextCounts.words("你好")).isEqualTo(1);
  }
}
