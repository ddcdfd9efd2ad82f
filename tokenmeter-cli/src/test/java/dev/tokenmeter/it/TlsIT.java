package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SelfSignedCert;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench over {@code https://}: a JDK HTTPS server with a freshly made self-signed certificate
 * (keytool), streaming a fixed five-token answer. Its TLS handshake is made slow on purpose (the
 * key manager waits {@value #HANDSHAKE_DELAY_MS} ms), so a handshake counted in TTFT instead of in
 * the connect time cannot go unnoticed.
 */
@Timeout(60)
class TlsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long HANDSHAKE_DELAY_MS = 300;
  private static final String PASSWORD = "changeit";

  @TempDir static Path certs;
  private static HttpsServer server;
  private static Path caPem;

  @BeforeAll
  static void start() throws Exception {
    SelfSignedCert cert = SelfSignedCert.create(certs);
    caPem = cert.caPem();
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(new javax.net.ssl.KeyManager[] {new SlowKeys(cert.keyManager())}, null, null);
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ctx));
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/v1/models", x -> reply(x, "{\"object\":\"list\",\"data\":[{\"id\":\"tls-model\"}]}"));
    server.createContext("/v1/chat/completions", TlsIT::stream);
    server.start();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
  }

  private static String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void benchOverHttpsWithCaCertCountsTheHandshakeAsConnectTimeNotTtft(@TempDir Path out) throws IOException {
    Cli.Result r = Cli.run("bench", "--url", url(), "--ca-cert", caPem.toString(), "--concurrency", "1",
        "--requests", "4", "--warmup", "0s", "--input-tokens", "8", "--output-tokens", "5", "-q",
        "--out", out.toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(0);
    List<JsonNode> lines = measured(out);
    assertThat(lines).hasSize(4);
    JsonNode first = lines.get(0);
    assertThat(first.get("ok").asBoolean()).as(first.toString()).isTrue();
    assertThat(first.get("new_connection").asBoolean()).as(first.toString()).isTrue();
    assertThat(first.get("connect_ms").asDouble()).isGreaterThanOrEqualTo(HANDSHAKE_DELAY_MS);
    // The answer streams at once: a TTFT of the delay or more would mean the handshake leaked in.
    assertThat(first.get("ttft_ms").asDouble()).isLessThan(HANDSHAKE_DELAY_MS * 0.8);
    for (JsonNode line : lines) {
      assertThat(line.get("output_tokens").asInt()).as(line.toString()).isEqualTo(5);
    }
    assertThat(lines.subList(1, 4)).allSatisfy(l -> assertThat(l.get("new_connection").asBoolean()).isFalse());
  }

  @Test
  void untrustedCertificateFailsBeforeTheRunWithTheFix() {
    Cli.Result r = Cli.run("bench", "--url", url(), "--concurrency", "1", "--requests", "1", "-q");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2); // a flag to fix (--ca-cert, --insecure): exit 2
    assertThat(r.err()).contains("TLS handshake").contains("--ca-cert").contains("--insecure");
    assertThat(r.err()).doesNotContain("\tat ");
  }

  @Test
  void insecureAcceptsTheSelfSignedCertificate(@TempDir Path out) throws IOException {
    Cli.Result r = Cli.run("bench", "--url", url(), "--insecure", "--concurrency", "1", "--requests", "2",
        "--warmup", "0s", "--input-tokens", "8", "--output-tokens", "5", "-q", "--out", out.toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(0);
    assertThat(measured(out)).hasSize(2).allSatisfy(l -> assertThat(l.get("ok").asBoolean()).isTrue());
  }

  @Test
  void everyEventLoopHandshakesItsOwnConnections(@TempDir Path out) throws IOException {
    // 4 users over 2 loops: each loop opens and handshakes 2 connections with its own TLS handler.
    Cli.Result r = Cli.run("bench", "--url", url(), "--insecure", "--concurrency", "4", "--requests", "12",
        "--warmup", "0s", "--input-tokens", "8", "--output-tokens", "5", "--event-loops", "2", "-q", "--out",
        out.toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(0);
    assertThat(measured(out)).hasSize(12).allSatisfy(l -> assertThat(l.get("ok").asBoolean()).isTrue());
  }

  @Test
  void caCertThatIsNotPemIsAUsageError() throws IOException {
    Path bogus = certs.resolve("bogus.pem");
    Files.writeString(bogus, "not a certificate\n");
    Cli.Result r = Cli.run("bench", "--url", url(), "--ca-cert", bogus.toString(), "--concurrency", "1");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).contains("--ca-cert").contains("PEM").doesNotContain("\tat ");
  }

  /** The measured requests of requests.jsonl (with no warm-up, the first one opened the connection). */
  private static List<JsonNode> measured(Path out) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode n = JSON.readTree(l);
      if (n.get("phase").asText().equals("measured")) {
        lines.add(n);
      }
    }
    return lines;
  }

  private static void stream(HttpExchange x) throws IOException {
    x.getRequestBody().readAllBytes();
    x.getResponseHeaders().set("Content-Type", "text/event-stream");
    x.sendResponseHeaders(200, 0);
    try (OutputStream o = x.getResponseBody()) {
      String head = "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"tls-model\",\"choices\":[";
      event(o, head + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
      for (String w : new String[] {"one", " two", " three", " four", " five"}) {
        event(o, head + "{\"index\":0,\"delta\":{\"content\":\"" + w + "\"},\"finish_reason\":null}]}");
      }
      event(o, head + "{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}");
      event(o, head + "],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":5,\"total_tokens\":13}}");
      o.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void event(OutputStream o, String json) throws IOException {
    o.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
    o.flush();
  }

  private static void reply(HttpExchange x, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(200, b.length);
    try (OutputStream o = x.getResponseBody()) {
      o.write(b);
    }
  }

  /** The server's key manager, slowed down: every handshake waits before choosing its key. */
  private static final class SlowKeys extends X509ExtendedKeyManager {
    private final X509ExtendedKeyManager delegate;

    SlowKeys(X509ExtendedKeyManager delegate) {
      this.delegate = delegate;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      try {
        Thread.sleep(HANDSHAKE_DELAY_MS); // the point of this class: a slow handshake
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return delegate.chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return delegate.getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return delegate.chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return delegate.getServerAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return delegate.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return delegate.getPrivateKey(alias);
    }
  }
}
