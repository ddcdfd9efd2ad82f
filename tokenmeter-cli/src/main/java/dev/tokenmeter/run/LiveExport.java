package dev.tokenmeter.run;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.telemetry.BenchMetrics;
import dev.tokenmeter.telemetry.OtlpPush;
import dev.tokenmeter.telemetry.ScrapeServer;
import java.io.PrintStream;
import java.time.Duration;
import java.time.InstantSource;

/**
 * A bench run's live export ({@code --metrics-port}, {@code --otlp}): the run's client metrics
 * ({@link BenchMetrics}) served for Prometheus to scrape and/or pushed over OTLP while the run goes.
 * A run without either flag has none: no sink wrapped, no thread, no socket. Closing it after the
 * run records what is still queued, waits for Prometheus to take the final values (when it was
 * scraping) and pushes them once more.
 */
public final class LiveExport implements AutoCloseable {
  /**
   * What to export.
   *
   * @param host address to serve {@code /metrics} on
   * @param port its port, 0 for any free one, -1 for no endpoint
   * @param otlp where to push, or null for no push
   * @param linger after the run, how long to wait for a last scrape (only when one came during it)
   */
  public record Settings(String host, int port, OtlpPush.Settings otlp, Duration linger) {
    /** No export. */
    public static final Settings NONE = new Settings("127.0.0.1", -1, null, Duration.ZERO);

    public Settings {
      if (port < -1 || port > 65_535) {
        throw new IllegalArgumentException("--metrics-port must be 0 to 65535, got " + port);
      }
      if (linger.isNegative()) {
        throw new IllegalArgumentException("--metrics-linger must not be negative");
      }
    }

    /** Whether anything is exported. */
    public boolean any() {
      return port >= 0 || otlp != null;
    }
  }

  private final Settings settings;
  private final BenchMetrics metrics;
  private final ScrapeServer server;
  private final OtlpPush push;
  private final PrintStream err;

  private LiveExport(Settings settings, BenchMetrics metrics, ScrapeServer server, OtlpPush push, PrintStream err) {
    this.settings = settings;
    this.metrics = metrics;
    this.server = server;
    this.push = push;
    this.err = err;
  }

  /** Starts what {@code settings} asks for and says where on {@code err}; null when nothing is. */
  public static LiveExport start(Settings settings, InstantSource clock, PrintStream err) {
    if (!settings.any()) {
      return null;
    }
    BenchMetrics metrics = BenchMetrics.create();
    ScrapeServer server = null;
    try {
      if (settings.port() >= 0) {
        server = metrics.serve(settings.host(), settings.port());
        err.println("tokenmeter: live metrics at " + server.url() + " (docs/METRICS.md, Live export)");
      }
      OtlpPush push = null;
      if (settings.otlp() != null) {
        push = metrics.push(settings.otlp(), clock, err);
        err.println("tokenmeter: pushing metrics to " + settings.otlp().endpoint() + " every "
            + settings.otlp().interval().toMillis() + " ms (OTLP/HTTP)");
      }
      return new LiveExport(settings, metrics, server, push, err);
    } catch (RuntimeException e) {
      if (server != null) {
        server.close();
      }
      metrics.close();
      throw e;
    }
  }

  /** The metrics endpoint, or null without {@code --metrics-port}. */
  public ScrapeServer server() {
    return server;
  }

  /** {@code inner}, also recording into the live metrics under {@code lane}'s and {@code plan}'s labels. */
  RequestSink sink(BenchRun.Lane lane, StagePlan plan, RequestSink inner) {
    return metrics.sink(stage(lane, plan), lane.endpoint().stream(), inner);
  }

  /** The in-flight gauge of {@code lane} in {@code plan} reads {@code runner}'s recorder from now on. */
  void stageStarted(BenchRun.Lane lane, StagePlan plan, StageRunner runner) {
    metrics.inFlight(stage(lane, plan), () -> {
      StageRecorder r = runner.recorder();
      return r == null ? 0 : r.inFlightNow();
    });
  }

  private static BenchMetrics.Stage stage(BenchRun.Lane lane, StagePlan plan) {
    return new BenchMetrics.Stage(operation(lane.endpoint().api()), lane.endpoint().model(), plan.index() + 1,
        plan.load().label(), lane.name());
  }

  /** {@code gen_ai.operation.name} of an API: the conventions' well-known values. */
  static String operation(Api api) {
    return switch (api) {
      case CHAT, ANTHROPIC, RESPONSES, OLLAMA -> "chat";
      case COMPLETIONS, TGI, OLLAMA_GENERATE -> "text_completion";
      case GEMINI -> "generate_content";
    };
  }

  @Override
  public void close() {
    try {
      metrics.drain();
      if (server != null && server.scrapes() > 0 && settings.linger().toNanos() > 0) {
        err.println("tokenmeter: waiting up to " + settings.linger().toSeconds() + " s for a last scrape of "
            + server.url());
        server.awaitNextScrape(settings.linger().toNanos());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (server != null) {
        server.close();
      }
      if (push != null) {
        push.close();
      }
      long dropped = metrics.dropped();
      if (dropped > 0) {
        err.println("tokenmeter: " + dropped + " requests left out of the live metrics (recording queue full)");
      }
      metrics.close();
    }
  }
}
