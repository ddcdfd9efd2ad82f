package dev.tokenmeter.telemetry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Requests in flight per upstream, moved by the stream path and read by scrapes.
 *
 * <p>Thread-safe. {@link #started} and {@link #ended} are wait-free for an upstream seen before (or
 * named at construction): one {@link ConcurrentHashMap#get}, which neither locks nor retries, and
 * one atomic add (a single {@code LOCK XADD} on x86). The first call for a new upstream name
 * inserts its counter under a bin lock, once per name; names past the upstream cap share the
 * {@code other} counter and are never inserted, so the map stays bounded.
 */
final class InFlight {
  private final LabelCap upstreams;
  private final ConcurrentHashMap<String, AtomicLong> byName = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, AtomicLong> byLabel = new ConcurrentHashMap<>();

  InFlight(LabelCap upstreams, Iterable<String> known) {
    this.upstreams = upstreams;
    for (String name : known) {
      counter(name);
    }
  }

  void started(String upstream) {
    counter(upstream).getAndIncrement();
  }

  void ended(String upstream) {
    counter(upstream).getAndDecrement();
  }

  /** Calls {@code out} with each upstream label and its count, for the gauge's callback. */
  void forEach(BiConsumer<String, Long> out) {
    for (Map.Entry<String, AtomicLong> e : byLabel.entrySet()) {
      out.accept(e.getKey(), e.getValue().get());
    }
  }

  private AtomicLong counter(String upstream) {
    AtomicLong c = byName.get(upstream);
    return c != null ? c : firstUse(upstream);
  }

  private AtomicLong firstUse(String upstream) {
    String label = upstreams.fold(upstream);
    AtomicLong c = byLabel.get(label);
    if (c == null) {
      c = byLabel.computeIfAbsent(label, l -> new AtomicLong());
    }
    if (!LabelCap.OTHER.equals(label) || LabelCap.OTHER.equals(upstream)) {
      byName.putIfAbsent(upstream, c);
    }
    return c;
  }
}
