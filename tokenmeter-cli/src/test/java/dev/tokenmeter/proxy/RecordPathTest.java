package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.RecordEvent.Ending;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The record path with scripted events and made-up times: the outcome rules, the metric figures,
 * and what happens when a queue is full or a sink throws. No sockets, no sleeps beyond waiting
 * for the record thread.
 */
class RecordPathTest {
  private static final long MS = 1_000_000L;

  private final List<MeteredRequest> out = new CopyOnWriteArrayList<>();
  private final FakeMetrics metrics = new FakeMetrics();

  private RecordPath path(int capacity) {
    return new RecordPath(1, capacity, List.of(out::add), metrics, TokenCounters.none(),
        new Prices("USD", List.of(new Prices.Entry("m*", 1, 2))));
  }

  private static RequestInfo info(String endpoint) {
    return new RequestInfo("r1", 1_700_000_000_000L, 0, "acme", "m1", "up", endpoint, Route.of(endpoint), 3, null, true);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String token(String text, String finish) {
    return "data: {\"choices\":[{\"delta\":{\"content\":\"" + text + "\"},\"finish_reason\":"
        + (finish == null ? "null" : "\"" + finish + "\"") + "}]}\n\n";
  }

  private MeteredRequest one(RecordPath p) {
    p.close();
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  @Test
  void aStreamsFiguresFollowBenchsDefinitions() {
    RecordPath p = path(100);
    RequestState m = p.open(info("/v1/chat/completions"));
    p.offer(new RecordEvent.Sent(m, 2 * MS));
    p.offer(new RecordEvent.Headers(m, 200, "text/event-stream", 5 * MS));
    p.offer(new RecordEvent.Bytes(m, bytes("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"), 6 * MS));
    p.offer(new RecordEvent.Bytes(m, bytes(token("a", null)), 12 * MS)); // first token: TTFT 10 ms
    p.offer(new RecordEvent.Bytes(m, bytes(token("b", null) + token("c", null)), 14 * MS));
    p.offer(new RecordEvent.Bytes(m, bytes(token("d", "stop")), 22 * MS));
    p.offer(new RecordEvent.Bytes(m, bytes("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":4,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":5}}}\n\ndata: [DONE]\n\n"), 30 * MS));
    p.offer(new RecordEvent.Ended(m, Ending.BODY_END, null, 31 * MS));
    MeteredRequest r = one(p);
    assertThat(r.ok()).isTrue();
    assertThat(r.streamed()).isTrue();
    assertThat(r.ttftNanos()).isEqualTo(10 * MS);
    assertThat(r.e2eNanos()).isEqualTo(20 * MS); // to the finish_reason chunk: usage and [DONE] do not count
    assertThat(r.tpotNanos()).isEqualTo(10.0 * MS / 3);
    // Chunks at 12, 14, 14, 22 ms, one token each: per-token gaps 2, 0, 8 ms.
    assertThat(r.itlP50Nanos()).isEqualTo(2 * MS);
    assertThat(r.itlP99Nanos()).isEqualTo(8 * MS);
    assertThat(r.itlMaxNanos()).isEqualTo(8 * MS);
    assertThat(r.chunks()).isEqualTo(4);
    assertThat(r.inputTokens()).isEqualTo(7);
    assertThat(r.outputTokens()).isEqualTo(4);
    assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.USAGE);
    assertThat(r.cachedTokens()).isEqualTo(5);
    assertThat(r.proxyQueueNanos()).isEqualTo(2 * MS);
    assertThat(r.inFlightAtStart()).isEqualTo(3);
    assertThat(r.tenant()).isEqualTo("acme");
    assertThat(r.cost()).isEqualTo(7 * 1 / 1e6 + 4 * 2 / 1e6);
    assertThat(r.currency()).isEqualTo("USD");
    assertThat(r.decodeTokensPerSecond()).isEqualTo(300.0);
  }

  @Test
  void outcomesAreBenchs() {
    assertThat(ended(200, "text/event-stream", token("a", null), Ending.BODY_END).errorClass()).isEqualTo(ErrorClass.TRUNCATED);
    assertThat(ended(200, "text/event-stream", token("a", "stop") + "data: {\"partial", Ending.BODY_END).errorClass())
        .isEqualTo(ErrorClass.TRUNCATED);
    assertThat(ended(200, "text/event-stream", token("a", null) + "data: [DONE]\n\n", Ending.BODY_END).ok()).isTrue();
    assertThat(ended(200, "text/event-stream", token("a", "stop"), Ending.BODY_END).ok()).isTrue();
    assertThat(ended(200, "text/event-stream", "data: {\"error\":{\"message\":\"boom\"}}\n\ndata: [DONE]\n\n", Ending.BODY_END).error())
        .isEqualTo("boom");
    assertThat(ended(200, "text/event-stream", "data: {oops\n\n" + token("a", "stop"), Ending.BODY_END).errorClass())
        .isEqualTo(ErrorClass.PROTOCOL);
    assertThat(ended(200, "text/html", "<html>", Ending.BODY_END).errorClass()).isEqualTo(ErrorClass.PROTOCOL);
    assertThat(ended(200, "application/json", "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":1}}", Ending.BODY_END).outputTokens()).isEqualTo(1);
    assertThat(ended(200, "application/json", "{\"object\":\"error\",\"message\":\"no\"}", Ending.BODY_END).errorClass())
        .isEqualTo(ErrorClass.STREAM_ERROR);
    assertThat(ended(200, "application/json", "[1]", Ending.BODY_END).errorClass()).isEqualTo(ErrorClass.PROTOCOL);
    MeteredRequest http = ended(429, "application/json", "{\"error\":{\"message\":\"slow down\"}}", Ending.BODY_END);
    assertThat(http.errorClass()).isEqualTo(ErrorClass.HTTP_429);
    assertThat(http.error()).isEqualTo("HTTP 429: {\"error\":{\"message\":\"slow down\"}}");
    assertThat(ended(200, "text/event-stream", token("a", null), Ending.UPSTREAM_CLOSED).error()).isEqualTo("connection closed mid-response");
    assertThat(ended(-1, null, null, Ending.UPSTREAM_CLOSED).error()).isEqualTo("connection closed before any response");
    assertThat(ended(-1, null, null, Ending.UPSTREAM_PROTOCOL).errorClass()).isEqualTo(ErrorClass.PROTOCOL);
    assertThat(ended(200, "text/event-stream", token("a", null), Ending.CLIENT_CANCELLED).errorClass()).isEqualTo(ErrorClass.CANCELLED);
    MeteredRequest connect = ended(-1, null, null, Ending.CONNECT_FAILED);
    assertThat(connect.errorClass()).isEqualTo(ErrorClass.CONNECT);
    assertThat(connect.httpStatus()).isEqualTo(-1);
    assertThat(connect.proxyQueueNanos()).isEqualTo(-1);
  }

  @Test
  void otherPathsAreNotParsed() {
    out.clear();
    RecordPath p = path(100);
    RequestState m = p.open(info("/v1/models"));
    p.offer(new RecordEvent.Headers(m, 200, "application/json", MS));
    p.offer(new RecordEvent.Bytes(m, bytes("{\"data\":[]}"), MS));
    p.offer(new RecordEvent.Ended(m, Ending.BODY_END, null, 2 * MS));
    MeteredRequest r = one(p);
    assertThat(r.ok()).isTrue();
    assertThat(r.outputTokens()).isEqualTo(-1);
    assertThat(r.outputTokensSource()).isNull();
    assertThat(r.cost()).isNaN();
  }

  private MeteredRequest ended(int status, String contentType, String body, Ending ending) {
    out.clear();
    RecordPath p = path(100);
    RequestState m = p.open(info("/v1/chat/completions"));
    if (status > 0) {
      p.offer(new RecordEvent.Sent(m, MS));
      p.offer(new RecordEvent.Headers(m, status, contentType, 2 * MS));
      p.offer(new RecordEvent.Bytes(m, bytes(body), 3 * MS));
    }
    p.offer(new RecordEvent.Ended(m, ending, ending == Ending.BODY_END ? null : "why", 4 * MS));
    return one(p);
  }

  @Test
  void aFullQueueDropsTheWholeRecordAndCountsItOnce() {
    RecordPath p = new RecordPath(1, 1, List.of(r -> sleep()), metrics, TokenCounters.none(), Prices.none());
    int lost = 0;
    for (int i = 0; i < 50; i++) {
      RequestState m = p.open(info("/v1/chat/completions"));
      for (int k = 0; k < 5; k++) {
        p.offer(new RecordEvent.Sent(m, MS));
      }
      p.offer(new RecordEvent.Ended(m, Ending.CLIENT_CANCELLED, "x", 2 * MS));
      lost += m.lost() ? 1 : 0;
    }
    p.close();
    assertThat(lost).isPositive();
    assertThat(p.droppedRecords()).isEqualTo(lost);
    assertThat(metrics.dropped.get("record_queue").get()).isEqualTo(lost);
    assertThat(p.recorded()).isEqualTo(50 - lost);
  }

  private static void sleep() {
    try {
      Thread.sleep(2); // a slow sink: the queue of 1 fills
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aSinkThatThrowsDoesNotStopTheOthers() {
    List<MeteredRequest> seen = new CopyOnWriteArrayList<>();
    RecordPath p = new RecordPath(2, 10, List.of(r -> {
      throw new IllegalStateException("disk full");
    }, seen::add), null, TokenCounters.none(), Prices.none());
    for (int i = 0; i < 4; i++) {
      RequestState m = p.open(info("/v1/chat/completions"));
      p.offer(new RecordEvent.Ended(m, Ending.CONNECT_FAILED, "refused", MS));
    }
    p.close();
    assertThat(seen).hasSize(4);
    assertThat(p.sinkFailures()).isEqualTo(4);
  }

  @Test
  void aBusyLaneIsNotWokenForEveryEvent() {
    RecordPath p = path(100_000);
    RequestState m = p.open(info("/v1/chat/completions"));
    p.offer(new RecordEvent.Sent(m, MS));
    p.offer(new RecordEvent.Headers(m, 200, "text/event-stream", MS));
    int events = 0;
    long start = System.nanoTime();
    while (System.nanoTime() - start < 200 * MS) {
      p.offer(new RecordEvent.Bytes(m, bytes(token("a", null)), MS));
      events++;
      java.util.concurrent.locks.LockSupport.parkNanos(20_000); // a token every 20 us or more
    }
    long elapsed = System.nanoTime() - start;
    p.offer(new RecordEvent.Ended(m, Ending.BODY_END, null, 2 * MS));
    MeteredRequest r = one(p);
    assertThat(r.chunks()).isEqualTo(events);
    // One wake-up per sleep of the busy thread at most (and a few at the start and the end), not
    // one per event as when every offer woke it.
    long most = elapsed / RecordPath.BUSY_SLEEP_NANOS + 5;
    assertThat(p.wakeUps()).as("wake-ups for %d events in %d ms", events, elapsed / MS)
        .isLessThanOrEqualTo(most);
    assertThat(events).isGreaterThan((int) (4 * most));
  }

  @Test
  void anIdleLaneWakesForTheNextEvent() throws InterruptedException {
    RecordPath p = path(10);
    Thread.sleep(RecordPath.IDLE_AFTER_NANOS / MS + 50); // the thread now waits on its queue
    RequestState m = p.open(info("/v1/chat/completions"));
    long start = System.nanoTime();
    p.offer(new RecordEvent.Ended(m, Ending.CONNECT_FAILED, "refused", MS));
    while (out.isEmpty() && System.nanoTime() - start < 5_000 * MS) {
      Thread.sleep(1);
    }
    long waited = System.nanoTime() - start;
    assertThat(out).hasSize(1);
    assertThat(waited).as("ms until recorded").isLessThan(1_000 * MS);
    p.close();
  }

  @Test
  void nearestRankSummary() {
    assertThat(RequestState.summary(new long[0], 0)).containsExactly(-1, -1, -1);
    assertThat(RequestState.summary(new long[] {5}, 1)).containsExactly(5, 5, 5);
    long[] hundred = new long[100];
    for (int i = 0; i < 100; i++) {
      hundred[i] = 100 - i;
    }
    assertThat(RequestState.summary(hundred, 100)).containsExactly(50, 99, 100);
  }
}
