package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.governance.Period;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Budgets through the proxy, with the simulator as upstream: refusals, settlement, the edge. */
@Timeout(60)
class ProxyBudgetIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<Notice> notices = new CopyOnWriteArrayList<>();
  private final BudgetBook.Listener listener = new BudgetBook.Listener() {
    @Override
    public void used(Budget b, double ratio) {}

    @Override
    public void notice(Notice n) {
      notices.add(n);
    }
  };

  private static String chat(int maxTokens) {
    return "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
        + "\"stream\":true,\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}";
  }

  /** What the proxy reserves for {@code body}: one token per 4 bytes, plus max_tokens. */
  private static long reservation(String body, int maxTokens) {
    return (body.getBytes(StandardCharsets.UTF_8).length + 3L) / 4 + maxTokens;
  }

  /** A chat request that names no output limit. */
  private static final String NO_LIMIT =
      "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

  @Test
  void aRequestWithNoOutputLimitHoldsTheContextTheUpstreamListsLessItsPrompt() throws Exception {
    Budget budget = new Budget("acme", 1000, null, Period.DAY, true);
    BudgetBook book = new BudgetBook(List.of(budget), InstantSource.system(), (m, i, o) -> Double.NaN,
        (t, s) -> TenantSpend.NONE, listener);
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1).maxModelLen(8192));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book)) {
      // the probe of /v1/models runs beside the first requests: before it answers, the default holds
      long deadline = System.nanoTime() + 10_000_000_000L;
      String message = "";
      while (!message.contains("up to 8192 tokens") && System.nanoTime() < deadline) {
        RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", NO_LIMIT, "x-tenant: acme");
        assertThat(r.status()).isEqualTo(429);
        message = JSON.readTree(r.body()).path("error").path("message").asText();
        assertThat(message).containsAnyOf("up to 8192 tokens", "up to " + ((NO_LIMIT.length() + 3) / 4 + 4096) + " tokens");
        Thread.sleep(20);
      }
      assertThat(message).as("prompt estimate + (max_model_len - estimate)").contains("up to 8192 tokens");
    }
  }

  @Test
  void aConfiguredContextLengthWinsAndMayHoldLessThanTheDefault() throws Exception {
    Budget budget = new Budget("acme", 1000, null, Period.DAY, true);
    BudgetBook book = new BudgetBook(List.of(budget), InstantSource.system(), (m, i, o) -> Double.NaN,
        (t, s) -> TenantSpend.NONE, listener);
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book,
            c -> c.withBudgets(new BudgetPlan(List.of(budget), 4096, null, Map.of("tokenmeter-*", 600))))) {
      // 600 in all fits the 1000 tokens; the default (4096 + the prompt) would not
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", NO_LIMIT, "x-tenant: acme");
      assertThat(r.status()).as(r.text()).isEqualTo(200);
    }
  }

  @Test
  void aRequestPastAnEnforcedBudgetGets429WithTheTenantTheBudgetAndTheResetTime() throws Exception {
    Budget budget = new Budget("acme", 1000, null, Period.DAY, true);
    InstantSource clock = InstantSource.fixed(Instant.parse("2026-11-25T23:59:00Z"));
    BudgetBook book = new BudgetBook(List.of(budget), clock, (m, i, o) -> Double.NaN, (t, s) -> TenantSpend.NONE, listener);
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book)) {
      RawHttp.Response refused = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat(2000), "x-tenant: acme");
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.headers().get("retry-after")).isEqualTo("60");
      assertThat(refused.headers().get("content-type")).isEqualTo("application/json");
      JsonNode error = JSON.readTree(refused.body()).get("error");
      assertThat(error.get("type").asText()).isEqualTo("insufficient_quota");
      assertThat(error.get("code").asText()).isEqualTo("budget_exceeded");
      assertThat(error.get("message").asText()).contains("tenant 'acme'", "0 tokens of its 1000 tokens per day budget",
          "up to " + reservation(chat(2000), 2000) + " tokens", "resets at 2026-11-26T00:00:00Z");
      assertThat(sim.records()).isEmpty(); // never reached the upstream

      RawHttp.Response ok = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat(5), "x-tenant: acme");
      assertThat(ok.status()).isEqualTo(200);
      RawHttp.Response other = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", chat(2000), "x-tenant: beta");
      assertThat(other.status()).as("a tenant without a budget").isEqualTo(200);
      List<MeteredRequest> rows = proxy.awaitRecords(3);
      MeteredRequest m = rows.stream().filter(r -> r.tenant().equals("acme") && !r.refusedByProxy()).findFirst().orElseThrow();
      MeteredRequest refusal = rows.stream().filter(MeteredRequest::refusedByProxy).findFirst().orElseThrow();
      assertThat(refusal.tenant()).isEqualTo("acme");
      assertThat(refusal.httpStatus()).isEqualTo(429);
      assertThat(refusal.error()).contains("refused by the proxy", "tenant 'acme'");
      assertThat(m.outputTokens()).isEqualTo(5);
      awaitSettled(book, budget);
      assertThat(book.spent(budget)).isEqualTo(m.inputTokens() + m.outputTokens());
      assertThat(RawHttp.get(proxy.baseUrl(), "/v1/models", "x-tenant: acme").status()).isEqualTo(200);
    }
  }

  /**
   * A completions prompt of 300 token ids: 300 tokens to the server, about 230 to the proxy's
   * estimate (one per 4 bytes of body), so each request uses about 70 tokens beyond its reservation
   * and the bound below is not vacuous.
   */
  private static String completionsOfTokenIds(int maxTokens) {
    StringBuilder ids = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      ids.append(i == 0 ? "" : ",").append(i % 10);
    }
    return "{\"model\":\"tokenmeter-sim\",\"prompt\":[" + ids + "],\"stream\":true,\"max_tokens\":" + maxTokens
        + ",\"ignore_eos\":true}";
  }

  /**
   * 48 requests at once against a budget that holds about 12 reservations, each using more than it
   * reserved (its prompt is underestimated): the settled spend stays within the limit plus the
   * estimate error of the admitted requests (docs/PROXY.md, "Budgets"), and nothing stays reserved.
   */
  @Test
  void concurrentRequestsAtTheEdgeOvershootByNoMoreThanTheEstimateError() throws Exception {
    String body = completionsOfTokenIds(20);
    long perRequest = reservation(body, 20);
    Budget budget = new Budget("acme", perRequest * 12, null, Period.DAY, true);
    BudgetBook book =
        new BudgetBook(List.of(budget), InstantSource.system(), (m, i, o) -> Double.NaN, (t, s) -> TenantSpend.NONE, listener);
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        ProxyFixture proxy = ProxyFixture.withBudgets(sim.baseUrl(), book)) {
      java.util.Map<Integer, Integer> byStatus =
          RawHttp.postMany(48, 48, proxy.baseUrl(), "/v1/completions", body, "x-tenant: acme");
      int ok = byStatus.getOrDefault(200, 0);
      int refused = byStatus.getOrDefault(429, 0);
      assertThat(ok + refused).isEqualTo(48);
      // 12 reservations fit at once; a request that settles above its reservation leaves less room.
      assertThat(ok).isBetween(1, 47);
      assertThat(refused).isPositive();
      List<MeteredRequest> rows = proxy.awaitRecords(48);
      List<MeteredRequest> records = rows.stream().filter(r -> !r.refusedByProxy()).toList();
      assertThat(records).hasSize(ok);
      assertThat(proxy.metrics.refused.get("budget").get()).isEqualTo(refused);
      awaitSettled(book, budget);
      long used = records.stream().mapToLong(r -> r.inputTokens() + r.outputTokens()).sum();
      long estimateError = records.stream().mapToLong(r -> Math.max(0, r.inputTokens() + r.outputTokens() - perRequest)).sum();
      assertThat(book.spent(budget)).isEqualTo(used);
      assertThat(records).allSatisfy(r -> assertThat(r.inputTokens()).isEqualTo(300));
      assertThat(estimateError).as("every admitted request used more than it reserved").isGreaterThanOrEqualTo(ok * 60L);
      assertThat(used).as("settled spend; estimate error %d", estimateError).isLessThanOrEqualTo((long) budget.limit() + estimateError);
      System.out.printf("ProxyBudgetIT edge: limit %d, reservation %d each, %d admitted, %d refused, settled %d, estimate error %d%n",
          (long) budget.limit(), perRequest, ok, refused, used, estimateError);
      List<Integer> passed = java.util.stream.IntStream.of(50, 80, 100).filter(p -> used * 100 >= p * (long) budget.limit())
          .boxed().toList();
      assertThat(notices).extracting(Notice::percent).isEqualTo(passed).contains(50);
    }
  }

  private static void awaitSettled(BudgetBook book, Budget budget) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (book.reserved(budget) > 0) {
      assertThat(System.nanoTime()).as("reservations settled").isLessThan(deadline);
      ProxyFixture.sleepMillis(2);
    }
  }
}
