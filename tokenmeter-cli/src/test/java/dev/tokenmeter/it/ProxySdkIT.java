package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official OpenAI Node SDK through the proxy (the same pinned SDK and check script as
 * SdkCompatIT): everything it makes of the simulator directly it makes of it through the proxy;
 * a stream that did not ask for usage shows no usage chunk though the proxy metered usage; an
 * abort reaches the server; errors arrive as the SDK's own error classes.
 */
@Timeout(180)
class ProxySdkIT {

  @BeforeAll
  static void install() throws Exception {
    SdkCompatIT.install();
  }

  private static SimConfig.Builder sim() {
    return SimConfig.builder().port(0).servedModelName(SdkCompatIT.MODEL)
        .timing(TimingModel.fixed(TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(2)));
  }

  @Test
  void theSdkSeesThroughTheProxyWhatItSeesDirectly() throws Exception {
    JsonNode direct;
    JsonNode proxied;
    try (SimServer server = SimServer.start(sim().build())) {
      direct = SdkCompatIT.sdk(server.baseUrl(), "all");
      try (ProxyFixture proxy = ProxyFixture.start(server.baseUrl())) {
        proxied = SdkCompatIT.sdk(proxy.baseUrl(), "all");
        List<MeteredRequest> records = proxy.awaitRecords(7);
        assertThat(records).extracting(MeteredRequest::endpoint).contains("/v1/models", "/v1/chat/completions", "/v1/completions");
        assertThat(records).filteredOn(MeteredRequest::streamed).allSatisfy(m -> {
          assertThat(m.ok()).as(m.toString()).isTrue();
          assertThat(m.outputTokensSource()).isEqualTo(TokenCountSource.USAGE);
        });
        assertThat(records).filteredOn(m -> m.httpStatus() == 400).singleElement()
            .satisfies(m -> assertThat(m.errorClass()).isEqualTo(ErrorClass.HTTP_4XX));
      }
    }
    // The generated text differs from one request to the next (the simulator draws it per request),
    // so its length is left out; every other observation is equal.
    assertThat(withoutChars(proxied)).isEqualTo(withoutChars(direct));
  }

  private static String withoutChars(JsonNode r) {
    JsonNode copy = r.deepCopy();
    copy.forEach(step -> {
      if (step instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
        o.remove("chars");
      }
    });
    return copy.toString();
  }

  @Test
  void aStreamWithoutUsageStaysWithoutAndAnAbortReachesTheServer() throws Exception {
    try (SimServer server = SimServer.start(sim().build()); ProxyFixture proxy = ProxyFixture.start(server.baseUrl())) {
      JsonNode r = SdkCompatIT.sdk(proxy.baseUrl(), "plain");
      assertThat(r.at("/plainStream/usageSeen").asBoolean()).as(r.toString()).isFalse();
      assertThat(r.at("/plainStream/emptyChoices").asInt()).isZero();
      assertThat(r.at("/plainStream/contentChunks").asInt()).isEqualTo(12);
      assertThat(r.at("/plainStream/finish").asText()).isEqualTo("length");
      // This SDK ends the iteration quietly on abort; the stream stopped early all the same.
      assertThat(r.at("/abort/contentChunks").asInt()).as(r.toString()).isBetween(2, 199);
      List<MeteredRequest> records = proxy.awaitRecords(2);
      MeteredRequest plain = records.stream().filter(MeteredRequest::ok).findFirst().orElseThrow();
      assertThat(plain.outputTokens()).isEqualTo(12);
      assertThat(plain.outputTokensSource()).isEqualTo(TokenCountSource.USAGE);
      MeteredRequest aborted = records.stream().filter(m -> !m.ok()).findFirst().orElseThrow();
      assertThat(aborted.errorClass()).isEqualTo(ErrorClass.CANCELLED);
      assertThat(aborted.chunks()).isBetween(2, 199);
    }
  }

  @Test
  void faultsReachTheSdkAsItsOwnErrors() throws Exception {
    for (Fault fault : List.of(Fault.HTTP_429, Fault.ERROR_EVENT)) {
      try (SimServer server = SimServer.start(sim().faults(Faults.none().with(fault, 1.0)).build());
          ProxyFixture proxy = ProxyFixture.start(server.baseUrl())) {
        JsonNode r = SdkCompatIT.sdk(proxy.baseUrl(), "faults");
        if (fault == Fault.HTTP_429) {
          assertThat(r.at("/chat/threw").asText()).as(r.toString()).isEqualTo("RateLimitError");
          assertThat(r.at("/chatStream/threw").asText()).isEqualTo("RateLimitError");
        } else {
          assertThat(r.at("/chatStream/threw").asText()).as(r.toString()).isEqualTo("APIError");
        }
        assertThat(proxy.awaitRecords(2)).extracting(MeteredRequest::errorClass).contains(
            fault == Fault.HTTP_429 ? ErrorClass.HTTP_429 : ErrorClass.STREAM_ERROR);
      }
    }
  }
}
