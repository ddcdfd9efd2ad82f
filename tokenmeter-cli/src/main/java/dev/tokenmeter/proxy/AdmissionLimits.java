package dev.tokenmeter.proxy;

import java.util.Map;

/**
 * How many requests the proxy lets through at once, and how long the others may wait
 * (docs/PROXY.md, "At the edge"). A request past a full limit waits in that limit's queue; a full
 * queue, or a wait that reaches {@code queueTimeoutNanos}, gets 503 with {@code Retry-After}.
 * Immutable.
 *
 * @param maxInFlight requests forwarded upstream at once through the whole proxy, 1 or more
 * @param maxInFlightByUpstream the same for one upstream, by name; an upstream not named has only
 *     the proxy's limit
 * @param maxQueued requests waiting at once for each limit, 0 or more (0: refuse at once)
 * @param queueTimeoutNanos the longest a request waits for its slots, 0 or more
 * @param maxConnections client connections open at once, 1 or more; one more is answered 503 and
 *     closed as it opens
 * @param idleTimeoutNanos a client connection with no request in flight and nothing sent or
 *     received for this long is closed, 1 ms or more
 */
public record AdmissionLimits(
    int maxInFlight, Map<String, Integer> maxInFlightByUpstream, int maxQueued, long queueTimeoutNanos,
    int maxConnections, long idleTimeoutNanos) {

  /** 4,096 requests in flight: far above a GPU server's batch, far below a socket budget. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 4_096;

  /** 1,024 requests waiting per limit. */
  public static final int DEFAULT_MAX_QUEUED = 1_024;

  /** 10 s: longer than a typical time to first token under load, short enough for a client to retry. */
  public static final long DEFAULT_QUEUE_TIMEOUT_NANOS = 10_000_000_000L;

  /** 10,000 client connections: each costs the proxy a few KiB and two file descriptors at most. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  /** 5 min: a keep-alive client between requests keeps its connection; an abandoned one goes. */
  public static final long DEFAULT_IDLE_TIMEOUT_NANOS = 300_000_000_000L;

  /** The defaults: 4,096 in flight, no upstream limits, 1,024 waiting, 10 s; 10,000 connections, 5 min idle. */
  public static final AdmissionLimits DEFAULT =
      new AdmissionLimits(DEFAULT_MAX_IN_FLIGHT, Map.of(), DEFAULT_MAX_QUEUED, DEFAULT_QUEUE_TIMEOUT_NANOS);

  public AdmissionLimits {
    maxInFlightByUpstream = Map.copyOf(maxInFlightByUpstream);
    if (maxInFlight < 1 || maxQueued < 0 || queueTimeoutNanos < 0
        || maxInFlightByUpstream.values().stream().anyMatch(n -> n < 1)) {
      throw new IllegalArgumentException("in-flight limits must be at least 1, the queue and its time 0 or more");
    }
    if (maxConnections < 1 || idleTimeoutNanos < 1_000_000) {
      throw new IllegalArgumentException("the connection limit must be at least 1 and the idle timeout 1 ms");
    }
  }

  /** These in-flight limits with the default connection limit and idle timeout. */
  public AdmissionLimits(int maxInFlight, Map<String, Integer> maxInFlightByUpstream, int maxQueued, long queueTimeoutNanos) {
    this(maxInFlight, maxInFlightByUpstream, maxQueued, queueTimeoutNanos, DEFAULT_MAX_CONNECTIONS,
        DEFAULT_IDLE_TIMEOUT_NANOS);
  }

  /** These limits with at most {@code max} client connections, idle ones closed after {@code idleNanos}. */
  public AdmissionLimits withConnections(int max, long idleNanos) {
    return new AdmissionLimits(maxInFlight, maxInFlightByUpstream, maxQueued, queueTimeoutNanos, max, idleNanos);
  }

  /** {@code Retry-After} of a refusal, whole seconds: the queue time rounded up, 1 at least. */
  public long retryAfterSeconds() {
    return Math.max(1, (queueTimeoutNanos + 999_999_999L) / 1_000_000_000L);
  }
}
