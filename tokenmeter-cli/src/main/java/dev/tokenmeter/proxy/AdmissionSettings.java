package dev.tokenmeter.proxy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the admission settings as written ({@code --max-in-flight N}, {@code --max-in-flight
 * NAME=N}, {@code --max-queued}, {@code --queue-timeout}; {@code max_in_flight}, {@code
 * max_queued}, {@code queue_timeout_ms} and an upstream's {@code max_in_flight} in a file).
 */
final class AdmissionSettings {
  private AdmissionSettings() {}

  /**
   * The limits, the defaults for what is not set; each mistake is one line in {@code errors}.
   *
   * @param byUpstream in-flight limits by upstream name, as written
   * @param declared the upstream names
   */
  static AdmissionLimits resolve(Integer maxInFlight, Map<String, Integer> byUpstream, Integer maxQueued,
      Long queueTimeoutMillis, Integer maxConnections, Long idleTimeoutMillis, List<String> declared,
      List<String> errors) {
    int total = AdmissionLimits.DEFAULT_MAX_IN_FLIGHT;
    if (maxInFlight != null) {
      if (maxInFlight < 1) {
        errors.add("max in flight must be at least 1, got " + maxInFlight);
      } else {
        total = maxInFlight;
      }
    }
    Map<String, Integer> own = new LinkedHashMap<>();
    byUpstream.forEach((name, n) -> {
      if (!declared.contains(name)) {
        errors.add("max in flight " + name + "=" + n + " names no upstream; upstreams: " + String.join(", ", declared));
      } else if (n == null || n < 1) {
        errors.add("max in flight of upstream '" + name + "' must be at least 1, got " + n);
      } else {
        own.put(name, n);
      }
    });
    int queued = AdmissionLimits.DEFAULT_MAX_QUEUED;
    if (maxQueued != null) {
      if (maxQueued < 0) {
        errors.add("max queued must be 0 or more, got " + maxQueued);
      } else {
        queued = maxQueued;
      }
    }
    long timeoutNanos = AdmissionLimits.DEFAULT_QUEUE_TIMEOUT_NANOS;
    if (queueTimeoutMillis != null) {
      if (queueTimeoutMillis < 0 || queueTimeoutMillis > 3_600_000) {
        errors.add("queue timeout must be from 0 to 1 h, got " + queueTimeoutMillis + " ms");
      } else {
        timeoutNanos = queueTimeoutMillis * 1_000_000;
      }
    }
    int connections = AdmissionLimits.DEFAULT_MAX_CONNECTIONS;
    if (maxConnections != null) {
      if (maxConnections < 1) {
        errors.add("max connections must be at least 1, got " + maxConnections);
      } else {
        connections = maxConnections;
      }
    }
    long idleNanos = AdmissionLimits.DEFAULT_IDLE_TIMEOUT_NANOS;
    if (idleTimeoutMillis != null) {
      if (idleTimeoutMillis < 1 || idleTimeoutMillis > 86_400_000) {
        errors.add("idle timeout must be from 1 ms to 24 h, got " + idleTimeoutMillis + " ms");
      } else {
        idleNanos = idleTimeoutMillis * 1_000_000;
      }
    }
    return new AdmissionLimits(total, own, queued, timeoutNanos, connections, idleNanos);
  }

  /** The file's admission keys into {@code s} (an upstream's own limit is read with its entry). */
  static void read(SettingsFileReader r, com.fasterxml.jackson.databind.JsonNode root) {
    ProxySettings s = r.s;
    s.maxInFlight = r.integer(root, "max_in_flight");
    s.maxQueued = r.integer(root, "max_queued");
    s.maxConnections = r.integer(root, "max_connections");
    Integer queueMs = r.integer(root, "queue_timeout_ms");
    s.queueTimeoutMillis = queueMs == null ? null : queueMs.longValue();
    Integer idleMs = r.integer(root, "idle_timeout_ms");
    s.idleTimeoutMillis = idleMs == null ? null : idleMs.longValue();
  }

  /** {@code --max-in-flight N} (the proxy's) or {@code NAME=N} (an upstream's), into {@code settings}. */
  static void flag(String text, ProxySettings settings) {
    int eq = text.indexOf('=');
    String number = eq < 0 ? text : text.substring(eq + 1);
    int n;
    try {
      n = Integer.parseInt(number.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--max-in-flight '" + text + "': write N (the proxy's limit) or NAME=N"
          + " (an upstream's), N a whole number of requests, e.g. 512 or vllm=64");
    }
    if (eq < 0) {
      settings.maxInFlight = n;
    } else {
      settings.maxInFlightByUpstream.put(text.substring(0, eq).strip(), n);
    }
  }
}
