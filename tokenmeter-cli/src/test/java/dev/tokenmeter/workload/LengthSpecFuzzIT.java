package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Length specs ({@code --input-tokens}, {@code --output-tokens}) under Jazzer: parsed, or refused
 * with {@link IllegalArgumentException} (exit 2, one line); nothing else escapes. Seeds in
 * LengthSpecFuzzITInputs/.
 */
@ExtendWith(FuzzRuns.class)
class LengthSpecFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void lengthSpec(byte[] bytes) {
    FuzzRuns.one(LengthSpecFuzzIT.class);
    String text = new String(bytes, StandardCharsets.UTF_8);
    try {
      assertThat(LengthSpec.parse(text)).isNotNull();
    } catch (IllegalArgumentException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }
}
