package dev.tokenmeter.proxy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.ledger.MeteredRequest;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * A {@link ProxyServer} on a free 127.0.0.1 port in front of {@code upstreamUrl}, with a recording
 * sink and a {@link FakeMetrics}: what tests of the proxy start.
 */
public final class ProxyFixture implements AutoCloseable {
  public final ProxyServer server;
  public final List<MeteredRequest> records = new CopyOnWriteArrayList<>();
  public final FakeMetrics metrics = new FakeMetrics();

  private ProxyFixture(ProxyConfig config, TokenCounters counters, BudgetBook budgetsOrNull) {
    server = ProxyServer.start(config, List.of(records::add), metrics, budgetsOrNull, counters, Ticker.system(),
        InstantSource.system());
  }

  public static ProxyFixture start(String upstreamUrl) {
    return start(upstreamUrl, c -> c, TokenCounters.none());
  }

  public static ProxyFixture start(String upstreamUrl, UnaryOperator<ProxyConfig> adjust, TokenCounters counters) {
    ProxyConfig base = ProxyConfig.of(0, Upstream.parse(Upstream.DEFAULT_NAME, upstreamUrl, null));
    return new ProxyFixture(adjust.apply(base), counters, null);
  }

  /** A proxy whose tenants come from header {@code x-tenant}, governed by {@code budgets}. */
  public static ProxyFixture withBudgets(String upstreamUrl, BudgetBook budgets) {
    return withBudgets(upstreamUrl, budgets, c -> c);
  }

  /** {@link #withBudgets(String, BudgetBook)} with its configuration adjusted. */
  public static ProxyFixture withBudgets(String upstreamUrl, BudgetBook budgets, UnaryOperator<ProxyConfig> adjust) {
    ProxyConfig base = ProxyConfig.of(0, Upstream.parse(Upstream.DEFAULT_NAME, upstreamUrl, null))
        .withTenants(new Tenants(List.of(), "x-tenant", false));
    return new ProxyFixture(adjust.apply(base), TokenCounters.none(), budgets);
  }

  public String baseUrl() {
    return server.baseUrl();
  }

  /** Waits until {@code n} records arrived (at most 5 s) and returns them in arrival order. */
  public List<MeteredRequest> awaitRecords(int n) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (records.size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(records.size() + " records, expected " + n + ": " + records);
      }
      sleepMillis(2);
    }
    return new ArrayList<>(records);
  }

  public static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis); // a socket test: waiting for the record thread
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
