package dev.tokenmeter.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one text a failure is recorded with, in requests.jsonl and in the proxy's ledger alike. */
class OutcomeTest {

  @Test
  void aLongErrorBodyIsCutAtTheStatedLengthWithAnEllipsis() {
    String body = "x".repeat(5000);
    String d = new Outcome.HttpError(500, body).description();
    assertThat(d).hasSize(Outcome.MAX_DESCRIPTION_CHARS).startsWith("HTTP 500: xxx").endsWith("...");
    assertThat(new Outcome.HttpError(500, "short").description()).isEqualTo("HTTP 500: short");
    assertThat(new Outcome.HttpError(404, "").description()).isEqualTo("HTTP 404");
    assertThat(new Outcome.Completed("stop").description()).isNull();
  }

  @Test
  void anErrorEventWithoutAMessageReadsTheSameWhateverItsMessageWasMissingAs() {
    assertThat(Outcome.streamError(null).description()).isEqualTo("error event in stream");
    assertThat(Outcome.streamError("").description()).isEqualTo("error event in stream");
    assertThat(Outcome.streamError("overloaded").description()).isEqualTo("overloaded");
    assertThat(Outcome.streamError("").errorClass()).isEqualTo(ErrorClass.STREAM_ERROR);
  }
}
