package dev.tokenmeter.proxy;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.telemetry.ProxyMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link ProxyMetrics} that counts calls, for tests; its scrape is one line per counter. */
public final class FakeMetrics implements ProxyMetrics {
  public final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();
  public final Map<String, AtomicInteger> ended = new ConcurrentHashMap<>();
  public final Map<String, AtomicInteger> dropped = new ConcurrentHashMap<>();
  public final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();
  public final List<MeteredRequest> accepted = new CopyOnWriteArrayList<>();

  @Override
  public void accept(MeteredRequest request) {
    accepted.add(request);
  }

  @Override
  public void started(String upstream) {
    started.computeIfAbsent(upstream, k -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public void ended(String upstream) {
    ended.computeIfAbsent(upstream, k -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public void dropped(String where) {
    dropped.computeIfAbsent(where, k -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public void refused(String reason) {
    refused.computeIfAbsent(reason, k -> new AtomicInteger()).incrementAndGet();
  }

  public int startedCount(String upstream) {
    AtomicInteger n = started.get(upstream);
    return n == null ? 0 : n.get();
  }

  public int endedCount(String upstream) {
    AtomicInteger n = ended.get(upstream);
    return n == null ? 0 : n.get();
  }

  @Override
  public String contentType() {
    return "text/plain; version=0.0.4; charset=utf-8";
  }

  @Override
  public void scrape(OutputStream out) throws IOException {
    out.write(("fake_requests_total " + accepted.size() + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
