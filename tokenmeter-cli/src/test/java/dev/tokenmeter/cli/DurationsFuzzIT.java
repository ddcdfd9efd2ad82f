package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --duration}-style values under Jazzer: a value is accepted as a non-negative number of
 * nanoseconds or refused with {@link IllegalArgumentException} (exit 2, one line); nothing else
 * escapes. Seeds in DurationsFuzzITInputs/.
 */
@ExtendWith(FuzzRuns.class)
class DurationsFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void duration(byte[] bytes) {
    FuzzRuns.one(DurationsFuzzIT.class);
    String text = new String(bytes, StandardCharsets.UTF_8);
    try {
      assertThat(Durations.parseNanos("--duration", text)).as("'%s'", text).isNotNegative();
    } catch (IllegalArgumentException | UsageException expected) {
      assertThat(expected.getMessage()).isNotBlank().doesNotContain("\n");
    }
  }
}
