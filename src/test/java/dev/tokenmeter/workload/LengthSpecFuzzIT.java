package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Length specs ({@code --input-tokens}, {@code --output-tokens}) under Jazzer: parsed, or refused
 * with {@link IllegalArgumentException} (exit 2, one line); nothing else escapes. Seeds in
 * LengthSpecFuzzITInputs/.
 */
class LengthSpecFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void lengthSpec(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    try {
      assertThat(LengthSpec.parse(text)).isNotNull();
    } catch (IllegalArgumentException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }
}
