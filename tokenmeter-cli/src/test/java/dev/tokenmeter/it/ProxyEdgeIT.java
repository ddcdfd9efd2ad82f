package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.AdmissionLimits;
import dev.tokenmeter.proxy.TokenCounters;
import java.util.ArrayList;
import java.util.List;
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
 * What reaches the proxy's listener that it must not take whole: a 100 MB request body, 5,000 idle
 * connections, clients that never read. Each test states its limit and what the client gets.
 * Only 127.0.0.1.
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

  private static long heapUsedAfterGc() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static void await(java.util.function.BooleanSupplier condition, long seconds, String what) {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + seconds + " s: " + what);
      }
      ProxyFixture.sleepMillis(5);
    }
  }

  @Test
  void fiveThousandIdleConnectionsAreHeldCheaplyAndTheNextIsAnswered503() throws Exception {
    int idle = 5_000;
    AdmissionLimits limits = AdmissionLimits.DEFAULT.withConnections(idle, 60_000_000_000L);
    List<Socket> sockets = new ArrayList<>();
    try (ScriptedUpstream up = upstream();
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c.withAdmission(limits), TokenCounters.none())) {
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}").status()).isEqualTo(200);
      long heapBefore = heapUsedAfterGc();
      long t0 = System.nanoTime();
      for (int i = 0; i < idle; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", proxy.server.port()), 5_000);
        sockets.add(s);
      }
      await(() -> proxy.server.openConnections() == idle, 30, idle + " connections open at the proxy");
      long openMillis = (System.nanoTime() - t0) / 1_000_000;
      long heapGrowth = heapUsedAfterGc() - heapBefore;
      System.out.printf("%d idle connections: opened in %d ms; heap +%.1f MiB (%.1f KiB each, both ends in one JVM)%n",
          idle, openMillis, heapGrowth / 1048576.0, heapGrowth / 1024.0 / idle);
      assertThat(heapGrowth).as("heap for 5,000 idle connections, both ends").isLessThan(64L << 20);

      RawHttp.Response over = RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}");
      assertThat(over.status()).isEqualTo(503);
      assertThat(over.headers().get("retry-after")).isEqualTo("1");
      assertThat(over.text()).contains("over capacity: 5000 client connections are open (its limit)");
      assertThat(proxy.server.refusedConnections()).isEqualTo(1);
      assertThat(up.requests).hasSize(1);

      sockets.remove(0).close();
      await(() -> proxy.server.openConnections() < idle, 10, "a connection closed");
      long t1 = System.nanoTime();
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}").status()).isEqualTo(200);
      System.out.printf("a request beside %d idle connections: %d ms%n", idle - 1, (System.nanoTime() - t1) / 1_000_000);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  @Test
  void anIdleConnectionIsClosedAfterTheIdleTimeoutButNotWhileItsRequestRuns() throws Exception {
    int idle = 500;
    AdmissionLimits limits = AdmissionLimits.DEFAULT.withConnections(10_000, 500_000_000L); // 0.5 s
    java.util.concurrent.Semaphore answer = new java.util.concurrent.Semaphore(0);
    List<Socket> sockets = new ArrayList<>();
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> {
          answer.acquireUninterruptibly();
          out.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
              .getBytes(StandardCharsets.US_ASCII));
        });
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c.withAdmission(limits), TokenCounters.none())) {
      java.util.concurrent.CompletableFuture<RawHttp.Response> slow = java.util.concurrent.CompletableFuture.supplyAsync(
          () -> RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", "{\"model\":\"m\"}"),
          java.util.concurrent.Executors.newSingleThreadExecutor());
      await(() -> up.requests.size() == 1, 10, "the slow request upstream");
      long t0 = System.nanoTime();
      for (int i = 0; i < idle; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", proxy.server.port()), 5_000);
        s.setSoTimeout(10_000);
        sockets.add(s);
      }
      for (Socket s : sockets) {
        assertThat(s.getInputStream().read()).as("closed by the proxy").isEqualTo(-1);
      }
      long closedMillis = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("%d idle connections closed by a 0.5 s idle timeout within %d ms of the first opening%n",
          idle, closedMillis);
      assertThat(closedMillis).isGreaterThanOrEqualTo(500);
      ProxyFixture.sleepMillis(700); // the slow request is past the idle timeout now
      assertThat(slow).isNotDone();
      answer.release();
      assertThat(slow.get(10, java.util.concurrent.TimeUnit.SECONDS).status()).as("its connection was kept").isEqualTo(200);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  @Test
  void clientsThatNeverReadHoldTheUpstreamBackNotTheProxysMemory() throws Exception {
    int clients = 16;
    AtomicLong written = new AtomicLong();
    byte[] piece = ScriptedUpstream.chunk(("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + "x".repeat(4000) + "\"}}]}\n\n").repeat(16)); // about 64 KiB
    List<Socket> sockets = new ArrayList<>();
    try (ScriptedUpstream up = new ScriptedUpstream((r, out, in) -> {
          out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
          while (true) { // endless: blocks once the proxy stops reading
            out.write(piece);
            written.addAndGet(piece.length);
          }
        });
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl())) {
      io.netty.buffer.ByteBufAllocatorMetric direct =
          ((io.netty.buffer.ByteBufAllocatorMetricProvider) io.netty.buffer.ByteBufAllocator.DEFAULT).metric();
      long directBefore = direct.usedDirectMemory();
      byte[] body = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < clients; i++) {
        Socket s = new Socket();
        s.setReceiveBufferSize(64 << 10);
        s.connect(new InetSocketAddress("127.0.0.1", proxy.server.port()), 5_000);
        s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            + "content-length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().write(body);
        sockets.add(s);
      }
      long before;
      long after = written.get();
      do { // until every upstream writer is stuck: nothing more written for 500 ms
        before = after;
        Thread.sleep(500);
        after = written.get();
      } while (after != before || up.requests.size() < clients);
      long directHeld = direct.usedDirectMemory() - directBefore;
      System.out.printf("%d clients that never read: the upstream wrote %.1f MiB in all (%.1f MiB each, mostly"
          + " loopback socket buffers); the proxy's direct memory +%.1f MiB%n", clients, after / 1048576.0,
          after / 1048576.0 / clients, directHeld / 1048576.0);
      // the proxy stops reading an upstream at its 64 KiB write mark; its allocator holds chunks of its own size
      assertThat(directHeld).as("the proxy's buffers for %d stuck streams", clients).isLessThan(32L << 20);
      assertThat(after / clients).as("per stream, bounded by socket buffers").isLessThan(32L << 20);
      assertThat(RawHttp.get(proxy.baseUrl(), "/metrics").status()).as("the proxy serves on").isEqualTo(200);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
