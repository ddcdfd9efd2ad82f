package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.ScriptedUpstream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What reaches the proxy's listener that it must not take whole: a 100 MB request body. Each test
 * states its limit and what the client gets. Only 127.0.0.1.
 */
@Timeout(120)
class ProxyEdgeIT {
  private static final long HUNDRED_MB = 100_000_000L;

  private static ScriptedUpstream upstream() {
    return new ScriptedUpstream((r, out, in) -> {
      byte[] b = "{}".getBytes(StandardCharsets.UTF_8);
      out.write(("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + b.length + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.write(b);
    });
  }

  /**
   * Sends a 100 MB body (declared, or chunked) on one thread while reading the answer on this one;
   * returns the answer and how many body bytes the proxy let the client write.
   */
  private static RawHttp.Response sendHundredMegabytes(int port, boolean chunked, AtomicLong written) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      String head = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "x-request-id: big-" + chunked + "\r\n"
          + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + HUNDRED_MB + "\r\n") + "\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      Thread writer = new Thread(() -> {
        byte[] piece = new byte[1 << 20];
        java.util.Arrays.fill(piece, (byte) 'x');
        byte[] chunkHead = (Integer.toHexString(piece.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        try {
          for (long sent = 0; sent < HUNDRED_MB; sent += piece.length) {
            if (chunked) {
              out.write(chunkHead);
            }
            out.write(piece);
            if (chunked) {
              out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            written.addAndGet(piece.length);
          }
        } catch (IOException e) {
          // the proxy closed the connection: expected
        }
      }, "hundred-mb-writer");
      writer.setDaemon(true);
      writer.start();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          got.write(buf, 0, n);
        }
      } catch (IOException e) {
        // a reset after the answer arrived
      }
      writer.join(30_000);
      return RawHttp.parse(got.toByteArray());
    }
  }

  @Test
  void aHundredMegabyteBodyGets413WithABodyAndALedgerRowWithoutReachingTheUpstream() throws Exception {
    try (ScriptedUpstream up = upstream(); ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      AtomicLong declaredWritten = new AtomicLong();
      long t0 = System.nanoTime();
      RawHttp.Response declared = sendHundredMegabytes(proxy.server.port(), false, declaredWritten);
      long declaredMillis = (System.nanoTime() - t0) / 1_000_000;
      AtomicLong chunkedWritten = new AtomicLong();
      t0 = System.nanoTime();
      RawHttp.Response chunked = sendHundredMegabytes(proxy.server.port(), true, chunkedWritten);
      long chunkedMillis = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("100 MB body: Content-Length refused in %d ms after %d MiB written by the client;"
          + " chunked refused in %d ms after %d MiB%n", declaredMillis, declaredWritten.get() >> 20, chunkedMillis,
          chunkedWritten.get() >> 20);
      for (RawHttp.Response r : java.util.List.of(declared, chunked)) {
        assertThat(r.status()).as(new String(r.raw(), StandardCharsets.UTF_8)).isEqualTo(413);
        assertThat(r.headers().get("connection")).isEqualTo("close");
        assertThat(r.text()).contains("tokenmeter proxy: the request body is over 64 MiB, this proxy's limit;"
            + " send a smaller one").contains("\"code\":\"request_too_large\"");
      }
      assertThat(declaredWritten.get()).as("refused at its headers, not after reading 64 MiB").isLessThan(64L << 20);
      assertThat(chunkedWritten.get()).as("cut off past the limit").isLessThan(HUNDRED_MB);
      assertThat(up.requests).isEmpty();
      assertThat(proxy.awaitRecords(2)).allSatisfy(m -> {
        assertThat(m.httpStatus()).isEqualTo(413);
        assertThat(m.upstream()).isEqualTo(MeteredRequest.NO_UPSTREAM);
        assertThat(m.endpoint()).isEqualTo("/v1/chat/completions");
      }).extracting(MeteredRequest::requestId).containsExactlyInAnyOrder("big-false", "big-true");
      assertThat(proxy.server.refusals()).containsEntry("too_large", 2L);
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}").status())
          .as("the proxy serves on").isEqualTo(200);
    }
  }
}
