package dev.tokenmeter.governance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Posts each {@link Alert} (a budget's notice, an SLO alert, a drift notice) as JSON to a webhook, on its own thread, retrying a failed post (a
 * refused or failed connection, no answer within 10 s, or a status outside 2xx) with doubling waits
 * (by default 5 attempts, 1, 2, 4 and 8 s apart); a post the receiver accepts is not sent again.
 * Never blocks the caller.
 * Thread-safe.
 *
 * <p>Body: {@code {"kind":"budget","tenant":...,"percent":80,"used":...,"limit":...,
 * "unit":"tokens","period":"day","enforce":true,"at":"...Z","resets_at":"...Z","message":...}}.
 */
public final class WebhookNotifier implements Consumer<Alert>, AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Waits between attempts; the notifier's own thread calls it. */
  @FunctionalInterface
  interface Sleeper {
    /** Waits {@code millis}; false when interrupted (the notifier stops). */
    boolean sleep(long millis);
  }

  /** A post that gets no answer in this long is a failed attempt (and retried). */
  static final long REQUEST_TIMEOUT_MILLIS = 10_000;

  private final URI url;
  private final int attempts;
  private final long firstWaitMillis;
  private final long requestTimeoutMillis;
  private final Sleeper sleeper;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "tokenmeter-webhook");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Consumer<String> log;

  /**
   * @param attempts posts per notice at most (the first and the retries)
   * @param firstWaitMillis the wait before the first retry; each next one doubles
   * @param log where a notice given up on is reported, one line
   */
  public WebhookNotifier(URI url, int attempts, long firstWaitMillis, Consumer<String> log) {
    this(url, attempts, firstWaitMillis, REQUEST_TIMEOUT_MILLIS, WebhookNotifier::sleep, log);
  }

  /** As above, with the post's answer timeout and the waits between attempts given (tests). */
  WebhookNotifier(URI url, int attempts, long firstWaitMillis, long requestTimeoutMillis, Sleeper sleeper,
      Consumer<String> log) {
    if (attempts < 1 || firstWaitMillis < 0 || requestTimeoutMillis < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, the wait 0 or more and the timeout positive");
    }
    this.url = url;
    this.attempts = attempts;
    this.firstWaitMillis = firstWaitMillis;
    this.requestTimeoutMillis = requestTimeoutMillis;
    this.sleeper = sleeper;
    this.log = log;
  }

  /** 5 attempts, waiting 1, 2, 4 and 8 s between them. */
  public static WebhookNotifier of(URI url, Consumer<String> log) {
    return new WebhookNotifier(url, 5, 1_000, log);
  }

  @Override
  public void accept(Alert alert) {
    byte[] body = switch (alert) {
      case Notice n -> body(n);
      case SloAlert a -> body(a);
      case DriftNotice n -> body(n);
    };
    worker.execute(() -> post(body, alert.what()));
  }

  /**
   * {@code {"kind":"drift","cleared":false,"dimensions":["input_tokens"],"requests":400,
   * "window_s":900,"at":"...Z","findings":[{"dimension":...,"drifted":true,"sentence":...}],
   * "message":...}}.
   */
  static byte[] body(DriftNotice n) {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", "drift");
    o.put("cleared", n.cleared());
    n.report().driftedDimensions().forEach(o.putArray("dimensions")::add);
    o.put("requests", n.report().requests());
    o.put("window_s", n.window().toSeconds());
    o.put("at", n.report().at().toString());
    var findings = o.putArray("findings");
    for (DriftReport.Finding f : n.report().findings()) {
      findings.addObject().put("dimension", f.dimension()).put("drifted", f.drifted()).put("sentence", f.sentence());
    }
    o.put("message", n.line());
    return bytes(o);
  }

  /**
   * {@code {"kind":"slo","slo":"ttft.p99<=800ms","objective":"ttft.p99 <= 800 ms","scope":{...},
   * "severity":"page","state":"firing","budget":0.01,"burn_rates":{"5m":..,...},"at":"...Z",
   * "message":...}}; a burn rate with no request in its window is null.
   */
  static byte[] body(SloAlert a) {
    ObjectNode o = JSON.createObjectNode();
    LiveSlo s = a.slo();
    o.put("kind", "slo");
    o.put("slo", s.name());
    o.put("objective", s.objective().describe());
    ObjectNode scope = o.putObject("scope");
    scope.put("model", s.scope().modelGlobOrNull());
    scope.put("upstream", s.scope().upstreamOrNull());
    scope.put("tenant", s.scope().tenantOrNull());
    o.put("severity", a.severity().label());
    o.put("state", a.transition().word());
    o.put("budget", s.budget());
    ObjectNode burn = o.putObject("burn_rates");
    for (BurnWindow w : BurnWindow.values()) {
      double r = a.burnRate(w);
      if (Double.isNaN(r)) {
        burn.putNull(w.label());
      } else {
        burn.put(w.label(), r);
      }
    }
    o.put("at", a.at().toString());
    o.put("message", a.line());
    return bytes(o);
  }

  static byte[] body(Notice n) {
    ObjectNode o = JSON.createObjectNode();
    Budget b = n.budget();
    o.put("kind", "budget");
    o.put("tenant", b.tenant());
    o.put("percent", n.percent());
    o.put("used", n.used());
    o.put("limit", b.limit());
    o.put("unit", b.unit());
    o.put("period", b.period().word());
    o.put("enforce", b.enforce());
    o.put("at", n.at().toString());
    o.put("resets_at", n.resetsAt().toString());
    o.put("message", n.line());
    return bytes(o);
  }

  private static byte[] bytes(ObjectNode o) {
    try {
      return JSON.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  private void post(byte[] body, String what) {
    HttpRequest req = HttpRequest.newBuilder(url).timeout(Duration.ofMillis(requestTimeoutMillis))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    long wait = firstWaitMillis;
    String last = "";
    for (int i = 1; i <= attempts; i++) {
      try {
        int status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status >= 200 && status < 300) {
          delivered.incrementAndGet();
          return;
        }
        last = "status " + status;
      } catch (IOException e) {
        last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (i < attempts && !sleeper.sleep(wait)) {
        return;
      }
      wait *= 2;
    }
    failed.incrementAndGet();
    log.accept("alert webhook " + url + ": gave up on " + what + " after " + attempts + " attempts (" + last + ")");
  }

  private static boolean sleep(long millis) {
    try {
      Thread.sleep(millis); // the webhook's own thread, between retries
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Notices posted. */
  public long delivered() {
    return delivered.get();
  }

  /** Notices given up on after every attempt failed. */
  public long failed() {
    return failed.get();
  }

  /** Lets queued posts finish for up to {@code millis}, then stops. */
  public void close(long millis) {
    worker.shutdown();
    try {
      worker.awaitTermination(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    worker.shutdownNow();
  }

  @Override
  public void close() {
    close(2_000);
  }
}
