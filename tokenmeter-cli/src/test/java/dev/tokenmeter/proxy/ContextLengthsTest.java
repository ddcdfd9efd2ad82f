package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContextLengthsTest {
  @Test
  void aNamedLimitIsHeldAsNamedWhateverTheContext() {
    assertThat(ContextLengths.outputHold(256, 1, 100, 8192, 4096)).isEqualTo(256);
    assertThat(ContextLengths.outputHold(0, 1, 100, 8192, 4096)).isZero();
  }

  @Test
  void withoutALimitTheContextLessThePromptIsHeldPerAnswer() {
    assertThat(ContextLengths.outputHold(-1, 1, 1000, 8192, 4096)).isEqualTo(7192);
    assertThat(ContextLengths.outputHold(-1, 3, 1000, 8192, 4096)).isEqualTo(3 * 7192);
    // larger than the default for a long context: not capped by it
    assertThat(ContextLengths.outputHold(-1, 1, 1000, 131_072, 4096)).isEqualTo(130_072);
    // a prompt past the context holds no output (the server will refuse it)
    assertThat(ContextLengths.outputHold(-1, 1, 9000, 8192, 4096)).isZero();
  }

  @Test
  void anUnknownContextHoldsTheDefaultPerAnswer() {
    assertThat(ContextLengths.outputHold(-1, 1, 1000, -1, 4096)).isEqualTo(4096);
    assertThat(ContextLengths.outputHold(-1, 2, 1000, -1, 4096)).isEqualTo(8192);
  }

  @Test
  void theSettingsWinInOrderThenWhatTheUpstreamListed() {
    Map<String, Integer> globs = new LinkedHashMap<>();
    globs.put("llama-3.1-8b*", 8192);
    globs.put("llama-*", 131_072);
    ContextLengths c = new ContextLengths(globs);
    assertThat(c.learn("""
        {"object":"list","data":[{"id":"llama-3.1-8b-instruct","object":"model","max_model_len":32768},
          {"id":"qwen","object":"model","max_model_len":40960},
          {"id":"hosted","object":"model","context_length":128000},
          {"id":"gpt-4o","object":"model"}]}""")).isEqualTo(3);
    assertThat(c.of("llama-3.1-8b-instruct")).isEqualTo(8192);
    assertThat(c.of("llama-3.3-70b")).isEqualTo(131_072);
    assertThat(c.of("qwen")).isEqualTo(40_960);
    assertThat(c.of("hosted")).isEqualTo(128_000);
    assertThat(c.of("gpt-4o")).isEqualTo(-1);
    assertThat(c.of(null)).isEqualTo(-1);
  }

  @Test
  void twoUpstreamsListingOneModelKeepTheLargerAndGarbageTeachesNothing() {
    ContextLengths c = new ContextLengths(Map.of());
    c.learn("{\"data\":[{\"id\":\"m\",\"max_model_len\":4096}]}");
    c.learn("{\"data\":[{\"id\":\"m\",\"max_model_len\":16384}]}");
    c.learn("{\"data\":[{\"id\":\"m\",\"max_model_len\":2048}]}");
    assertThat(c.of("m")).isEqualTo(16_384);
    assertThat(c.learn("<html>not json</html>")).isZero();
    assertThat(c.learn("{\"data\":[{\"id\":\"n\",\"max_model_len\":\"big\"},{\"id\":\"o\",\"max_model_len\":0}]}")).isZero();
    assertThat(c.of("n")).isEqualTo(-1);
  }
}
