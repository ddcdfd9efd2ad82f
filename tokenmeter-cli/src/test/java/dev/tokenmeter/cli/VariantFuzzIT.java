package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --variant NAME:key=value,...} under Jazzer: parsed, or refused with {@link UsageException}
 * or {@link IllegalArgumentException} (exit 2, one line); nothing else escapes. Seeds in
 * VariantFuzzITInputs/.
 */
@ExtendWith(FuzzRuns.class)
class VariantFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void variant(byte[] bytes) {
    FuzzRuns.one(VariantFuzzIT.class);
    String text = new String(bytes, StandardCharsets.UTF_8);
    try {
      assertThat(Variant.parse(text).name()).isNotBlank();
    } catch (IllegalArgumentException | UsageException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }
}
