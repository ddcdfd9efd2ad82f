package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.governance.Period;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.Tenants;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy tried as a tenant trying to overspend would (issue 43): every generation API is
 * governed by the limit its own server honours, and every refusal is a ledger row and a count.
 */
@Timeout(120)
class ProxyOverspendIT {
  private static final BudgetBook.Listener QUIET = new BudgetBook.Listener() {
    @Override
    public void used(Budget b, double ratio) {}

    @Override
    public void notice(Notice n) {}
  };

  private static BudgetBook book(Budget budget) {
    return new BudgetBook(List.of(budget), InstantSource.system(), (m, i, o) -> Double.NaN,
        (t, s) -> TenantSpend.NONE, QUIET);
  }

  /**
   * The overspend as found: 200 requests, 16 at a time, on /v1/completions naming {@code
   * max_completion_tokens: 1} and {@code max_tokens: 256} against a 20,000-token budget. Before, each
   * reserved 1 output token, all were admitted and 53,600 tokens were settled (2.7x). Now each
   * reserves the 256 the server honours: the settled spend stays within the limit plus the estimate
   * error of the admitted requests (docs/PROXY.md, "Budgets"), and every refusal is a ledger row.
   */
  @Test
  void completionsCannotOverspendByNamingAFieldTheirServerIgnores() throws Exception {
    String body = "{\"model\":\"tokenmeter-sim\",\"prompt\":\"hello there\",\"stream\":true,"
        + "\"max_completion_tokens\":1,\"max_tokens\":256,\"ignore_eos\":true}";
    long reservation = (body.getBytes(StandardCharsets.UTF_8).length + 3L) / 4 + 256;
    Budget budget = new Budget("acme", 20_000, null, Period.DAY, true);
    BudgetBook book = book(budget);
    try (SimFixture sim = SimFixture.start(SimFixture.config(1, 0));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book)) {
      java.util.Map<Integer, Integer> byStatus =
          RawHttp.postMany(200, 16, proxy.baseUrl(), "/v1/completions", body, "x-tenant: acme");
      int ok = byStatus.getOrDefault(200, 0);
      int refused = byStatus.getOrDefault(429, 0);
      assertThat(ok + refused).isEqualTo(200);
      List<MeteredRequest> records = proxy.awaitRecords(200);
      awaitSettled(book, budget);
      List<MeteredRequest> served = records.stream().filter(r -> !r.refusedByProxy()).toList();
      List<MeteredRequest> refusals = records.stream().filter(MeteredRequest::refusedByProxy).toList();
      assertThat(served).hasSize(ok);
      assertThat(served).allSatisfy(r -> assertThat(r.outputTokens()).isEqualTo(256));
      assertThat(refusals).hasSize(refused).allSatisfy(r -> {
        assertThat(r.httpStatus()).isEqualTo(429);
        assertThat(r.errorClass().wireName()).isEqualTo("http_429");
        assertThat(r.tenant()).isEqualTo("acme");
        assertThat(r.endpoint()).isEqualTo("/v1/completions");
        assertThat(r.error()).startsWith("HTTP 429: refused by the proxy: ");
      });
      assertThat(proxy.metrics.refused.get("budget").get()).isEqualTo(refused);
      long used = served.stream().mapToLong(r -> r.inputTokens() + r.outputTokens()).sum();
      long estimateError = served.stream().mapToLong(r -> Math.max(0, r.inputTokens() + r.outputTokens() - reservation)).sum();
      assertThat(book.spent(budget)).isEqualTo(used);
      assertThat(used).as("settled; %d admitted, estimate error %d", ok, estimateError)
          .isLessThanOrEqualTo((long) budget.limit() + estimateError);
      // Before: all 200 admitted (1 output token reserved each). Finished requests free room, so
      // more than limit / reservation may be admitted over time; the spend bound above is the claim.
      assertThat(refused).as("admitted at %d tokens each", reservation).isPositive();
      System.out.printf("ProxyOverspendIT completions: %d admitted, %d refused, %d tokens settled of 20000%n",
          ok, refused, used);
    }
  }

  /** Before, /v1/responses and /v1/messages passed an exhausted budget (200) and were metered without tokens. */
  @Test
  void responsesAndMessagesAreGovernedAndMeteredLikeChat() throws Exception {
    String messages = "{\"model\":\"tokenmeter-sim\",\"max_tokens\":12,\"stream\":true,\"ignore_eos\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    String responses = "{\"model\":\"tokenmeter-sim\",\"max_output_tokens\":9,\"stream\":true,\"ignore_eos\":true,"
        + "\"input\":\"hi\"}";
    Budget budget = new Budget("acme", 120, null, Period.DAY, true);
    BudgetBook book = book(budget);
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book)) {
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/messages", messages, "x-tenant: acme").status()).isEqualTo(200);
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/responses", responses, "x-tenant: acme").status()).isEqualTo(200);
      List<MeteredRequest> two = proxy.awaitRecords(2);
      awaitSettled(book, budget);
      for (MeteredRequest r : two) {
        assertThat(r.ok()).as(r.toString()).isTrue();
        assertThat(r.inputTokens()).as(r.endpoint()).isPositive();
        assertThat(r.ttftNanos()).as(r.endpoint()).isPositive();
        assertThat(r.streamed()).isTrue();
      }
      assertThat(two).filteredOn(r -> r.endpoint().equals("/v1/messages")).singleElement()
          .satisfies(r -> assertThat(r.outputTokens()).isEqualTo(12));
      assertThat(two).filteredOn(r -> r.endpoint().equals("/v1/responses")).singleElement()
          .satisfies(r -> assertThat(r.outputTokens()).isEqualTo(9));
      assertThat(book.spent(budget)).isEqualTo(two.stream().mapToLong(r -> r.inputTokens() + r.outputTokens()).sum());

      String big = messages.replace("\"max_tokens\":12", "\"max_tokens\":4000");
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/messages", big, "x-tenant: acme").status()).isEqualTo(429);
      String bigResponses = responses.replace("\"max_output_tokens\":9", "\"max_output_tokens\":4000");
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/responses", bigResponses, "x-tenant: acme").status()).isEqualTo(429);
      assertThat(proxy.awaitRecords(4).subList(2, 4)).allSatisfy(r -> assertThat(r.refusedByProxy()).isTrue());
      assertThat(sim.records()).hasSize(2); // the refused two never reached the upstream
    }
  }

  /**
   * With keys refused, a tenant header chooses only among the key's tenants; each refusal (401 no
   * key, 403 another tenant) is answered, recorded as a row and counted, and never reaches the upstream.
   */
  @Test
  void aHeaderCannotBillATenantItsKeyDoesNotAllowAndEveryRefusalIsARow() throws Exception {
    Tenants tenants = new Tenants(List.of(Tenants.hash("acme", "key-a"), Tenants.hash("beta", "key-b")), "x-tenant", true);
    String chat = "{\"model\":\"tokenmeter-sim\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    try (SimFixture sim = SimFixture.start(SimFixture.config(1, 0));
        ProxyFixture proxy = ProxyFixture.start(sim.baseUrl(), c -> c.withTenants(tenants), TokenCounters.none())) {
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat, "x-tenant: acme").status()).isEqualTo(401);
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat, "authorization: Bearer key-b",
          "x-tenant: acme").status()).isEqualTo(403);
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat, "authorization: Bearer key-b",
          "x-tenant: beta").status()).isEqualTo(200);
      List<MeteredRequest> rows = proxy.awaitRecords(3);
      assertThat(rows).extracting(MeteredRequest::tenant).containsExactlyInAnyOrder("anonymous", "beta", "beta");
      assertThat(rows).extracting(MeteredRequest::httpStatus).containsExactlyInAnyOrder(401, 403, 200);
      assertThat(rows).filteredOn(MeteredRequest::refusedByProxy).hasSize(2)
          .allSatisfy(r -> assertThat(r.errorClass().wireName()).isEqualTo("http_4xx"));
      assertThat(proxy.metrics.refused.get("auth").get()).isEqualTo(1);
      assertThat(proxy.metrics.refused.get("tenant").get()).isEqualTo(1);
      assertThat(sim.records()).hasSize(1);
    }
  }

  /** A 502 tells the client which upstream failed, never its address; the ledger row keeps it. */
  @Test
  void aBadGatewayAnswerDoesNotShowTheUpstreamAddress() throws Exception {
    int port = SimFixture.closedPort();
    try (ProxyFixture proxy = ProxyFixture.start("http://127.0.0.1:" + port)) {
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}");
      assertThat(r.status()).isEqualTo(502);
      String text = new String(r.body(), StandardCharsets.UTF_8);
      assertThat(text).contains("cannot reach upstream 'default'").doesNotContain("127.0.0.1").doesNotContain(":" + port);
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.errorClass().wireName()).isEqualTo("connect");
      assertThat(m.error()).contains("127.0.0.1:" + port);
    }
  }

  private static void awaitSettled(BudgetBook book, Budget budget) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (book.reserved(budget) > 0) {
      assertThat(System.nanoTime()).as("reservations settled").isLessThan(deadline);
      ProxyFixture.sleepMillis(2);
    }
  }
}
