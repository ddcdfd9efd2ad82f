package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.Prices;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.Routing;
import dev.tokenmeter.proxy.ScriptedUpstream;
import dev.tokenmeter.proxy.Tenants;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.proxy.Upstream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several upstreams, routed by model glob or header; tenants from hashed API keys or a header;
 * unknown keys refused; an upstream's own key from the environment replacing the client's; cost
 * from the price table.
 */
@Timeout(60)
class ProxyRoutingIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USAGE =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"
          + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":2000,"
          + "\"prompt_tokens_details\":{\"cached_tokens\":600},"
          + "\"completion_tokens_details\":{\"reasoning_tokens\":1500}}}\n\ndata: [DONE]\n\n";

  private static ScriptedUpstream upstream(String name) {
    return new ScriptedUpstream((r, out, in) -> {
      out.write(ScriptedUpstream.sseHead().replace("\r\n\r\n", "\r\nx-served-by: " + name + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.write(ScriptedUpstream.chunk(USAGE));
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    });
  }

  private static String body(String model) {
    return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
  }

  @Test
  void modelsAndHeadersPickTheUpstreamAndKeysPickTheTenant() throws Exception {
    Tenants.Entry acme = Tenants.hash("acme", "sk-acme-1");
    try (ScriptedUpstream a = upstream("a"); ScriptedUpstream b = upstream("b")) {
      Map<String, Upstream> ups = new LinkedHashMap<>();
      ups.put("a", Upstream.parse("a", a.baseUrl(), null));
      ups.put("b", Upstream.parse("b", b.baseUrl(), "sk-upstream-b"));
      Routing routing = new Routing(ups, List.of(new Routing.Route("gpt-*", "b")), "x-upstream");
      Tenants tenants = new Tenants(List.of(acme), "x-tenant", true);
      Prices prices = new Prices("USD", List.of(new Prices.Entry("gpt-4o*", 2.5, 10)));
      try (ProxyFixture proxy = ProxyFixture.start(a.baseUrl(),
          c -> c.withRouting(routing).withTenants(tenants).withPrices(prices), TokenCounters.none())) {
        String url = proxy.baseUrl();
        RawHttp.Response toB = RawHttp.post(url, "/v1/chat/completions", body("gpt-4o-mini"), "Authorization: Bearer sk-acme-1");
        RawHttp.Response toA = RawHttp.post(url, "/v1/chat/completions", body("llama"), "Authorization: Bearer sk-acme-1");
        RawHttp.Response byHeader = RawHttp.post(url, "/v1/chat/completions", body("gpt-4o"), "x-upstream: a",
            "Authorization: Bearer sk-acme-1");
        // Unknown keys are refused: a tenant header alone bills nobody (issue 43).
        RawHttp.Response headerOnly = RawHttp.post(url, "/v1/chat/completions", body("llama"), "x-tenant: beta");
        RawHttp.Response unknownKey = RawHttp.post(url, "/v1/chat/completions", body("llama"), "Authorization: Bearer sk-nope");
        RawHttp.Response noUpstream = RawHttp.post(url, "/v1/chat/completions", body("llama"), "x-upstream: zz",
            "Authorization: Bearer sk-acme-1");

        assertThat(toB.headers().get("x-served-by")).isEqualTo("b");
        assertThat(toA.headers().get("x-served-by")).isEqualTo("a");
        assertThat(byHeader.headers().get("x-served-by")).isEqualTo("a");
        // The usage chunk the proxy asked for is gone; the answer is intact.
        assertThat(toB.text()).doesNotContain("usage").contains("\"hi\"").endsWith("data: [DONE]\n\n");
        assertThat(unknownKey.status()).isEqualTo(401);
        assertThat(JSON.readTree(unknownKey.body()).at("/error/code").asText()).isEqualTo("invalid_api_key");
        assertThat(unknownKey.text()).doesNotContain("sk-nope");
        assertThat(headerOnly.status()).isEqualTo(401);
        assertThat(noUpstream.status()).isEqualTo(400);
        assertThat(noUpstream.text()).contains("x-upstream names no upstream; upstreams: a, b");

        // b has its own key: the client's never reaches it; a gets the client's as it was.
        assertThat(b.requests.get(0).headers()).containsEntry("authorization", "Bearer sk-upstream-b");
        assertThat(a.requests.get(0).headers()).containsEntry("authorization", "Bearer sk-acme-1");

        List<MeteredRequest> all = proxy.awaitRecords(6);
        List<MeteredRequest> records = all.stream().filter(m -> !m.refusedByProxy()).toList();
        MeteredRequest first = records.stream().filter(m -> "b".equals(m.upstream())).findFirst().orElseThrow();
        assertThat(first.tenant()).isEqualTo("acme");
        assertThat(first.inputTokens()).isEqualTo(1000);
        assertThat(first.outputTokens()).isEqualTo(2000);
        assertThat(first.cachedTokens()).isEqualTo(600);
        assertThat(first.reasoningTokens()).isEqualTo(1500);
        assertThat(first.cost()).isCloseTo(1000 * 2.5 / 1e6 + 2000 * 10 / 1e6, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(first.currency()).isEqualTo("USD");
        assertThat(records).extracting(MeteredRequest::tenant).containsExactlyInAnyOrder("acme", "acme", "acme");
        assertThat(records.stream().filter(m -> m.model().equals("llama")).findFirst().orElseThrow().cost()).isNaN();
        ProxyFixture.sleepMillis(50);
        // Every refusal is a row too: two 401s (unknown key, header alone) and the 400, sent nowhere.
        assertThat(proxy.records).hasSize(6);
        assertThat(all).filteredOn(MeteredRequest::refusedByProxy).extracting(MeteredRequest::httpStatus)
            .containsExactlyInAnyOrder(401, 401, 400);
      }
    }
  }
}
