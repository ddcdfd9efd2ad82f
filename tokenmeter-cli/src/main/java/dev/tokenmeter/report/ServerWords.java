package dev.tokenmeter.report;

import dev.tokenmeter.scrape.Reading;
import dev.tokenmeter.scrape.ServerStage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The server's side of a stage in words, for the terminal and report.html: what its queue, batch
 * and KV cache did, and where the client's TTFT went. Pure functions of a {@link ServerStage}.
 */
public final class ServerWords {
  private ServerWords() {}

  /**
   * {@code "Of 840 ms TTFT p50, 610 ms were queueing in the server (vLLM queue time), 180 ms
   * prefill, 50 ms network and client."}; null without a decomposition.
   */
  public static String decomposition(ServerStage s) {
    ServerStage.Decomposition d = s.decomposition();
    if (d == null) {
      return null;
    }
    StringBuilder b = new StringBuilder("Of ").append(ms(d.clientTtftP50Ms())).append(" TTFT p50, ")
        .append(ms(d.queueMs())).append(" were queueing in the server (").append(d.queueSource()).append("), ");
    if (Double.isNaN(d.prefillMs())) {
      b.append(ms(d.restMs())).append(" prefill, network and client");
    } else {
      b.append(ms(d.prefillMs())).append(" prefill, ").append(ms(d.restMs())).append(" network and client");
    }
    b.append('.');
    if (!d.means().isEmpty()) {
      b.append(" (").append(capital(String.join(" and ", d.means()))).append(": the server's exact mean, which lies in")
          .append(" the histogram bucket of the median and places it more finely than the bucket can.)");
    }
    if (d.restMs() < 0) {
      b.append(" (The server's medians add up to more than the client's: a median of sums is not the sum of"
          + " medians, and the server's histogram buckets are coarse.)");
    }
    return b.toString();
  }

  /**
   * {@code "Server (vLLM): queue depth mean 5.2, max 8; running mean 2.0, max 2; KV cache 41% mean,
   * 63% max; 0 preemptions; prefix-cache hit rate 12%."}: what the server reports of these.
   */
  public static String state(ServerStage s) {
    List<String> parts = new ArrayList<>();
    gauge(parts, s, Reading.Value.WAITING, "queue depth", false);
    gauge(parts, s, Reading.Value.RUNNING, "running", false);
    gauge(parts, s, Reading.Value.KV_CACHE_USAGE, "KV cache", true);
    Double preemptions = s.deltas().get(Reading.Value.PREEMPTIONS);
    if (preemptions != null) {
      parts.add(num(preemptions) + (preemptions == 1 ? " preemption" : " preemptions"));
    }
    if (!Double.isNaN(s.prefixCacheHitRate())) {
      parts.add("prefix-cache hit rate " + percent(s.prefixCacheHitRate()));
    }
    String what = parts.isEmpty()
        ? s.series().raw().size() + " series kept as they are"
        : String.join("; ", parts);
    return "Server (" + s.server().displayName() + ", " + s.windowScrapes() + " scrapes in the window): " + what + ".";
  }

  private static void gauge(List<String> parts, ServerStage s, Reading.Value v, String name, boolean fraction) {
    ServerStage.Gauge g = s.gauges().get(v);
    if (g != null) {
      parts.add(fraction
          ? name + " " + percent(g.mean()) + " mean, " + percent(g.max()) + " max"
          : name + " mean " + num(g.mean()) + ", max " + num(g.max()));
    }
  }

  private static String capital(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  static String ms(double ms) {
    return String.format(Locale.ROOT, ms >= 100 || ms <= -100 ? "%.0f ms" : "%.1f ms", ms);
  }

  private static String num(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
  }
}
