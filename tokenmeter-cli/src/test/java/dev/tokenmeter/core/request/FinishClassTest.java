package dev.tokenmeter.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every API's finish reasons, as its decoder passes them, in five classes; a content-policy stop fails. */
class FinishClassTest {
  @ParameterizedTest
  @CsvSource({
    "stop, STOP", "length, LENGTH", "tool_calls, TOOL_CALLS", "function_call, TOOL_CALLS",
    "content_filter, CONTENT_FILTER", // OpenAI; Anthropic's refusal arrives mapped to it
    "refusal, CONTENT_FILTER",
    "safety, CONTENT_FILTER", "recitation, CONTENT_FILTER", "blocklist, CONTENT_FILTER", // Gemini, lower-cased
    "prohibited_content, CONTENT_FILTER", "spii, CONTENT_FILTER", "image_safety, CONTENT_FILTER",
    "SAFETY, CONTENT_FILTER",
    "language, OTHER", "pause_turn, OTHER", "eos_token, STOP", "weird, OTHER",
  })
  void mapsEachReason(String reason, FinishClass expected) {
    assertThat(FinishClass.of(reason)).isEqualTo(expected);
  }

  @Test
  void aContentPolicyStopIsAFailureOutOfGoodput() {
    assertThat(FinishClass.of(null)).isEqualTo(FinishClass.OTHER);
    Outcome filtered = Outcome.ended("content_filter");
    assertThat(filtered).isEqualTo(new Outcome.ContentFiltered("content_filter"));
    assertThat(filtered.succeeded()).isFalse();
    assertThat(filtered.errorClass()).isEqualTo(ErrorClass.CONTENT_FILTER);
    assertThat(filtered.errorClass().wireName()).isEqualTo("content_filter");
    assertThat(filtered.description()).contains("content policy", "content_filter");
    assertThat(Outcome.ended("safety").errorClass()).isEqualTo(ErrorClass.CONTENT_FILTER);
    assertThat(Outcome.ended("length")).isEqualTo(new Outcome.Completed("length"));
    assertThat(Outcome.ended(null)).isEqualTo(new Outcome.Completed(null));
    assertThat(Outcome.ended("stop").description()).isNull();
    assertThat(new Outcome.HttpError(503, "").description()).isEqualTo("HTTP 503");
    assertThat(new Outcome.TimedOut(TimeoutKind.IDLE).description()).isEqualTo("timed out: idle");
  }
}
