package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.proxy.ProxyConfig;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.ScriptedUpstream;
import dev.tokenmeter.proxy.TokenCounters;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /dashboard} over real sockets: the admin token gate on an exposed listener (401 without the
 * token, 200 with it), open on loopback, and the dashboard's requests are answered by the proxy
 * itself: the upstream never sees them and nothing is metered.
 */
@Timeout(60)
class ProxyDashboardIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "s3cret-dashboard-token-0123";

  /** An upstream that answers 200 to anything and counts what it saw. */
  private static ScriptedUpstream upstream() {
    return new ScriptedUpstream((req, out, in) -> {
      out.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
    });
  }

  /** Listening on every address (not loopback), with {@code tokenOrNull}. */
  private static UnaryOperator<ProxyConfig> exposed(String tokenOrNull) {
    return c -> new ProxyConfig(new InetSocketAddress("0.0.0.0", 0), c.routing(), c.tenants(), c.prices(),
        c.ioThreads(), c.recordThreads(), c.recordQueueCapacity(), c.maxRequestBytes(), c.budgets(), tokenOrNull, c.slos());
  }

  @Test
  void anExposedProxyWithoutATokenKeepsItsDashboardClosed() throws IOException {
    try (ScriptedUpstream up = upstream();
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), exposed(null), TokenCounters.none())) {
      for (String path : new String[] {"/dashboard", "/dashboard/data?window=1m"}) {
        RawHttp.Response r = RawHttp.get(proxy.baseUrl(), path);
        assertThat(r.status()).as(path).isEqualTo(401);
        assertThat(r.headers().get("www-authenticate")).startsWith("Bearer");
        assertThat(JSON.readTree(r.body()).at("/error/message").asText())
            .contains("non-loopback address").contains("--admin-token");
      }
      assertThat(up.requests).isEmpty();
    }
  }

  @Test
  void anExposedProxyWithATokenOpensItsDashboardToTheTokenOnly() throws IOException {
    try (ScriptedUpstream up = upstream();
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), exposed(TOKEN), TokenCounters.none())) {
      String base = proxy.baseUrl();
      assertThat(RawHttp.get(base, "/dashboard/data").status()).isEqualTo(401);
      assertThat(RawHttp.get(base, "/dashboard").status()).isEqualTo(401);
      assertThat(RawHttp.get(base, "/dashboard/data", "Authorization: Bearer wrong-token").status()).isEqualTo(401);
      assertThat(RawHttp.get(base, "/dashboard?token=" + TOKEN.substring(1)).status()).isEqualTo(401);
      RawHttp.Response data = RawHttp.get(base, "/dashboard/data?window=1m", "Authorization: Bearer " + TOKEN);
      assertThat(data.status()).isEqualTo(200);
      assertThat(data.headers().get("content-type")).isEqualTo("application/json");
      assertThat(JSON.readTree(data.body()).get("window_seconds").asLong()).isEqualTo(60);
      RawHttp.Response page = RawHttp.get(base, "/dashboard?token=" + TOKEN);
      assertThat(page.status()).isEqualTo(200);
      assertThat(page.headers().get("content-type")).isEqualTo("text/html; charset=utf-8");
      assertThat(page.headers().get("content-security-policy")).contains("default-src 'none'").contains("connect-src 'self'");
      assertThat(page.text()).contains("<title>tokenmeter proxy: live</title>");
      assertThat(up.requests).isEmpty();
    }
  }

  @Test
  void onLoopbackTheDashboardIsOpenAndNeitherPassedOnNorMetered() throws IOException {
    try (ScriptedUpstream up = upstream(); ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      String base = proxy.baseUrl();
      assertThat(RawHttp.get(base, "/dashboard").status()).isEqualTo(200);
      RawHttp.Response data = RawHttp.get(base, "/dashboard/data");
      assertThat(data.status()).isEqualTo(200);
      JsonNode j = JSON.readTree(data.body());
      assertThat(j.get("window_seconds").asLong()).isEqualTo(300); // the default window
      assertThat(j.at("/upstreams/0/name").asText()).isEqualTo("default");
      assertThat(RawHttp.send(base, "POST", "/dashboard/data", "{}".getBytes(StandardCharsets.UTF_8)).status())
          .isEqualTo(405);
      assertThat(RawHttp.get(base, "/dashboard/other").status()).isEqualTo(404);
      RawHttp.Response bad = RawHttp.get(base, "/dashboard/data?window=2d");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(JSON.readTree(bad.body()).at("/error/message").asText())
          .isEqualTo("tokenmeter proxy: window '2d' is not 1s to 1h; write e.g. window=5m");
      // a real request still passes, and it alone is metered
      assertThat(RawHttp.get(base, "/v1/models").status()).isEqualTo(200);
      proxy.awaitRecords(1);
      ProxyFixture.sleepMillis(200);
      assertThat(up.requests).extracting(ScriptedUpstream.Request::path).containsExactly("/v1/models");
      assertThat(proxy.records).hasSize(1);
      assertThat(proxy.metrics.startedCount("default")).isEqualTo(1);
      JsonNode after = JSON.readTree(RawHttp.get(base, "/dashboard/data?window=90s").body());
      assertThat(after.at("/requests/count").asLong()).isEqualTo(1);
      assertThat(after.at("/upstreams/0/requests").asLong()).isEqualTo(1);
    }
  }

  @Test
  void aPipelinedRequestBehindTheFeedIsAnsweredAfterIt() throws IOException {
    try (ScriptedUpstream up = upstream(); ProxyFixture proxy = ProxyFixture.start(up.baseUrl());
        Socket s = new Socket("127.0.0.1", proxy.server.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(("GET /dashboard/data?window=1m HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String both = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int feed = both.indexOf("\"window_seconds\":60");
      int second = both.lastIndexOf("HTTP/1.1 200");
      assertThat(feed).isPositive();
      assertThat(second).isGreaterThan(feed);
      assertThat(both).endsWith("\r\n\r\n{}");
      assertThat(up.requests).extracting(ScriptedUpstream.Request::path).containsExactly("/v1/models");
    }
  }
}
