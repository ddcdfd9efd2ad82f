package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenizerHeapCheckTest {
  @Test
  void warnsWhenTheServersModelLoadsATokenizerIntoAHeapSizedWithoutOne() {
    assertThat(TokenizerHeapCheck.warning("o200k_base", "gpt-4o", "96"))
        .startsWith("tokenmeter: warning: the launcher sized the Java heap (-Xmx96m) for a run without a tokenizer")
        .contains("model 'gpt-4o' loads o200k_base")
        .endsWith("Give --model gpt-4o so that the launcher adds room for it, or TOKENMETER_JAVA_OPTS=-Xmx136m");
  }

  @Test
  void saysNothingWithoutATokenizerOrWithoutTheLaunchersMark() {
    assertThat(TokenizerHeapCheck.warning(null, "tokenmeter-sim", "96")).isNull();
    assertThat(TokenizerHeapCheck.warning("o200k_base", "gpt-4o", null)).isNull(); // --model given, or -Xmx
    assertThat(TokenizerHeapCheck.warning("o200k_base", "gpt-4o", "96m")).isNull(); // not the launcher's
  }
}
