package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Token timing against the ground truth, keep-alive and concurrency, over real sockets. */
@Timeout(20)
class SimServerTimingTest {

  private static final long MS = 1_000_000L;
  private static final String CHAT = "/v1/chat/completions";
  private static final String STREAM_20 =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":20,"
          + "\"ignore_eos\":true,\"stream\":true}";

  @Test
  void intendedTimesAreExactAndActualOnesWithinAFewMilliseconds() throws Exception {
    List<EmissionRecord> records = new CopyOnWriteArrayList<>();
    SimConfig config =
        SimConfig.builder()
            .timing(TimingModel.fixed(50 * MS, 20 * MS))
            .groundTruthSink(records::add)
            .build();
    try (SimServer server = SimServer.start(config);
        TestClient client = new TestClient(server)) {
      client.post(CHAT, STREAM_20.replace("20,", "1,")); // warm the client and the connection
      TestClient.SseResponse r = client.stream(CHAT, STREAM_20);

      EmissionRecord rec = records.get(1);
      assertThat(rec.tokenCount()).isEqualTo(20);
      assertThat(rec.ending()).isEqualTo(EmissionRecord.Ending.LENGTH);
      long arrival = rec.arrivalNanos();
      assertThat(arrival).isBetween(r.sentNanos(), r.headersNanos());
      long[] lateness = new long[20];
      for (int i = 0; i < 20; i++) {
        assertThat(rec.intendedNanos()[i]).isEqualTo(arrival + 50 * MS + i * 20 * MS);
        lateness[i] = rec.actualNanos()[i] - rec.intendedNanos()[i];
        // Never early; a late wake-up does not move later tokens (their intended times hold).
        // The upper bound only catches gross errors (a token written a whole ITL late or more
        // everywhere); precision is measured by bench/timing-fidelity.sh, not asserted here.
        assertThat(lateness[i]).as("token %d lateness", i).isBetween(0L, 500 * MS);
      }
      // Sub-millisecond on an idle core; on a shared box the scheduler preempts the event loop
      // now and then (tokens 7 ms late seen while a benchmark ran), so: the median within 5 ms.
      java.util.Arrays.sort(lateness);
      assertThat(lateness[9]).isLessThanOrEqualTo(5 * MS);
      // The client (same clock) sees token i after the server wrote it. Loose upper bounds: the
      // JDK client's reader threads compete for the CPU on a shared box.
      // Events: role+token 0 arrive together, then tokens 1..19, then [DONE].
      List<TestClient.Event> events = r.events();
      assertThat(events).hasSize(1 + 20 + 1);
      for (int i = 0; i < 20; i++) {
        long seen = events.get(i + 1).arrivalNanos();
        assertThat(seen - rec.actualNanos()[i]).as("token %d delivery", i).isBetween(0L, 250 * MS);
      }
      // Loose: the client's TTFT also holds connecting and a cold JVM's first request.
      long clientTtft = events.get(1).arrivalNanos() - r.sentNanos();
      assertThat(clientTtft).isBetween(50 * MS, 300 * MS);
      long clientDecode = events.get(20).arrivalNanos() - events.get(1).arrivalNanos();
      assertThat(clientDecode).isBetween(19 * 20 * MS - 250 * MS, 19 * 20 * MS + 250 * MS);
      Histogram jitter = server.jitterHistogram();
      assertThat(jitter.getTotalCount()).isEqualTo(1 + 20);
      assertThat(jitter.getValueAtPercentile(50)).isLessThanOrEqualTo(5 * MS);
    }
  }

  @Test
  void twoSequentialRequestsReuseOneConnection() throws Exception {
    SimConfig config = SimConfig.builder().timing(TimingModel.zero()).build();
    try (SimServer server = SimServer.start(config);
        TestClient client = new TestClient(server)) {
      assertThat(client.stream(CHAT, STREAM_20).data()).hasSize(22);
      assertThat(client.post(CHAT, STREAM_20.replace("true}", "false}")).statusCode())
          .isEqualTo(200);

      SimStats stats = server.stats();
      assertThat(stats.connectionsOpened()).isEqualTo(1);
      assertThat(stats.requests()).isEqualTo(2);
      assertThat(stats.generations()).isEqualTo(2);
      assertThat(stats.tokens()).isEqualTo(40);
    }
  }

  @Test
  void concurrentStreamsEachGetOneRecord() throws Exception {
    List<EmissionRecord> records = new CopyOnWriteArrayList<>();
    SimConfig config =
        SimConfig.builder()
            .timing(TimingModel.fixed(5 * MS, 1 * MS))
            .groundTruthSink(records::add)
            .build();
    int streams = 64;
    try (SimServer server = SimServer.start(config);
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        results.add(pool.submit(() -> rawStream(server.port(), 20)));
      }
      for (Future<Integer> f : results) {
        assertThat(f.get()).isEqualTo(20);
      }
      assertThat(records).hasSize(streams);
      assertThat(records).extracting(EmissionRecord::serverRequestId).doesNotHaveDuplicates();
      assertThat(records).allSatisfy(rec -> assertThat(rec.tokenCount()).isEqualTo(20));
      assertThat(server.stats().connectionsOpened()).isEqualTo(streams);
    }
  }

  @Test
  void zeroDelayStreamsAreBatchedAndFast() throws Exception {
    List<EmissionRecord> records = new CopyOnWriteArrayList<>();
    SimConfig config =
        SimConfig.builder()
            .timing(TimingModel.zero())
            .maxModelLen(1_000_000)
            .zeroDelayBatchTokens(32)
            .groundTruthSink(records::add)
            .build();
    int tokens = 200_000;
    try (SimServer server = SimServer.start(config)) {
      assertThat(rawStream(server.port(), tokens)).isEqualTo(tokens);
      EmissionRecord rec = records.getFirst();
      long[] actual = rec.actualNanos();
      // Coalesced: tokens 0..31 share a flush, token 32 starts the next one.
      assertThat(actual[31]).isEqualTo(actual[0]);
      assertThat(actual[32]).isGreaterThan(actual[0]);
      double seconds = (actual[tokens - 1] - actual[0]) / 1e9;
      // ~1M tokens/s on an idle core (PERFORMANCE note in the report); loose for a shared CI box.
      assertThat(tokens / seconds).isGreaterThan(100_000);
    }
  }

  /** Streams one chat request over a raw socket; returns the token events seen. */
  private static int rawStream(int port, int maxTokens) throws Exception {
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":" + maxTokens
            + ",\"ignore_eos\":true,\"stream\":true}";
    String request =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            + "\r\nConnection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] needle = "\"content\":\"".getBytes(StandardCharsets.US_ASCII);
      byte[] buf = new byte[64 * 1024];
      int matched = 0;
      int count = 0;
      for (int n; (n = in.read(buf)) > 0; ) {
        for (int i = 0; i < n; i++) {
          matched = buf[i] == needle[matched] ? matched + 1 : (buf[i] == needle[0] ? 1 : 0);
          if (matched == needle.length) {
            count++;
            matched = 0;
          }
        }
      }
      return count - 1; // the role chunk's "content":"" is not a token
    }
  }

  @Test
  void aServerRunningLateWritesItsOverdueTokensInOneFlush() throws Exception {
    // A clock that jumps 5 ms at every read: a server always late against 1 ms ITL. Tokens already
    // due when a flush is built go in that flush, each its own SSE event with this flush's time.
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    List<EmissionRecord> records = new CopyOnWriteArrayList<>();
    SimConfig config =
        SimConfig.builder()
            .ticker(() -> clock.addAndGet(5 * MS))
            .timing(TimingModel.fixed(0, MS))
            .groundTruthSink(records::add)
            .build();
    try (SimServer server = SimServer.start(config);
        TestClient client = new TestClient(server)) {
      TestClient.SseResponse r = client.stream(CHAT, STREAM_20);
      assertThat(r.data()).hasSize(1 + 20 + 1); // role chunk, 20 tokens, [DONE]
    }
    EmissionRecord rec = records.get(0);
    long[] intended = rec.intendedNanos();
    long[] actual = rec.actualNanos();
    assertThat(intended).hasSize(20);
    for (int i = 0; i < 20; i++) {
      assertThat(intended[i]).isEqualTo(rec.arrivalNanos() + i * MS); // the schedule holds
      assertThat(actual[i]).isGreaterThanOrEqualTo(intended[i]);
    }
    // one flush per token would give 20 distinct times; each flush now carries ~5 due tokens
    assertThat(java.util.Arrays.stream(actual).distinct().count()).isLessThanOrEqualTo(8);
  }
}
