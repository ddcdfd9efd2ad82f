package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.governance.Period;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.ledger.UsageQuery;
import dev.tokenmeter.ledger.UsageReport;
import dev.tokenmeter.ledger.UsageRow;
import dev.tokenmeter.proxy.Prices;
import dev.tokenmeter.proxy.ProxyConfig;
import dev.tokenmeter.proxy.ProxyServer;
import dev.tokenmeter.proxy.Tenants;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.proxy.Upstream;
import dev.tokenmeter.proxy.dashboard.BoardView;
import dev.tokenmeter.testkit.HeadlessChromium;
import dev.tokenmeter.testkit.SimFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live dashboard in headless Chromium, served by a proxy in front of the in-process simulator
 * while a known load runs through it: the page keeps updating without a reload, and once the load
 * has ended every figure it shows equals the ledger's for the same window (and the records' where
 * the ledger has no such figure), with no console errors and no request but its own feed.
 *
 * <p>Needs headless Chromium ({@link HeadlessChromium}: skipped without it, unless required).
 */
@Timeout(120)
class ProxyDashboardBrowserIT {
  private static final long LIMIT_TOKENS = 1_000_000;
  /** The load: 3 users for 5 s, at most 150 requests, on loopback. */
  private static final int USERS = 3;
  private static final long LOAD_MILLIS = 5_000;
  private static final int MAX_REQUESTS = 150;

  @TempDir Path tmp;
  private final List<MeteredRequest> records = new CopyOnWriteArrayList<>();

  private static String chat(String model, int maxTokens) {
    return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],"
        + "\"stream\":true,\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}";
  }

  @Test
  void thePageUpdatesLiveAndShowsTheLedgersFigures() throws Exception {
    HeadlessChromium.assumeInstalled();
    Budget budget = new Budget("acme", LIMIT_TOKENS, null, Period.DAY, false);
    BudgetBook book = new BudgetBook(List.of(budget), InstantSource.system(), (m, i, o) -> Double.NaN,
        (t, s) -> TenantSpend.NONE, new BudgetBook.Listener() {
          @Override
          public void used(Budget b, double ratio) {}

          @Override
          public void notice(Notice n) {}
        });
    Ledger ledger = Ledgers.open(tmp.resolve("ledger.db").toString());
    LedgerWriter writer = ledger.writer();
    Prices prices = new Prices("USD", List.of(new Prices.Entry("tokenmeter-*", 1.0, 4.0)));
    try (SimFixture sim = SimFixture.start(SimFixture.config(30, 10))) {
      ProxyConfig config = ProxyConfig.of(0, Upstream.parse(Upstream.DEFAULT_NAME, sim.baseUrl(), null))
          .withTenants(new Tenants(List.of(), "x-tenant", false))
          .withPrices(prices)
          .withBudgets(new BudgetPlan(List.of(budget), 4096, null));
      try (ProxyServer proxy = ProxyServer.start(config, List.of(writer, records::add), null, book,
              TokenCounters.none(), Ticker.system(), InstantSource.system());
          HeadlessChromium browser = HeadlessChromium.openUrl(proxy.baseUrl() + "/dashboard")) {
        awaitTrue(() -> polls(browser) >= 1, 10_000, "the page's first poll");
        browser.js("window.tmSamePage = 'yes'");
        int sent = loadWhileWatching(browser, proxy.baseUrl());
        awaitTrue(() -> proxy.recorded() == sent && writer.written() == sent, 10_000, "every request in the ledger");
        long after = polls(browser);
        awaitTrue(() -> polls(browser) >= after + 2, 10_000, "two polls after the load");
        assertThat(browser.js("return window.tmSamePage")).as("no reload").isEqualTo("yes");
        checkFigures(browser, ledger, book, budget);
        assertThat(browser.errorsSoFar()).as("SEVERE console entries").isEmpty();
        @SuppressWarnings("unchecked")
        List<String> fetched = (List<String>) browser.js(
            "return performance.getEntriesByType('resource').map(e => e.name)");
        assertThat(fetched).isNotEmpty().allMatch(u -> u.startsWith(proxy.baseUrl() + "/dashboard/data?window=5m"));
      }
    } finally {
      writer.close();
    }
  }

  @Test
  void aBannerShowsWhileTheLedgerFailsWithTheRecordsItDropped() throws Exception {
    HeadlessChromium.assumeInstalled();
    java.util.concurrent.atomic.AtomicReference<BoardView.Ledger> health =
        new java.util.concurrent.atomic.AtomicReference<>(new BoardView.Ledger("ok", null, 0, 0, 0, null));
    try (SimFixture sim = SimFixture.start(SimFixture.config(30, 10));
        ProxyServer proxy = ProxyServer.start(ProxyConfig.of(0, Upstream.parse(Upstream.DEFAULT_NAME, sim.baseUrl(), null)),
            List.of(records::add), null, null, TokenCounters.none(), Ticker.system(), InstantSource.system())) {
      proxy.board().ledgerHealth(health::get);
      try (HeadlessChromium browser = HeadlessChromium.openUrl(proxy.baseUrl() + "/dashboard")) {
        awaitTrue(() -> polls(browser) >= 1, 10_000, "the page's first poll");
        assertThat(browser.js("return document.getElementById('ledger-banner').hidden")).isEqualTo(true);
        health.set(new BoardView.Ledger("failing", 12L, 6, 340, 300, "database is locked"));
        awaitTrue(() -> Boolean.FALSE.equals(browser.js("return document.getElementById('ledger-banner').hidden")),
            10_000, "the banner");
        assertThat((String) browser.js("return document.getElementById('ledger-banner').innerText"))
            .contains("The ledger is failing: no commit for 12 s (database is locked)")
            .contains("300 records dropped during this outage (340 since start)");
        health.set(new BoardView.Ledger("ok", null, 6, 340, 0, null));
        awaitTrue(() -> Boolean.TRUE.equals(browser.js("return document.getElementById('ledger-banner').hidden")),
            10_000, "the banner to go");
        assertThat((String) browser.js("return document.getElementById('ledger-note').innerText"))
            .isEqualTo("ledger: 340 records dropped since start");
        assertThat(browser.errorsSoFar()).as("SEVERE console entries").isEmpty();
      }
    }
  }

  /** Runs the load; while it runs, a figure on the page changes and requests show in flight. */
  private int loadWhileWatching(HeadlessChromium browser, String base) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    AtomicInteger count = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    long end = System.nanoTime() + LOAD_MILLIS * 1_000_000;
    ExecutorService users = Executors.newFixedThreadPool(USERS);
    List<Future<?>> done = new java.util.ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      String tenant = u == 0 ? "zeta" : "acme";
      done.add(users.submit(() -> {
        for (int i = 0; System.nanoTime() < end && count.incrementAndGet() <= MAX_REQUESTS; i++) {
          sent.incrementAndGet();
          // every tenth request names a model the simulator does not serve: a 404 (http_4xx)
          String model = i % 10 == 9 ? "no-such-model" : "tokenmeter-sim";
          HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
              .header("content-type", "application/json").header("x-tenant", tenant)
              .POST(HttpRequest.BodyPublishers.ofString(chat(model, 8 + (i * 7) % 33))).build();
          http.send(req, HttpResponse.BodyHandlers.ofString());
        }
        return null;
      }));
    }
    int maxInFlight = 0;
    awaitTrue(() -> number(browser, "out-tokens") > 0, LOAD_MILLIS, "output tokens on the page while the load runs");
    double first = number(browser, "out-tokens");
    long firstPolls = polls(browser);
    awaitTrue(() -> number(browser, "out-tokens") != first, LOAD_MILLIS, "a new figure without a reload");
    assertThat(polls(browser)).isGreaterThan(firstPolls);
    while (System.nanoTime() < end) {
      maxInFlight = Math.max(maxInFlight, (int) cellNumber(browser, "upstreams", "default", "in-flight"));
      Thread.sleep(200);
    }
    for (Future<?> f : done) {
      f.get();
    }
    users.shutdown();
    assertThat(maxInFlight).as("requests in flight seen while the load ran").isPositive();
    return sent.get();
  }

  private void checkFigures(HeadlessChromium browser, Ledger ledger, BudgetBook book, Budget budget) {
    long windowStart = ((Number) browser.js("return window.tmDashboard.data.window_start_epoch_ms")).longValue();
    UsageReport usage = ledger.usage(new UsageQuery(Instant.ofEpochMilli(windowStart), null, UsageQuery.GroupBy.TENANT));
    UsageRow total = usage.total();
    assertThat(total.requests()).isEqualTo(records.size());
    assertThat(total.errorsByClass()).containsOnlyKeys("http_4xx");
    assertThat(number(browser, "requests-count")).isEqualTo(total.requests());
    assertThat(number(browser, "errors-count")).isEqualTo(total.errors());
    assertThat(cellNumber(browser, "errors-by-class", "http_4xx", null)).isEqualTo(total.errorsByClass().get("http_4xx").longValue());
    assertThat(number(browser, "ttft-p50")).isEqualTo(total.ttftMs().p50());
    assertThat(number(browser, "ttft-p99")).isEqualTo(total.ttftMs().p99());
    assertThat(number(browser, "ttft-count")).isEqualTo(total.ttftMs().count());
    assertThat(number(browser, "tps-p50")).isEqualTo(total.decodeTps().p50());
    assertThat(number(browser, "tps-p10")).isEqualTo(total.decodeTps().p10());
    assertThat(number(browser, "tps-count")).isEqualTo(total.decodeTps().count());
    // tokens over the window: every token of the load arrived inside it
    assertThat(number(browser, "in-tokens")).isEqualTo(total.inputTokens());
    assertThat(number(browser, "out-tokens")).isEqualTo(total.outputTokens());
    assertThat(number(browser, "out-tps")).isCloseTo(total.outputTokens() / 300.0, within(1e-9));
    for (UsageRow row : usage.rows()) {
      String t = row.key();
      assertThat(cellNumber(browser, "tenants", t, "requests")).as(t).isEqualTo(row.requests());
      assertThat(cellNumber(browser, "tenants", t, "input")).as(t).isEqualTo(row.inputTokens());
      assertThat(cellNumber(browser, "tenants", t, "output")).as(t).isEqualTo(row.outputTokens());
      assertThat(cellNumber(browser, "tenants", t, "spend")).as(t).isCloseTo(row.spend().get("USD"), within(1e-9));
    }
    assertThat(usage.rows()).extracting(UsageRow::key).containsExactly("acme", "zeta");
    // acme's budget bar: its settled tokens this day, from the book, equal to its records'
    long acmeTokens = records.stream().filter(r -> r.tenant().equals("acme"))
        .mapToLong(r -> Math.max(0, r.inputTokens()) + Math.max(0, r.outputTokens())).sum();
    assertThat(book.spent(budget)).isEqualTo(acmeTokens);
    assertThat(Double.parseDouble(attribute(browser, "tr[data-tenant='acme'] .budget", "data-ratio"))).isCloseTo(acmeTokens / (double) LIMIT_TOKENS, within(1e-12));
    // warm-up: from the first request's start to the first healthy token, by hand from the records
    long firstStart = records.stream().mapToLong(MeteredRequest::startedAtEpochMillis).min().orElseThrow();
    long firstToken = records.stream().filter(r -> r.ok() && r.ttftNanos() >= 0 && r.outputTokens() > 0)
        .mapToLong(r -> (long) Math.floor(r.startedAtEpochMillis() + r.proxyQueueNanos() / 1e6 + r.ttftNanos() / 1e6))
        .min().orElseThrow();
    assertThat(cellNumber(browser, "upstreams", "default", "warm-up")).isEqualTo(firstToken - firstStart);
    assertThat(cellNumber(browser, "upstreams", "default", "in-flight")).isZero();
    assertThat(cellNumber(browser, "upstreams", "default", "requests")).isEqualTo(total.requests());
    assertThat(browser.js("return document.querySelector(\"tr[data-upstream='default'] .state\").textContent"))
        .isEqualTo("warm");
    assertThat(browser.js("return document.getElementById('slo').textContent")).isEqualTo("no SLOs configured");
  }

  private static long polls(HeadlessChromium browser) {
    return ((Number) browser.js("return window.tmDashboard.polls")).longValue();
  }

  /**
   * Attribute {@code name} of the element {@code css} selects, read in one script call: the page
   * rebuilds its tables on every poll, so an element found in one call may be gone by the next.
   */
  private static String attribute(HeadlessChromium browser, String css, String name) {
    return (String) browser.js("const e = document.querySelector(arguments[0]); return e && e.getAttribute(arguments[1])",
        css, name);
  }

  /** The raw value (data-v) of element {@code id}. */
  private static double number(HeadlessChromium browser, String id) {
    String v = attribute(browser, "#" + id, "data-v");
    return v == null || v.isEmpty() ? Double.NaN : Double.parseDouble(v);
  }

  /** The raw value of cell {@code cls} (or the row's last) of the row keyed {@code key} in table body {@code id}. */
  private static double cellNumber(HeadlessChromium browser, String id, String key, String cls) {
    String attr = Map.of("upstreams", "data-upstream", "tenants", "data-tenant", "errors-by-class", "data-class").get(id);
    String css = "#" + id + " tr[" + attr + "='" + key + "'] " + (cls == null ? "td.num" : "td." + cls);
    String v = attribute(browser, css, "data-v");
    return v == null || v.isEmpty() ? Double.NaN : Double.parseDouble(v);
  }

  private static void awaitTrue(BooleanSupplier condition, long timeoutMillis, String what) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
      }
      Thread.sleep(100);
    }
  }
}
