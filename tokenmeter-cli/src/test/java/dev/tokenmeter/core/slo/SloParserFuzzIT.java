package dev.tokenmeter.core.slo;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code --slo} grammar under Jazzer: parsed into at least one objective, or refused with
 * {@link IllegalArgumentException} (exit 2, one line); nothing else escapes. Seeds in
 * SloParserFuzzITInputs/.
 */
@ExtendWith(FuzzRuns.class)
class SloParserFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void slo(byte[] bytes) {
    FuzzRuns.one(SloParserFuzzIT.class);
    String text = new String(bytes, StandardCharsets.UTF_8);
    try {
      assertThat(Slo.parse(text).objectives()).isNotEmpty();
    } catch (IllegalArgumentException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }
}
