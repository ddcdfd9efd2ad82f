package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.ScriptedUpstream;
import dev.tokenmeter.proxy.TokenCounters;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy against hand-scripted upstreams: what exactly it sends upstream, the retry when an
 * upstream refuses {@code stream_options}, a client's disconnect reaching the upstream at once, a
 * cut-off event still cut off, and a slow client slowing the upstream instead of filling memory.
 */
@Timeout(60)
class ProxyUpstreamIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHUNK =
      "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},\"finish_reason\":%s}]}\n\n";
  private static final String STREAM =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"temperature\":1.50,\"top_k\":3}";

  private static String chunk(String text, String finish) {
    return CHUNK.formatted(text, finish == null ? "null" : "\"" + finish + "\"");
  }

  /** Three words, a finish, [DONE]. */
  private static final String ANSWER =
      chunk("one", null) + chunk(" two", null) + chunk(" three", "stop") + "data: [DONE]\n\n";

  private static void answer(OutputStream out, String sse) throws IOException {
    out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
    out.write(ScriptedUpstream.chunk(sse));
    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void theRequestGoesUpstreamAsReceivedLessHopByHopHeadersWithTheHostRewritten() throws Exception {
    String body = "{\"model\":\"m\",\"prompt\":\"x\",\"ignore_eos\":true,\"min_tokens\":2,\"temperature\":1.50}";
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> answer(out, ANSWER));
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      RawHttp.Response r =
          RawHttp.post(proxy.baseUrl(), "/v1/completions?x=1", body,
              "X-Kept: yes", "Keep-Alive: timeout=5", "TE: trailers", "Upgrade: h2c",
              "Proxy-Connection: keep-alive", "X-Dropped: 1", "Connection: X-Dropped", "x-request-id: abc");
      assertThat(r.text()).isEqualTo(ANSWER);
      assertThat(r.headers().get("x-request-id")).isEqualTo("abc");
      ScriptedUpstream.Request got = up.requests.get(0);
      assertThat(got.path()).isEqualTo("/v1/completions?x=1");
      assertThat(got.body()).isEqualTo(body); // not streamed: forwarded byte for byte
      assertThat(got.headers()).containsEntry("host", "127.0.0.1:" + up.baseUrl().split(":")[2])
          .containsEntry("x-kept", "yes").containsEntry("x-request-id", "abc")
          .doesNotContainKeys("keep-alive", "te", "upgrade", "proxy-connection", "x-dropped", "connection", "transfer-encoding");
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.requestId()).isEqualTo("abc");
      assertThat(m.finishReason()).isEqualTo("stop");
      assertThat(m.ok()).isTrue();
    }
  }

  @Test
  void aStreamAsksForUsageUpstreamWithEveryOtherFieldUnchanged() throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> answer(out, ANSWER));
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      String sent = up.requests.get(0).body();
      ObjectNode tree = (ObjectNode) JSON.readTree(sent);
      assertThat(tree.at("/stream_options/include_usage").asBoolean()).isTrue();
      tree.remove("stream_options");
      assertThat(tree).isEqualTo(JSON.readTree(STREAM));
      assertThat(sent).contains("\"temperature\":1.50").startsWith("{\"model\":\"m\",\"messages\"");
    }
  }

  @Test
  void anUpstreamThatRefusesStreamOptionsIsAskedAgainWithoutAndRemembered() throws Exception {
    String refusal = "{\"error\":{\"message\":\"Unrecognized request argument: stream_options\",\"type\":\"invalid_request_error\"}}";
    ScriptedUpstream.Script script = (r, out, in) -> {
      if (r.body().contains("stream_options")) {
        out.write(("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: "
            + refusal.length() + "\r\n\r\n" + refusal).getBytes(StandardCharsets.UTF_8));
      } else {
        answer(out, ANSWER);
      }
    };
    OutputTokenCounter words = text -> text.toString().strip().split(" +").length;
    try (ScriptedUpstream up = new ScriptedUpstream(script);
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c, model -> "m".equals(model) ? words : null)) {
      for (int i = 0; i < 2; i++) {
        RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo(ANSWER);
      }
      assertThat(up.requests).extracting(q -> q.body().contains("stream_options")).containsExactly(true, false, false);
      assertThat(up.requests.get(1).body()).isEqualTo(STREAM);
      for (MeteredRequest m : proxy.awaitRecords(2)) {
        assertThat(m.ok()).as(m.toString()).isTrue();
        assertThat(m.outputTokens()).isEqualTo(3);
        assertThat(m.outputTokensSource()).isEqualTo(TokenCountSource.TOKENIZER);
        assertThat(m.inputTokens()).isEqualTo(-1);
      }
    }
  }

  @Test
  void anotherBadRequestPassesThroughAsItWas() throws Exception {
    String refusal = "{\"error\":{\"message\":\"messages is required\",\"type\":\"invalid_request_error\"}}";
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> out.write(
            ("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: "
                + refusal.length() + "\r\n\r\n" + refusal).getBytes(StandardCharsets.UTF_8)));
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c, TokenCounters.none())) {
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.text()).isEqualTo(refusal);
      assertThat(up.requests).hasSize(1);
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.errorClass()).isEqualTo(ErrorClass.HTTP_4XX);
      assertThat(m.error()).contains("messages is required");
    }
  }

  @Test
  void withoutUsageOrTokenizerTheCountIsChunks() throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> answer(out, ANSWER));
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.outputTokens()).isEqualTo(3);
      assertThat(m.outputTokensSource()).isEqualTo(TokenCountSource.CHUNKS);
      assertThat(m.cost()).isNaN();
    }
  }

  @Test
  void aClientThatLeavesClosesTheUpstreamConnectionAtOnce() throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> {
          out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
          out.write(ScriptedUpstream.chunk(chunk("one", null)));
          out.flush();
          while (in.read() >= 0) {
            // wait for the proxy to close: the upstream stamps the end of stream that follows
          }
        });
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      // Five cancels: the fastest shows the mechanism (no timer, no waiting for the upstream's next
      // write), the slowest what a machine shared by several builds adds to it.
      long[] cancelNanos = new long[5];
      for (int i = 0; i < cancelNanos.length; i++) {
        up.closeSeenNanos = -1;
        long closedAt = cancelOnce(proxy);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (up.closeSeenNanos < 0 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(up.closeSeenNanos).isPositive();
        cancelNanos[i] = up.closeSeenNanos - closedAt;
      }
      System.out.println("ProxyUpstreamIT: the upstream saw the client's close after (ms) "
          + java.util.Arrays.stream(cancelNanos).mapToObj(n -> String.format(java.util.Locale.ROOT, "%.3f", n / 1e6)).toList());
      assertThat(java.util.Arrays.stream(cancelNanos).min().orElseThrow()).isBetween(0L, 10_000_000L);
      assertThat(java.util.Arrays.stream(cancelNanos).max().orElseThrow()).isLessThan(200_000_000L);
      List<MeteredRequest> records = proxy.awaitRecords(cancelNanos.length);
      assertThat(records).allSatisfy(m -> {
        assertThat(m.errorClass()).isEqualTo(ErrorClass.CANCELLED);
        assertThat(m.chunks()).isEqualTo(1);
      });
    }
  }

  /** Starts a stream through the proxy, reads its first token, closes; returns when it began to close. */
  private static long cancelOnce(ProxyFixture proxy) throws IOException {
    Socket s = new Socket();
    long closing;
    try {
      s.connect(new InetSocketAddress("127.0.0.1", proxy.server.port()));
      byte[] req = STREAM.getBytes(StandardCharsets.UTF_8);
      s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: "
          + req.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(req);
      readUntil(s.getInputStream(), "one");
    } finally {
      closing = System.nanoTime(); // before close(): the upstream may see it before close() returns
      s.close();
    }
    return closing;
  }

  private static void readUntil(InputStream in, String text) throws IOException {
    StringBuilder seen = new StringBuilder();
    byte[] buf = new byte[4096];
    while (!seen.toString().contains(text)) {
      int n = in.read(buf);
      if (n < 0) {
        throw new AssertionError("closed before '" + text + "': " + seen);
      }
      seen.append(new String(buf, 0, n, StandardCharsets.UTF_8));
    }
  }

  @Test
  void anEventCutOffMidwayStaysCutOffForTheClient() throws Exception {
    String partial = "data: {\"id\":\"c1\",\"choi";
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> {
          out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
          out.write(ScriptedUpstream.chunk(chunk("one", null)));
          out.write(ScriptedUpstream.chunk(partial));
          out.flush();
          throw new IOException("closing mid-event"); // the serving thread closes the socket
        });
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      RawHttp.Response r = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", STREAM);
      assertThat(r.complete()).isFalse();
      assertThat(r.text()).isEqualTo(chunk("one", null) + partial);
      MeteredRequest m = proxy.awaitRecords(1).get(0);
      assertThat(m.errorClass()).isEqualTo(ErrorClass.TRUNCATED);
      assertThat(m.chunks()).isEqualTo(1);
    }
  }

  @Test
  void aClientThatDoesNotReadStopsTheUpstreamInsteadOfFillingMemory() throws Exception {
    long total = 256L << 20;
    AtomicLong written = new AtomicLong();
    String event = chunk("x".repeat(4000), null);
    byte[] piece = ScriptedUpstream.chunk(event.repeat(16)); // about 64 KiB
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> {
          out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
          while (written.get() < total) {
            out.write(piece);
            written.addAndGet(piece.length);
          }
        });
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl());
        Socket s = new Socket()) {
      s.setReceiveBufferSize(64 << 10);
      s.connect(new InetSocketAddress("127.0.0.1", proxy.server.port()));
      byte[] req = STREAM.getBytes(StandardCharsets.UTF_8);
      s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: "
          + req.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(req);
      long before;
      long after = written.get();
      do { // wait until the upstream is stuck: nothing more written for 300 ms
        before = after;
        Thread.sleep(300);
        after = written.get();
      } while (after != before);
      System.out.printf("ProxyUpstreamIT: the upstream wrote %.1f MiB to a client that read nothing%n", after / 1048576.0);
      // Socket buffers on loopback hold a few MiB each way; the proxy adds at most its 64 KiB mark.
      assertThat(after).isLessThan(32L << 20);
      // Then the client reads: everything flows.
      InputStream in = s.getInputStream();
      byte[] buf = new byte[1 << 16];
      long read = 0;
      while (read < 48L << 20) {
        int n = in.read(buf);
        assertThat(n).isPositive();
        read += n;
      }
      assertThat(written.get()).isGreaterThan(after);
    }
  }
}
