package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MarkdownTest {
  @Test
  void pipesAreEscapedAndLineBreaksBecomeSpaces() {
    assertThat(Markdown.escape("ttft.p99<=1s | tps")).isEqualTo("ttft.p99<=1s \\| tps");
    assertThat(Markdown.escape("a\nb\r\nc\rd")).isEqualTo("a b c d");
    assertThat(Markdown.escape("plain")).isEqualTo("plain");
  }
}
