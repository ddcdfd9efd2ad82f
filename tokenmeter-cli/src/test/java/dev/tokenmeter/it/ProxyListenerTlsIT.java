package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.client.TlsSettings;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ListenerTls;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.ProxySettings;
import dev.tokenmeter.proxy.ScriptedUpstream;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.testkit.SelfSignedCert;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the proxy's listener ({@code --tls-cert}, {@code --tls-key}) with certificates the test
 * makes (keytool): served, verified by a client trusting only that certificate, reloaded when the
 * files change, and bad files refused at start, one line each.
 */
@Timeout(60)
class ProxyListenerTlsIT {
  private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @TempDir static Path dir;
  private static SelfSignedCert first;
  private static SelfSignedCert second;

  @BeforeAll
  static void certificates() throws Exception {
    first = SelfSignedCert.create(Files.createDirectories(dir.resolve("first")));
    second = SelfSignedCert.create(Files.createDirectories(dir.resolve("second")));
    first.writeKeyPem(dir.resolve("first/key.pem"));
    second.writeKeyPem(dir.resolve("second/key.pem"));
  }

  private static ScriptedUpstream upstream() {
    byte[] answer = ("{\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}").getBytes(StandardCharsets.UTF_8);
    return new ScriptedUpstream((r, out, in) -> {
      out.write(("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + answer.length + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.write(answer);
    });
  }

  /** A POST over a fresh connection from a client that trusts only {@code trusted}. */
  private static int post(String baseUrl, SelfSignedCert trusted) throws IOException, InterruptedException {
    try (HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .sslContext(new TlsSettings(trusted.caPem(), false).jdkContext()).connectTimeout(Duration.ofSeconds(5)).build()) {
      return c.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/chat/completions")).timeout(Duration.ofSeconds(10))
          .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    }
  }

  private static void install(SelfSignedCert cert, String from, Path certFile, Path keyFile) throws IOException {
    Files.copy(dir.resolve(from + "/key.pem"), keyFile, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(cert.caPem(), certFile, StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void servesHttpsAndReloadsARenewedCertificate(@TempDir Path live) throws Exception {
    Path cert = live.resolve("cert.pem");
    Path key = live.resolve("key.pem");
    install(first, "first", cert, key);
    try (ScriptedUpstream up = upstream();
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(),
            c -> c.withTls(new ListenerTls(cert, key, 50_000_000L)), TokenCounters.none())) { // checked every 50 ms
      assertThat(proxy.baseUrl()).startsWith("https://127.0.0.1:");
      assertThat(post(proxy.baseUrl(), first)).isEqualTo(200);
      assertThatThrownBy(() -> post(proxy.baseUrl(), second)).as("verified: a client trusting another certificate")
          .isInstanceOf(SSLException.class);
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.ok()).as(m.toString()).isTrue();

      install(second, "second", cert, key);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (proxy.server.tlsReloads() == 0 || !servedBy(proxy.baseUrl(), second)) {
        assertThat(System.nanoTime()).as("the renewed certificate served within 10 s").isLessThan(deadline);
        ProxyFixture.sleepMillis(20);
      }
      assertThat(post(proxy.baseUrl(), second)).isEqualTo(200);
      assertThatThrownBy(() -> post(proxy.baseUrl(), first)).isInstanceOf(SSLException.class);

      long reloads = proxy.server.tlsReloads();
      Files.writeString(key, "not a key"); // a broken change keeps the certificate that works
      ProxyFixture.sleepMillis(300);
      assertThat(proxy.server.tlsReloads()).isEqualTo(reloads);
      assertThat(post(proxy.baseUrl(), second)).isEqualTo(200);
    }
  }

  private static boolean servedBy(String baseUrl, SelfSignedCert cert) throws InterruptedException {
    try {
      return post(baseUrl, cert) == 200;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void badTlsFilesAreSettingsMistakesOneLineEach() throws Exception {
    Path pkcs1 = dir.resolve("rsa.pem");
    Files.writeString(pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");
    assertThat(mistakes(dir.resolve("first/ca.pem"), null)).contains(
        "TLS on the listener needs both --tls-cert CERT.pem and --tls-key KEY.pem (tls_cert, tls_key)");
    assertThat(mistakes(dir.resolve("first/ca.pem"), dir.resolve("second/key.pem"))).contains(
        "--tls-key " + dir.resolve("second/key.pem") + " is not the key of the certificate in " + dir.resolve("first/ca.pem"));
    assertThat(mistakes(dir.resolve("first/ca.pem"), pkcs1)).contains("--tls-key " + pkcs1
        + " holds no unencrypted PKCS#8 key (-----BEGIN PRIVATE KEY-----); convert it with 'openssl pkcs8 -topk8 -nocrypt");
    assertThat(mistakes(pkcs1, dir.resolve("first/key.pem"))).contains("--tls-cert " + pkcs1 + " holds no certificate");
    assertThat(mistakes(dir.resolve("missing.pem"), dir.resolve("first/key.pem")))
        .contains("--tls-cert " + dir.resolve("missing.pem") + ": cannot read it (no such file)");
  }

  private static String mistakes(Path cert, Path key) {
    ProxySettings s = new ProxySettings();
    s.upstreams = List.of(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:1", null));
    s.tlsCert = cert == null ? null : cert.toString();
    s.tlsKey = key == null ? null : key.toString();
    try {
      s.resolve(Map.of());
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).startsWith("a mistake in the proxy's settings:");
      return e.getMessage();
    }
    throw new AssertionError("accepted");
  }
}
