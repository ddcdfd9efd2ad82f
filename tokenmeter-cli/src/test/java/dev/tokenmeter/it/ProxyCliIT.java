package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.Tenants;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code tokenmeter proxy}: serving, its settings checked at start, and {@code hash-key}. */
@Timeout(60)
class ProxyCliIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

  @Test
  void servesUntilStoppedAndSaysWhatItMetered(@TempDir Path dir) throws Exception {
    Path ledger = dir.resolve("ledger.db");
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      CompletableFuture<String> url = new CompletableFuture<>();
      Thread[] runner = new Thread[1];
      CompletableFuture<Cli.Result> result = new CompletableFuture<>();
      runner[0] = new Thread(() -> result.complete(Cli.run(line -> {
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          url.complete(m.group(1));
        }
      }, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(), "--ledger", ledger.toString())));
      runner[0].start();
      String base = url.get(20, TimeUnit.SECONDS);
      RawHttp.Response r = RawHttp.post(base, "/v1/chat/completions",
          "{\"model\":\"tokenmeter-sim\",\"prompt\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"max_tokens\":3}");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).contains("[DONE]");
      Thread.sleep(200); // the record thread counts the request
      RawHttp.Response metrics = RawHttp.get(base, "/metrics");
      assertThat(metrics.status()).isEqualTo(200);
      assertThat(metrics.text())
          .contains("gen_ai_client_token_usage_sum{gen_ai_operation_name=\"chat\",gen_ai_request_model=\"tokenmeter-sim\",gen_ai_token_type=\"output\",tenant=\"anonymous\",upstream=\"default\"} 3.0");
      runner[0].interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
      assertThat(done.err()).contains("default=http://127.0.0.1:" + sim.server().port())
          .contains("ledger " + ledger)
          .contains("stopped; 1 requests metered, 0 records dropped (record queue full), 1 written to the ledger, 0 dropped by it");
      Cli.Result usage = Cli.run("proxy", "usage", "--ledger", ledger.toString(), "--json");
      assertThat(usage.exitCode()).as(usage.both()).isZero();
      assertThat(usage.out()).contains("\"requests\" : 1").contains("\"output_tokens\" : 3");
    }
  }

  @Test
  void everyMistakeInTheSettingsIsListedOnItsOwnLine(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        listen: nowhere
        upstreams:
          - {name: a, url: "ftp://127.0.0.1:1"}
          - {name: b, url: "http://127.0.0.1:2", api_key_env: TOKENMETER_TEST_SURELY_UNSET}
        routes:
          - {model: "gpt-*", upstream: c}
        colour: blue
        tenants: {unknown: sometimes}
        """);
    Cli.Result r = Cli.run("proxy", "--config", config.toString(), "--prices", dir.resolve("none.yaml").toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err())
        .contains("7 mistakes in the proxy's settings:")
        .contains("unknown setting 'colour'")
        .contains("listen 'nowhere': write HOST:PORT")
        .contains("upstream a: 'ftp://127.0.0.1:1' must start with http://")
        .contains("TOKENMETER_TEST_SURELY_UNSET (api_key_env) is not set")
        .contains("route 'gpt-*=c' names no upstream")
        .contains("'sometimes' is neither 'refuse' nor 'anonymous'")
        .contains("none.yaml cannot be read")
        .doesNotContain("Exception");
  }

  @Test
  void balanceFlagsThatCannotWorkAreRefusedAtStart(@TempDir Path dir) {
    Cli.Result one = Cli.run("proxy", "--upstream", "http://127.0.0.1:1", "--balance", "tps", "--ledger", "none");
    assertThat(one.exitCode()).as(one.both()).isEqualTo(2);
    assertThat(one.err()).contains("a mistake in the proxy's settings:\n  --balance tps needs two or more"
        + " upstreams serving the same model").doesNotContain("Exception");
    Cli.Result seeds = Cli.run("proxy", "--upstream", "a=http://127.0.0.1:1", "--upstream", "b=http://127.0.0.1:2",
        "--route", "llama*=a,b", "--balance", "tps", "--tps-seed", "a=" + dir, "--tps-seed", "c=" + dir,
        "--ledger", "none");
    assertThat(seeds.exitCode()).as(seeds.both()).isEqualTo(2);
    assertThat(seeds.err())
        .contains("2 mistakes")
        .contains("--tps-seed a=" + dir + ": no summary.json there")
        .contains("--tps-seed c=" + dir + " names no upstream; upstreams: a, b")
        .doesNotContain("Exception");
  }

  @Test
  void aBusyListenPortIsOneLineNamingThePortAndTheFix() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      Cli.Result r = Cli.run("proxy", "--listen", "127.0.0.1:" + port, "--upstream", "http://127.0.0.1:1",
          "--ledger", "none");
      assertThat(r.exitCode()).as(r.both()).isEqualTo(1);
      assertThat(r.err().strip().lines().toList()).as(r.both()).containsExactly(
          "tokenmeter: cannot listen on 127.0.0.1:" + port + ": the port is already in use (another"
              + " process, or another proxy, listens there); stop it, or pick another port with --listen HOST:PORT"
              + " (port 0: any free one)");
    }
    Cli.Result elsewhere = Cli.run("proxy", "--listen", "192.0.2.1:0", "--upstream", "http://127.0.0.1:1",
        "--ledger", "none"); // TEST-NET-1 (RFC 5737): never this machine's
    assertThat(elsewhere.exitCode()).as(elsewhere.both()).isEqualTo(1);
    assertThat(elsewhere.err().strip()).as(elsewhere.both()).isEqualTo("tokenmeter: cannot listen on 192.0.2.1:0: the"
        + " address is not one of this machine's; pick one of its addresses (or 0.0.0.0) with --listen HOST:PORT");
  }

  @Test
  void tlsFlagsReachTheSettings(@TempDir Path dir) {
    Path missing = dir.resolve("missing.pem");
    Cli.Result r = Cli.run("proxy", "--upstream", "https://127.0.0.1:1", "--upstream-ca", missing.toString(),
        "--tls-cert", missing.toString(), "--ledger", "none", "--max-in-flight", "0", "--idle-timeout", "1m");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).contains("3 mistakes")
        .contains("upstream 'default': CA certificate " + missing)
        .contains("TLS on the listener needs both --tls-cert CERT.pem and --tls-key KEY.pem")
        .contains("max in flight must be at least 1, got 0")
        .doesNotContain("Exception");
  }

  @Test
  void noUpstreamIsAMistake() {
    Cli.Result r = Cli.run("proxy");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("no upstream: give --upstream http://HOST:PORT");
  }

  @Test
  void hashKeyPrintsAnEntryThatMatchesTheKeyAndNeverTheKey() throws Exception {
    String key = "sk-test-0123456789abcdef";
    InputStream in = System.in;
    Cli.Result r;
    try {
      System.setIn(new ByteArrayInputStream((key + "\n").getBytes(StandardCharsets.UTF_8)));
      r = Cli.run("proxy", "hash-key", "--tenant", "acme");
    } finally {
      System.setIn(in);
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).startsWith("acme sha256:").doesNotContain(key);
    Tenants tenants = new Tenants(java.util.List.of(Tenants.Entry.parse(r.out().strip())), null, true);
    assertThat(tenants.resolve(new DefaultHttpHeaders().set("authorization", "Bearer " + key)))
        .isEqualTo(new Tenants.Result.Tenant("acme"));
    assertThat(tenants.resolve(new DefaultHttpHeaders().set("authorization", "Bearer " + key + "x")))
        .isInstanceOf(Tenants.Result.Refused.class);
  }
}
