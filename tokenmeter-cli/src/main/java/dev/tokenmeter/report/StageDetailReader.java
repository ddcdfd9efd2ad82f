package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.analysis.Distribution;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the parts of {@code summary.json} that {@link StageDetail} and {@link
 * SavedSummary.Simulation} hold. Lenient where {@link SummaryJsonReader} is strict: a section
 * missing from an older or hand-trimmed file reads as NaN, empty or null, so a report can still be
 * drawn from what is there. Stateless.
 */
final class StageDetailReader {
  private StageDetailReader() {}

  static SavedSummary.Simulation simulation(JsonNode root) {
    JsonNode sim = root.path("settings").path("simulation");
    if (!sim.isObject()) {
      return null;
    }
    return new SavedSummary.Simulation(
        sim.path("note").asText(null),
        sim.path("model").asText(null),
        sim.path("gpu").asText(null),
        sim.path("gpus").asInt(0),
        number(sim.path("simulated_s")),
        accuracy(sim.path("engine").path("accuracy")));
  }

  /**
   * {@code "Held out by source, the model's median error is 8.1% for TPOT/ITL (p90 37.9%), ..."}
   * from the {@code all} rows of {@code engine.accuracy}, then, for a model no fit has seen, its
   * {@code unseen} rows' signed medians; null when there are none.
   */
  private static String accuracy(JsonNode rows) {
    StringBuilder b = new StringBuilder();
    java.util.Map<String, StringBuilder> unseen = new java.util.LinkedHashMap<>();
    for (JsonNode r : rows) {
      String scope = r.path("scope").asText();
      if ("all".equals(scope)) {
        b.append(b.isEmpty() ? "" : ", ").append(String.format(java.util.Locale.ROOT,
            "%.1f%% for %s (p90 %.1f%%)", r.path("median_abs_error_pct").asDouble(), label(r),
            r.path("p90_abs_error_pct").asDouble()));
      } else if (scope.startsWith("unseen") && r.has("median_signed_error_pct")) {
        StringBuilder u = unseen.computeIfAbsent(scope, k -> new StringBuilder());
        u.append(u.isEmpty() ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%+.1f%% for %s",
            r.path("median_signed_error_pct").asDouble(), label(r)));
      }
    }
    if (b.isEmpty()) {
      return null;
    }
    StringBuilder out = new StringBuilder("Held out by source, the model's median error is ").append(b)
        .append(" (docs/SIMULATOR.md, Accuracy).");
    unseen.forEach((scope, u) -> out.append(scope.equals("unseen")
        ? " This kind of model (fine-grained mixture of experts or latent attention) no fit has seen: on"
            + " published setups of such models the predictions were off by a median "
        : " No fit has seen this model: on its published setups served by " + scope.substring(scope.indexOf('/') + 1)
            + " the predictions were off by a median ").append(u).append(" (docs/ACCURACY.md)."));
    return out.toString();
  }

  private static String label(JsonNode r) {
    return switch (r.path("quantity").asText()) {
      case "tpot" -> "TPOT/ITL";
      case "output_throughput" -> "output throughput";
      case "ttft" -> "TTFT";
      case "p99" -> "p99s";
      default -> r.path("quantity").asText();
    };
  }

  static StageDetail read(JsonNode s) throws IOException {
    JsonNode load = s.path("load");
    JsonNode window = s.path("window");
    JsonNode steady = s.path("steady_state");
    return new StageDetail(
        load.path("model").asText(null),
        load.path("concurrency").asInt(0),
        number(load.path("rate_per_s")),
        number(window.path("start_s")),
        number(window.path("end_s")),
        window.path("complete").asBoolean(false),
        steady.path("reason").asText(null),
        number(s.path("tokens").path("words_per_output_token")),
        health(s.path("client_health")),
        series(s.path("time_series")),
        RepeatsCostReader.cost(s),
        s.path("requests").path("tpot_undefined").asLong(-1),
        ServerStageJson.read(s.get("server")),
        GpuStageJson.read(s.get("gpu")),
        SavedSessions.read(s),
        SavedCompletion.read(s));
  }

  private static StageDetail.Health health(JsonNode h) throws IOException {
    if (!h.isObject()) {
      return null;
    }
    List<String> reasons = new ArrayList<>();
    h.path("reasons").forEach(r -> reasons.add(r.asText()));
    return new StageDetail.Health(
        h.path("bottleneck").asBoolean(false),
        reasons,
        distribution(h.path("send_lag_ms")),
        distribution(h.path("loop_lag_ms")),
        number(h.path("cpu_fraction_of_one_core")),
        number(h.path("cpu_fraction_of_all_cores")),
        number(h.path("loop_thread_cpu_fraction")),
        number(h.path("output_tokens_per_cpu_second")),
        h.path("available_processors").asInt(0));
  }

  private static Distribution distribution(JsonNode d) throws IOException {
    return d.isObject() ? SummaryJsonReader.distribution(d) : Distribution.EMPTY;
  }

  private static StageDetail.Series series(JsonNode t) {
    if (!t.isObject()) {
      return null;
    }
    List<StageDetail.PhaseSpan> phases = new ArrayList<>();
    for (JsonNode p : t.path("phases")) {
      phases.add(new StageDetail.PhaseSpan(
          p.path("phase").asText(), number(p.path("start_s")), number(p.path("end_s"))));
    }
    return new StageDetail.Series(
        number(t.path("interval_s")),
        number(t.path("stage_length_s")),
        phases,
        longs(t.path("output_tokens")),
        longs(t.path("completed")),
        longs(t.path("failed")),
        doubles(t.path("mean_in_flight")),
        doubles(t.path("mean_ttft_ms")));
  }

  private static long[] longs(JsonNode array) {
    long[] out = new long[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asLong();
    }
    return out;
  }

  private static double[] doubles(JsonNode array) {
    double[] out = new double[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = number(array.get(i));
    }
    return out;
  }

  /** A JSON number, or NaN for null, a missing field or anything else. */
  static double number(JsonNode v) {
    return v != null && v.isNumber() ? v.asDouble() : Double.NaN;
  }
}
