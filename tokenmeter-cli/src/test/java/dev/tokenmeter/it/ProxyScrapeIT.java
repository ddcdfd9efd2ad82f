package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.PrometheusServer;
import dev.tokenmeter.testkit.SimFixture;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus scrapes the {@code /metrics} route of a running {@code tokenmeter proxy} (budgets,
 * an SLO, drift against a baseline, a price table, a SQLite ledger) in front of the simulator; its
 * queries return what was sent, {@code promtool check metrics} finds nothing to lint in the body,
 * the families exported are exactly the ones docs/PROXY.md, "Metrics" lists, and every label is in
 * its "Labels" table.
 */
@Timeout(180)
class ProxyScrapeIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final Pattern TYPE_LINE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("[{,]([a-zA-Z_][a-zA-Z0-9_]*)=\"");
  private static final Pattern DOC_ROW = Pattern.compile("(?m)^\\| `([a-z_:]+)` \\| (histogram|counter|gauge) \\|");
  private static final int SENT = 100; // the drift monitor checks every 100 requests
  private static final int REFUSED = 3;
  private static final int MAX_TOKENS = 12;

  @TempDir Path dir;

  @Test
  void prometheusScrapesTheRunningProxyAndEveryDocumentedFamilyIsThere() throws Exception {
    PrometheusServer.assumeInstalled();
    Path baseline = dir.resolve("baseline");
    Path prices = dir.resolve("prices.yaml");
    Files.writeString(prices, "currency: USD\nmodels:\n  - {model: \"*\", input: 2.0, output: 8.0}\n");
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1))) {
      Cli.Result bench = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "1", "--requests", "60",
          "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "256", "--output-tokens", "12",
          "--extra-body", "{\"ignore_eos\":true}", "--out", baseline.toString(), "-q");
      assertThat(bench.exitCode()).as(bench.both()).isZero();

      CompletableFuture<String> url = new CompletableFuture<>();
      CompletableFuture<Cli.Result> result = new CompletableFuture<>();
      Thread proxy = new Thread(() -> result.complete(Cli.run(line -> {
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          url.complete(m.group(1));
        }
      }, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(), "--ledger", dir.resolve("ledger.db").toString(),
          "--tenant-header", "x-tenant", "--prices", prices.toString(),
          "--budget", "acme=1000 tokens/day", "--budget", "tight=1 tokens/day/enforce",
          "--slo", "ttft.p99<=2s", "--baseline", baseline.toString())));
      proxy.start();
      String base = url.get(20, TimeUnit.SECONDS);
      for (int i = 0; i < SENT; i++) {
        assertThat(RawHttp.post(base, "/v1/chat/completions", body(1200), "x-tenant: acme").status()).isEqualTo(200);
      }
      for (int i = 0; i < REFUSED; i++) {
        assertThat(RawHttp.post(base, "/v1/chat/completions", body(100), "x-tenant: tight").status()).isEqualTo(429);
      }
      try (PrometheusServer prometheus = PrometheusServer.start(dir, URI.create(base).getPort())) {
        prometheus.awaitValue("tokenmeter_proxy_requests_total{tenant=\"acme\"}", SENT);
        prometheus.awaitValue("tokenmeter_proxy_drift{dimension=\"input_tokens\"}", 1);
        assertThat(prometheus.value("up{job=\"tokenmeter\"}")).isEqualTo(1);
        assertThat(prometheus.value("tokenmeter_proxy_refused_requests_total{reason=\"budget\"}")).isEqualTo(REFUSED);
        String usage = "gen_ai_client_token_usage_%s{gen_ai_token_type=\"%s\",tenant=\"acme\"}";
        assertThat(prometheus.value(usage.formatted("count", "output"))).isEqualTo(SENT);
        assertThat(prometheus.value(usage.formatted("sum", "output"))).isEqualTo(SENT * MAX_TOKENS);
        double input = prometheus.value(usage.formatted("sum", "input"));
        assertThat(input).isBetween(SENT * 1150.0, SENT * 1250.0);
        assertThat(prometheus.value("tokenmeter_proxy_cost_total{tenant=\"acme\",currency=\"USD\"}"))
            .isCloseTo((input * 2 + SENT * MAX_TOKENS * 8) / 1e6, within(1e-9));
        assertThat(prometheus.value("tokenmeter_proxy_budget_used_ratio{tenant=\"acme\",unit=\"tokens\",period=\"day\"}"))
            .isCloseTo((input + SENT * MAX_TOKENS) / 1000, within(1e-9));
        assertThat(prometheus.value("gen_ai_server_time_to_first_token_seconds_count{tenant=\"acme\"}")).isEqualTo(SENT);
        assertThat(prometheus.value("tokenmeter_proxy_slo_alert{severity=\"page\"}")).isZero();
        assertThat(prometheus.value("tokenmeter_proxy_ledger_failed_commits_total")).isZero();
        assertThat(prometheus.value("tokenmeter_proxy_active_requests{upstream=\"default\"}")).isZero();
      }
      RawHttp.Response scrape = RawHttp.get(base, "/metrics");
      // the dashboard hears of the ledger from the proxy's watch: a ledger that commits reads ok
      assertThat(new ObjectMapper().readTree(RawHttp.get(base, "/dashboard/data").body()).at("/ledger/state").asText())
          .isEqualTo("ok");
      proxy.interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
      assertThat(done.err()).contains("budget notice: tenant 'acme' reached 100% of its 1000 tokens per day budget")
          .contains("drift notice: prompts are");

      assertThat(scrape.status()).isEqualTo(200);
      PrometheusServer.ToolResult lint = PrometheusServer.checkMetrics(scrape.body());
      assertThat(lint.output()).as("promtool check metrics").isEmpty();
      assertThat(lint.exitCode()).isZero();
      assertThat(families(scrape.text())).as("exported families (right) against docs/PROXY.md, Metrics (left)")
          .isEqualTo(documented());
      assertThat(documentedLabels()).as("docs/PROXY.md, Labels").containsAll(labels(scrape.text()));
    }
  }

  /** A streamed chat request of about {@code promptTokens} prompt tokens as the simulator counts them. */
  private static String body(int promptTokens) {
    return "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "abcd".repeat(promptTokens - 7)
        + "\"}],\"stream\":true,\"max_tokens\":" + MAX_TOKENS + ",\"ignore_eos\":true}";
  }

  /** Name to type of every family of an exposition, counters under their {@code _total} name. */
  private static Map<String, String> families(String exposition) {
    Map<String, String> types = new TreeMap<>();
    Matcher m = TYPE_LINE.matcher(exposition);
    while (m.find()) {
      String name = m.group(2).equals("counter") && !m.group(1).endsWith("_total") ? m.group(1) + "_total" : m.group(1);
      types.put(name, m.group(2));
    }
    return types;
  }

  /** Name to type of every row of docs/PROXY.md's table under "### Metrics". */
  static Map<String, String> documented() throws Exception {
    String doc = Files.readString(Path.of("docs/PROXY.md"));
    int start = doc.indexOf("\n### Metrics\n");
    assertThat(start).as("docs/PROXY.md has a ### Metrics section").isPositive();
    int end = doc.indexOf("\n### ", start + 1);
    Map<String, String> types = new TreeMap<>();
    Matcher m = DOC_ROW.matcher(doc.substring(start, end));
    while (m.find()) {
      types.put(m.group(1), m.group(2));
    }
    assertThat(types).as("rows of the metrics table").hasSizeGreaterThan(15);
    return types;
  }

  /** Every label name of an exposition's samples but {@code le}. */
  private static Set<String> labels(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      Matcher m = LABEL.matcher(line);
      while (!line.startsWith("#") && m.find()) {
        names.add(m.group(1));
      }
    }
    names.remove("le");
    assertThat(names).as("label names in the scrape").hasSizeGreaterThan(10);
    return names;
  }

  /** The label names docs/PROXY.md's table under "### Labels" names (a row may name several). */
  private static Set<String> documentedLabels() throws Exception {
    String doc = Files.readString(Path.of("docs/PROXY.md"));
    int start = doc.indexOf("\n### Labels\n");
    assertThat(start).as("docs/PROXY.md has a ### Labels section").isPositive();
    Set<String> names = new TreeSet<>();
    for (String line : doc.substring(start, doc.indexOf("\n### ", start + 1)).split("\n")) {
      if (line.startsWith("| `")) {
        Matcher m = Pattern.compile("`([a-z_]+)`").matcher(line.substring(0, line.indexOf(" |", 2)));
        while (m.find()) {
          names.add(m.group(1));
        }
      }
    }
    return names;
  }
}
