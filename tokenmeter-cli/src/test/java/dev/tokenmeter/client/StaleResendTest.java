package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a request is sent again after a failed write: the rule bench and the proxy share. */
class StaleResendTest {
  private final StaleResend resend = new StaleResend();

  @Test
  void aStalePooledConnectionIsResentOnceOnAFreshOne() {
    resend.sending(/* pooled= */ true);

    assertThat(resend.afterWriteFailure()).isTrue();
    assertThat(resend.afterWriteFailure()).as("at most once per pooled send").isFalse();

    resend.sending(/* pooled= */ false); // the fresh connection
    assertThat(resend.afterWriteFailure()).as("a fresh connection's failure is the request's").isFalse();
  }

  @Test
  void neverAfterAResponseBegan() {
    resend.sending(/* pooled= */ true);
    resend.responded();

    assertThat(resend.anyResponse()).isTrue();
    assertThat(resend.afterWriteFailure()).isFalse();
  }

  @Test
  void neverOnAFreshConnection() {
    resend.sending(/* pooled= */ false);

    assertThat(resend.afterWriteFailure()).isFalse();
  }

  @Test
  void eachPooledSendHasItsOwnChance() {
    resend.sending(/* pooled= */ true);
    resend.responded();
    resend.sending(/* pooled= */ true); // the next request on another pooled connection

    assertThat(resend.anyResponse()).isFalse();
    assertThat(resend.afterWriteFailure()).isTrue();
  }
}
