package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.AdmissionLimits;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.ProxySettings;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.proxy.ScriptedUpstream;
import dev.tokenmeter.proxy.TokenCounters;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --max-in-flight}: past the proxy's (or an upstream's) limit a request waits in a bounded
 * queue for a bounded time, then gets 503 with {@code Retry-After}, recorded as a refusal of
 * reason {@code overload}. The upstream holds each request until the test lets it answer.
 */
@Timeout(60)
class ProxyAdmissionIT {
  private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String ANSWER = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
      + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}";

  private static final java.util.concurrent.Executor CLIENTS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "admission-client");
    t.setDaemon(true);
    return t;
  });

  /** An upstream that answers each request once the test releases one permit. */
  private static ScriptedUpstream held(Semaphore answers) {
    return new ScriptedUpstream((r, out, in) -> {
      answers.acquireUninterruptibly();
      answer(out);
    });
  }

  private static void answer(OutputStream out) throws java.io.IOException {
    byte[] b = ANSWER.getBytes(StandardCharsets.UTF_8);
    out.write(("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + b.length + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.write(b);
  }

  private static CompletableFuture<RawHttp.Response> send(String base, String... headers) {
    // a thread each: the common pool has one thread on a 2-core machine, and these block
    return CompletableFuture.supplyAsync(() -> RawHttp.post(base, "/v1/chat/completions", CHAT, headers), CLIENTS);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 5 s: " + what);
      }
      ProxyFixture.sleepMillis(2);
    }
  }

  @Test
  void pastTheLimitRequestsWaitInABoundedQueueThenGet503WithRetryAfter() throws Exception {
    Semaphore answers = new Semaphore(0);
    AdmissionLimits limits = new AdmissionLimits(2, Map.of(), 1, 400_000_000L); // 2 in flight, 1 waiting, 0.4 s
    try (ScriptedUpstream up = held(answers);
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c.withAdmission(limits), TokenCounters.none())) {
      List<CompletableFuture<RawHttp.Response>> forwarded = List.of(send(proxy.baseUrl()), send(proxy.baseUrl()));
      await(() -> up.requests.size() == 2, "two requests upstream");
      List<CompletableFuture<RawHttp.Response>> over = new ArrayList<>();
      long sentNanos = System.nanoTime();
      over.add(send(proxy.baseUrl()));
      over.add(send(proxy.baseUrl()));
      List<String> messages = new ArrayList<>();
      for (CompletableFuture<RawHttp.Response> f : over) {
        RawHttp.Response r = f.get(10, TimeUnit.SECONDS);
        assertThat(r.status()).as(r.text()).isEqualTo(503);
        assertThat(r.headers().get("retry-after")).isEqualTo("1");
        assertThat(r.text()).contains("\"code\":\"overloaded\"");
        messages.add(r.text());
      }
      long waitedMillis = (System.nanoTime() - sentNanos) / 1_000_000;
      assertThat(waitedMillis).as("the queued one waits its 0.4 s, not much more").isBetween(400L, 5_000L);
      assertThat(messages).anySatisfy(m -> assertThat(m).contains(
          "over capacity: 2 requests are in flight to the proxy (its limit) and 1 more wait (the queue's limit); retry after 1 s"));
      assertThat(messages).anySatisfy(m -> assertThat(m).contains(
          "over capacity: waited 0.4 s (the queue's limit) for one of the 2 slots of the proxy; retry after 1 s"));
      assertThat(up.requests).hasSize(2); // the refused never reached it

      answers.release(2);
      for (CompletableFuture<RawHttp.Response> f : forwarded) {
        assertThat(f.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      }
      answers.release(1);
      assertThat(send(proxy.baseUrl()).get(10, TimeUnit.SECONDS).status()).as("the slots came back").isEqualTo(200);

      List<MeteredRequest> rows = proxy.awaitRecords(5);
      assertThat(rows).filteredOn(m -> m.httpStatus() == 503).hasSize(2)
          .allSatisfy(m -> assertThat(m.upstream()).isEqualTo(MeteredRequest.NO_UPSTREAM))
          .allSatisfy(m -> assertThat(m.error()).contains("over capacity"));
      assertThat(proxy.server.refusals()).containsEntry("overload", 2L);
    }
  }

  @Test
  void aWaitingRequestTakesTheFirstSlotFreed() throws Exception {
    Semaphore answers = new Semaphore(0);
    AdmissionLimits limits = new AdmissionLimits(1, Map.of(), 4, 10_000_000_000L);
    try (ScriptedUpstream up = held(answers);
        ProxyFixture proxy = ProxyFixture.start(up.baseUrl(), c -> c.withAdmission(limits), TokenCounters.none())) {
      CompletableFuture<RawHttp.Response> first = send(proxy.baseUrl());
      await(() -> up.requests.size() == 1, "the first upstream");
      CompletableFuture<RawHttp.Response> second = send(proxy.baseUrl());
      ProxyFixture.sleepMillis(300); // the second waits in the queue meanwhile
      assertThat(up.requests).hasSize(1);
      assertThat(second).isNotDone();
      answers.release(1);
      assertThat(first.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      await(() -> up.requests.size() == 2, "the second upstream once the first ended");
      answers.release(1);
      assertThat(second.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      List<MeteredRequest> rows = proxy.awaitRecords(2);
      assertThat(rows).allSatisfy(m -> assertThat(m.ok()).as(m.toString()).isTrue());
      assertThat(rows.stream().mapToLong(MeteredRequest::proxyQueueNanos).max().orElseThrow())
          .as("its wait is the proxy's queue time").isGreaterThanOrEqualTo(250_000_000L);
      assertThat(proxy.server.refusals()).doesNotContainKey("overload");
    }
  }

  @Test
  void anUpstreamsOwnLimitLeavesTheOthersFree() throws Exception {
    Semaphore answers = new Semaphore(0);
    try (ScriptedUpstream a = held(answers);
        ScriptedUpstream b = new ScriptedUpstream((r, out, in) -> answer(out))) {
      ProxySettings s = new ProxySettings();
      s.listen = "127.0.0.1:0";
      s.upstreams = List.of(new ProxySettings.UpstreamSpec("a", a.baseUrl(), null),
          new ProxySettings.UpstreamSpec("b", b.baseUrl(), null));
      s.routeHeader = "x-upstream";
      ProxySettings.maxInFlightFlag("a=1", s);
      ProxySettings.maxInFlightFlag("2", s);
      s.maxQueued = 0;
      try (ProxyFixture proxy = ProxyFixture.start("http://127.0.0.1:1", c -> s.resolve(Map.of()), TokenCounters.none())) {
        CompletableFuture<RawHttp.Response> held = send(proxy.baseUrl(), "x-upstream: a");
        await(() -> a.requests.size() == 1, "a's request upstream");
        RawHttp.Response refused = send(proxy.baseUrl(), "x-upstream: a").get(10, TimeUnit.SECONDS);
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.text()).contains("1 requests are in flight to upstream 'a' (its limit) and 0 more wait");
        assertThat(send(proxy.baseUrl(), "x-upstream: b").get(10, TimeUnit.SECONDS).status())
            .as("b has slots of the proxy's 2").isEqualTo(200);
        answers.release(1);
        assertThat(held.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(proxy.server.refusals()).containsEntry("overload", 1L);
      }
    }
  }
}
