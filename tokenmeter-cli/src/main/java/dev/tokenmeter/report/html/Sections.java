package dev.tokenmeter.report.html;

import dev.tokenmeter.report.GpuWords;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.ServerWords;
import dev.tokenmeter.report.StageDetail;
import dev.tokenmeter.scrape.GpuStage;
import dev.tokenmeter.scrape.ServerStage;
import java.util.ArrayList;
import java.util.List;

/** The static parts of report.html between headline and tables: banners, stage figures, run facts. */
final class Sections {
  private Sections() {}

  /** Warnings above the answer: simulated, partial. Empty when neither applies. */
  static String banner(SavedSummary s) {
    StringBuilder b = new StringBuilder();
    if (s.simulated()) {
      SavedSummary.Simulation sim = s.simulation();
      b.append("<p class=\"banner simulated\" id=\"simulated\"><strong>Simulated, not measured.</strong> ")
          .append(Html.esc(sim.model() + " on " + sim.gpus() + " × " + sim.gpu() + ", "
              + Headline.num(sim.simulatedSeconds()) + " s of virtual time. "))
          .append(Html.esc(sim.note() == null ? "" : sim.note()))
          .append(Html.esc(sim.accuracy() == null ? "" : " " + sim.accuracy())).append("</p>\n");
    }
    if (s.partial()) {
      String reason = s.partialReason() == null ? "stopped early" : s.partialReason();
      b.append("<p class=\"banner partial\" id=\"partial\"><strong>Partial run (")
          .append(Html.esc(reason)).append(").</strong> ")
          .append(Html.esc(s.partialDetail() == null ? "" : s.partialDetail() + ". "))
          .append(Html.esc("recovered".equals(reason)
              ? "Recovered after the process died: the stage it was running, if any, is rebuilt from the requests"
                  + " it finished."
              : "This report covers the " + s.stages().size()
                  + (s.stages().size() == 1 ? " stage" : " stages") + " that finished."))
          .append("</p>\n");
    }
    return b.toString();
  }

  /** Per stage: a heading, the steady-state sentence and two chart canvases. */
  static String stageFigures(SavedSummary s) {
    StringBuilder b = new StringBuilder();
    energy(b, s);
    for (SavedSummary.Stage st : s.stages()) {
      int i = st.index();
      StageDetail d = st.detail();
      String label = "Stage " + (i + 1) + ": " + Headline.stageName(s, st);
      b.append("<section class=\"stage\" aria-labelledby=\"stage-").append(i).append("\">\n<h3 id=\"stage-")
          .append(i).append("\">").append(Html.esc(label)).append("</h3>\n");
      if (d.steadyStateReason() != null) {
        b.append("<p class=\"note\"><a href=\"#").append(MetricDoc.STEADY_STATE.id()).append("\">Steady state</a> ")
            .append(st.steadyStateReached() ? "reached: " : "not reached: ")
            .append(Html.esc(d.steadyStateReason())).append("</p>\n");
      }
      sessions(b, i, d.sessions());
      completion(b, i, d.completion());
      figure(b, "chart-stage-" + i + "-tps", label + ": aggregate output tokens/s and requests in flight per second;"
          + " warm-up and cool-down shaded");
      figure(b, "chart-stage-" + i + "-latency", label + ": mean TTFT of the requests whose first token arrived"
          + " that second, and failed requests per second; warm-up and cool-down shaded");
      server(b, i, label, d.server());
      gpu(b, i, label, d.gpu());
      b.append("</section>\n");
    }
    return b.toString();
  }

  /**
   * The stage's conversations ({@code bench --turns}): the sentence, the session counts and a table
   * by turn (TTFT, TPOT, prompt length, cached share).
   */
  private static void sessions(StringBuilder b, int i, dev.tokenmeter.report.SavedSessions s) {
    if (s == null) {
      return;
    }
    b.append("<div class=\"sessions\" id=\"sessions-").append(i).append("\">\n<h4>Conversations</h4>\n")
        .append("<p class=\"answer-sessions\">").append(Html.esc(s.inWords())).append("</p>\n<p class=\"note\">")
        .append(Html.esc(String.format(java.util.Locale.ROOT,
            "Per session that ended (finished, or at the context limit): duration p50 %s s, %s turns, %s prompt"
                + " and %s output tokens (means).",
            Headline.num(s.durationP50Seconds()), Headline.num(s.meanTurns()), Headline.num(s.meanInputTokens()),
            Headline.num(s.meanOutputTokens()))))
        .append("</p>\n<table class=\"by-turn\"><caption>By turn: successful measured requests</caption>\n<thead><tr>")
        .append("<th scope=\"col\">Turn</th><th scope=\"col\">Requests</th><th scope=\"col\">TTFT p50 ms</th>")
        .append("<th scope=\"col\">TTFT p99 ms</th><th scope=\"col\">TPOT p50 ms</th>")
        .append("<th scope=\"col\">Prompt tokens (mean)</th><th scope=\"col\">Cached share</th></tr></thead>\n<tbody>\n");
    for (dev.tokenmeter.report.SavedSessions.Turn t : s.byTurn()) {
      b.append("<tr><th scope=\"row\">").append(Html.esc(t.turn())).append("</th><td>").append(t.requests())
          .append("</td><td>").append(Html.esc(Headline.num(t.ttftP50Millis()))).append("</td><td>")
          .append(Html.esc(Headline.num(t.ttftP99Millis()))).append("</td><td>")
          .append(Html.esc(Headline.num(t.tpotP50Millis()))).append("</td><td>")
          .append(Html.esc(Headline.num(t.meanPromptTokens()))).append("</td><td>")
          .append(Double.isNaN(t.cachedShare()) ? "not reported"
              : Html.esc(String.format(java.util.Locale.ROOT, "%.0f%%", 100 * t.cachedShare())))
          .append("</td></tr>\n");
    }
    b.append("</tbody></table>\n</div>\n");
  }

  /**
   * The stage's code-completion traffic ({@code --profile completion}): the sentence and how the
   * measured requests ended; cancelled ones are the user's doing, never errors.
   */
  private static void completion(StringBuilder b, int i, dev.tokenmeter.report.SavedCompletion c) {
    if (c == null) {
      return;
    }
    String server = switch (c.serverStopsOnCancel()) {
      case "stopped" -> "stopped generating";
      case "kept_generating" -> "went on generating";
      default -> "not known";
    };
    b.append("<div class=\"completion\" id=\"completion-").append(i).append("\">\n<h4>Code completion</h4>\n")
        .append("<p class=\"answer-completion\">").append(Html.esc(c.inWords())).append("</p>\n")
        .append("<table class=\"completion-counts\"><caption>Measured completion requests, by how they ended"
            + " (cancelled ones are the user's doing, in no error count)</caption>\n<thead><tr>")
        .append("<th scope=\"col\">Sent</th><th scope=\"col\">Completed</th><th scope=\"col\">Superseded</th>")
        .append("<th scope=\"col\">Cancelled after</th><th scope=\"col\">Failed</th>")
        .append("<th scope=\"col\">Cut at stage end</th><th scope=\"col\">Cancelled share</th>")
        .append("<th scope=\"col\">TTFT p50 ms</th><th scope=\"col\">TTFT p99 ms</th>")
        .append("<th scope=\"col\">Server on cancel</th></tr></thead>\n<tbody>\n<tr><td>").append(c.sent())
        .append("</td><td>").append(c.completed()).append("</td><td>").append(c.superseded()).append("</td><td>")
        .append(c.cancelledAfter()).append("</td><td>").append(c.failed()).append("</td><td>")
        .append(c.cutAtStageEnd()).append("</td><td>")
        .append(Double.isNaN(c.cancelledShare()) ? "-"
            : Html.esc(String.format(java.util.Locale.ROOT, "%.0f%%", 100 * c.cancelledShare())))
        .append("</td><td>").append(Html.esc(Headline.num(c.ttftP50Millis()))).append("</td><td>")
        .append(Html.esc(Headline.num(c.ttftP99Millis()))).append("</td><td>").append(Html.esc(server))
        .append("</td></tr>\n</tbody></table>\n</div>\n");
  }

  /** The server's side of the stage ({@code --server-metrics}): its state and the TTFT decomposition, a chart. */
  private static void server(StringBuilder b, int i, String label, ServerStage server) {
    if (server == null) {
      return;
    }
    b.append("<div class=\"server\" id=\"server-").append(i).append("\">\n<p class=\"note\">")
        .append(Html.esc(ServerWords.state(server))).append("</p>\n");
    String words = ServerWords.decomposition(server);
    if (words != null) {
      b.append("<p class=\"decomposition\">").append(Html.esc(words)).append("</p>\n");
    }
    figure(b, "chart-stage-" + i + "-server", label + ": the server's own metrics on the client's time axis:"
        + " requests waiting (queue depth) and running, KV-cache usage; warm-up and cool-down shaded");
    b.append("</div>\n");
  }

  /**
   * The run's power and energy ({@code --gpu-metrics}, or simulate's model): the sentence comparing
   * the last stage with the first, and power and joules per output token against the load.
   */
  private static void energy(StringBuilder b, SavedSummary s) {
    List<GpuStage> gpus = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (SavedSummary.Stage st : s.stages()) {
      gpus.add(st.detail().gpu());
      labels.add(GpuWords.load(st.detail().concurrency(), st.detail().ratePerSecond()));
    }
    if (gpus.stream().allMatch(java.util.Objects::isNull)) {
      return;
    }
    b.append("<section class=\"energy\" id=\"energy\" aria-labelledby=\"energy-heading\">\n")
        .append("<h3 id=\"energy-heading\">GPU power and energy</h3>\n");
    String words = GpuWords.compare(gpus, labels);
    if (words != null) {
      b.append("<p class=\"note\" id=\"energy-words\">").append(Html.esc(Character.toUpperCase(words.charAt(0))
          + words.substring(1) + ".")).append("</p>\n");
    }
    figure(b, "chart-energy", "The GPUs' mean power (all GPUs together), their utilisation and the energy per output"
        + " token at each stage's load (docs/METRICS.md, GPU power and energy)");
    b.append("</section>\n");
  }

  /** The GPUs during the stage: their figures in words and power and utilisation on the client's time axis. */
  private static void gpu(StringBuilder b, int i, String label, GpuStage gpu) {
    if (gpu == null) {
      return;
    }
    b.append("<div class=\"gpu\" id=\"gpu-").append(i).append("\">\n<p class=\"note\">")
        .append(Html.esc(GpuWords.stage(gpu, null))).append("</p>\n");
    if (gpu.series().offsetSeconds().length > 0) {
      figure(b, "chart-stage-" + i + "-gpu", label + ": the GPUs' power (all together) and mean utilisation on the"
          + " client's time axis; warm-up and cool-down shaded");
    }
    b.append("</div>\n");
  }

  private static void figure(StringBuilder b, String id, String caption) {
    b.append("<figure><div class=\"chart\"><canvas id=\"").append(id).append("\" role=\"img\" aria-label=\"")
        .append(Html.esc(caption)).append("\"></canvas></div><figcaption>").append(Html.esc(caption))
        .append("</figcaption></figure>\n");
  }

  /** The run's facts: target, model, times, tool, command line. */
  static String run(SavedSummary s) {
    StringBuilder b = new StringBuilder("<dl class=\"run\">\n");
    fact(b, "Target", s.targetUrl());
    fact(b, "Model", s.model());
    fact(b, "API", s.api());
    fact(b, "Started", HtmlReport.instant(s.startedAt()));
    fact(b, "Ended", HtmlReport.instant(s.endedAt()) + " (" + HtmlReport.duration(s) + ")");
    fact(b, "Stages", Integer.toString(s.stages().size()));
    fact(b, "Tool", s.toolName() + " " + s.toolVersion() + ", summary.json schema " + s.schemaVersion());
    return b.append("</dl>\n").toString();
  }

  private static void fact(StringBuilder b, String name, String value) {
    b.append("<dt>").append(Html.esc(name)).append("</dt><dd>").append(Html.esc(value)).append("</dd>\n");
  }
}
