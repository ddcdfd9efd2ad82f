package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.ProxySettings;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.testkit.SelfSignedCert;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An https upstream (the JDK's HTTPS server with a certificate made by keytool for 127.0.0.1):
 * trusted through {@code ca_cert}, the stream passes and is metered; with the JDK's own trust
 * store the handshake fails and the client gets a 502, recorded as a connect failure.
 */
@Timeout(60)
class ProxyTlsIT {
  private static final String ANSWER =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"secure\"},\"finish_reason\":\"stop\"}]}\n\n"
          + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";
  private static final String STREAM =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

  @TempDir static Path certs;
  private static HttpsServer server;
  private static Path caPem;

  @BeforeAll
  static void start() throws Exception {
    SelfSignedCert cert = SelfSignedCert.create(certs);
    caPem = cert.caPem();
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(new javax.net.ssl.KeyManager[] {cert.keyManager()}, null, null);
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ctx));
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext("/v1/chat/completions", x -> {
      x.getRequestBody().readAllBytes();
      x.getResponseHeaders().set("Content-Type", "text/event-stream");
      x.sendResponseHeaders(200, 0);
      try (OutputStream o = x.getResponseBody()) {
        o.write(ANSWER.getBytes(StandardCharsets.UTF_8));
      }
    });
    server.start();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
  }

  private static ProxyFixture proxy(String caCertOrNull) {
    ProxySettings s = new ProxySettings();
    s.listen = "127.0.0.1:0";
    s.upstreams = List.of(new ProxySettings.UpstreamSpec("secure", "https://127.0.0.1:" + server.getAddress().getPort(), null));
    s.caCert = caCertOrNull;
    return ProxyFixture.start("http://127.0.0.1:1", c -> s.resolve(Map.of()), TokenCounters.none());
  }

  @Test
  void anHttpsUpstreamTrustedByItsCaCertificateIsProxiedAndMetered() {
    try (ProxyFixture proxy = proxy(caPem.toString())) {
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).contains("secure").contains("[DONE]").doesNotContain("usage");
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.ok()).as(m.toString()).isTrue();
      assertThat(m.upstream()).isEqualTo("secure");
      assertThat(m.outputTokens()).isEqualTo(1);
    }
  }

  @Test
  void anUntrustedCertificateIsAConnectFailure() {
    try (ProxyFixture proxy = proxy(null)) {
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      assertThat(r.status()).isEqualTo(502);
      assertThat(r.text()).contains("cannot reach upstream 'secure'");
      assertThat(proxy.awaitRecords(1).get(0).errorClass()).isEqualTo(ErrorClass.CONNECT);
    }
  }

  @Test
  void aBadCaFileIsASettingsMistake() throws Exception {
    Path bad = certs.resolve("bad.pem");
    Files.writeString(bad, "not a certificate");
    ProxySettings s = new ProxySettings();
    s.upstreams = List.of(new ProxySettings.UpstreamSpec("secure", "https://127.0.0.1:1", null, bad.toString()));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.resolve(Map.of()))
        .hasMessageContaining("upstream 'secure': CA certificate " + bad + " holds no");
  }
}
