package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code tokenmeter proxy --budget}: spend survives a restart through the ledger; mistakes exit 2. */
@Timeout(90)
class ProxyBudgetCliIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final String BODY =
      "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"max_tokens\":3}";

  /** A proxy run in this JVM until {@link #stop}. */
  private record Running(String base, Thread thread, CompletableFuture<Cli.Result> result) {
    Cli.Result stop() throws Exception {
      thread.interrupt();
      return result.get(20, TimeUnit.SECONDS);
    }
  }

  private static Running proxy(String... args) throws Exception {
    CompletableFuture<String> url = new CompletableFuture<>();
    CompletableFuture<Cli.Result> result = new CompletableFuture<>();
    List<String> all = new ArrayList<>(List.of("proxy", "--listen", "127.0.0.1:0"));
    all.addAll(List.of(args));
    Thread t = new Thread(() -> result.complete(Cli.run(line -> {
      Matcher m = LISTENING.matcher(line);
      if (m.find()) {
        url.complete(m.group(1));
      }
    }, all.toArray(String[]::new))));
    t.start();
    return new Running(url.get(20, TimeUnit.SECONDS), t, result);
  }

  @Test
  void theSpendOfTheDaySoFarComesBackFromTheLedgerAfterARestart(@TempDir Path dir) throws Exception {
    Path ledgerFile = dir.resolve("ledger.db");
    long reservation = (BODY.getBytes(StandardCharsets.UTF_8).length + 3L) / 4 + 3;
    List<String> posted = new CopyOnWriteArrayList<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", x -> {
      posted.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      x.sendResponseHeaders(204, -1);
      x.close();
    });
    receiver.start();
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      // not enforced: every request passes, and the first passes 50, 80 and 100 % of 10 tokens
      Running first = proxy("--upstream", sim.baseUrl(), "--ledger", ledgerFile.toString(),
          "--budget", "anonymous=10 tokens/day", "--alert-webhook",
          "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook");
      for (int i = 0; i < 3; i++) {
        assertThat(RawHttp.post(first.base(), "/v1/chat/completions", BODY).status()).isEqualTo(200);
      }
      Thread.sleep(300); // the record thread settles and the ledger writes
      Cli.Result done = first.stop();
      assertThat(done.exitCode()).as(done.both()).isZero();
      assertThat(done.err()).contains("budget notice: tenant 'anonymous' reached 50% of its 10 tokens per day budget")
          .contains("reached 80%").contains("reached 100%");
      assertThat(posted).hasSize(3).allSatisfy(p -> assertThat(p).contains("\"kind\":\"budget\"", "\"tenant\":\"anonymous\""));

      Ledger ledger = Ledgers.open(ledgerFile.toString(), Map.of());
      long spent = ledger.spend("anonymous", Instant.now().truncatedTo(ChronoUnit.DAYS)).tokens();
      assertThat(spent).isPositive();
      long limit = spent + reservation - 1; // room for this request only if the restart forgot the spend
      Running second = proxy("--upstream", sim.baseUrl(), "--ledger", ledgerFile.toString(),
          "--budget", "anonymous=" + limit + " tokens/day/enforce");
      RawHttp.Response refused = RawHttp.post(second.base(), "/v1/chat/completions", BODY);
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.text()).contains("tenant 'anonymous' has used " + spent + " tokens of its " + limit
          + " tokens per day budget");
      String metrics = RawHttp.get(second.base(), "/metrics").text();
      assertThat(metrics).contains("tokenmeter_proxy_budget_used_ratio{period=\"day\",tenant=\"anonymous\",unit=\"tokens\"} "
          + ((double) spent / limit));
      assertThat(second.stop().exitCode()).isZero();
    } finally {
      receiver.stop(0);
    }
  }

  @Test
  void budgetMistakesAreOneLineEachAndExit2() {
    Cli.Result r = Cli.run("proxy", "--upstream", "http://127.0.0.1:1", "--budget", "acme=25 USD/day",
        "--budget", "acme=100 tokens/fortnight", "--alert-webhook", "nowhere", "--context-length", "llama*=lots");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err())
        .contains("4 mistakes in the proxy's settings:")
        .contains("budget of 'acme': a money limit ('25 USD') needs a price table: give --prices FILE")
        .contains("budget of 'acme': period 'fortnight' is not day or month")
        .contains("alert webhook 'nowhere': write an http(s)://HOST[:PORT]/PATH URL")
        .contains("context length of 'llama*': not a whole number of tokens above 0")
        .doesNotContain("Exception");
    Cli.Result sync = Cli.run("proxy", "--upstream", "http://127.0.0.1:1", "--budget-sync", "soon", "--proxy-id", "a b");
    assertThat(sync.exitCode()).as(sync.both()).isEqualTo(2);
    assertThat(sync.err()).contains("--budget-sync 'soon' is not a duration; use e.g. 60s, 500ms")
        .doesNotContain("Exception");
  }
}
