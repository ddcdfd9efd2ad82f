package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GPU sources against a local exporter and a stand-in for nvidia-smi: readings, and each kind
 * of bad input as one line ending in "the run goes on without energy figures".
 */
@Timeout(30)
class GpuSourceTest {
  private static final long HOUR = 3_600_000_000_000L;
  private static final String GOES_ON = "; the run goes on without energy figures";
  private HttpServer http;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private URI serve(String body) throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/metrics", ex -> {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    });
    http.start();
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/metrics");
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.stop(0);
    }
  }

  @Test
  void readsADcgmExporterEachInterval() throws IOException {
    URI url = serve(GpuKindTest.resource("dcgm-exporter.txt"));
    try (GpuScraper s = GpuScraper.start(url, "node-a:9400 ", HOUR, Ticker.system(), lines::add)) {
      s.readNow();
      assertThat(s.readings()).hasSize(2);
      assertThat(s.kind()).isEqualTo(GpuKind.DCGM);
      assertThat(s.readings().get(1).gpus().keySet()).allMatch(k -> k.startsWith("node-a:9400 "));
    }
    assertThat(lines).isEmpty();
  }

  @Test
  void anHtmlPageIsOneLineAndNoMoreScrapes() throws IOException {
    URI url = serve("<html><body>login</body></html>\n");
    try (GpuScraper s = GpuScraper.start(url, "", HOUR, Ticker.system(), lines::add)) {
      s.readNow();
      s.readNow();
      assertThat(s.stopped()).isTrue();
      assertThat(s.readings()).isEmpty();
    }
    assertThat(lines).singleElement().asString().startsWith("tokenmeter: GPU metrics: " + url)
        .contains("did not answer Prometheus text").endsWith(GOES_ON);
  }

  @Test
  void anUnreachableExporterIsSaidOnceAndRetried() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port + "/metrics");
    try (GpuScraper s = GpuScraper.start(url, "", HOUR, Ticker.system(), lines::add)) {
      s.readNow();
      s.readNow();
      assertThat(s.stopped()).isFalse();
    }
    assertThat(lines).singleElement().asString().contains("cannot connect to " + url)
        .endsWith("retrying each interval, the run goes on");
  }

  @Test
  void nvidiaSmiIsRunEachIntervalAndItsAbsenceIsOneLine() throws Exception {
    Path sample = Path.of(GpuSourceTest.class.getResource("/gpu/nvidia-smi.csv").toURI());
    try (NvidiaSmi smi = NvidiaSmi.start(List.of("cat", sample.toString()), HOUR, Ticker.system(), lines::add)) {
      smi.readNow();
      assertThat(smi.readings()).hasSize(2);
      assertThat(smi.readings().get(0).gpus()).hasSize(2);
    }
    assertThat(lines).isEmpty();
    try (NvidiaSmi smi = NvidiaSmi.start(List.of("/nonexistent/nvidia-smi"), HOUR, Ticker.system(), lines::add)) {
      smi.readNow();
      assertThat(smi.stopped()).isTrue();
    }
    assertThat(lines).singleElement().asString().startsWith("tokenmeter: GPU metrics: cannot run nvidia-smi")
        .endsWith(GOES_ON);
  }
}
