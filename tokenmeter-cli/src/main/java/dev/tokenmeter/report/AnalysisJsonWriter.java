package dev.tokenmeter.report;

import static dev.tokenmeter.report.StageJsonWriter.number;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.Knee;
import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.Sweep;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.SearchResult;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloReport;
import java.io.IOException;

/**
 * Writes a run's {@link RunAnalysis} into {@code summary.json}: the top-level {@code sweep} and
 * {@code slo} objects (schema 1.2), {@code null} when absent. Stateless.
 */
final class AnalysisJsonWriter {
  private AnalysisJsonWriter() {}

  static void write(JsonGenerator g, RunAnalysis a) throws IOException {
    sweep(g, a.sweep());
    slo(g, a);
  }

  private static void sweep(JsonGenerator g, Sweep s) throws IOException {
    if (s == null) {
      g.writeNullField("sweep");
      return;
    }
    g.writeObjectFieldStart("sweep");
    g.writeStringField("load_kind", s.loadKind());
    number(g, "knee_tps", s.kneeTokensPerSecond());
    number(g, "knee_fraction", s.kneeFraction());
    g.writeArrayFieldStart("points");
    for (Sweep.Point p : s.points()) {
      g.writeStartObject();
      g.writeNumberField("index", p.index());
      g.writeStringField("label", p.label());
      number(g, "load", p.load());
      number(g, "decode_tps_p50", p.decodeTpsP50());
      number(g, "decode_tps_p10", p.decodeTpsP10());
      number(g, "output_tokens_per_s", p.outputTokensPerSecond());
      number(g, "requests_per_s", p.requestsPerSecond());
      number(g, "goodput_requests_per_s", p.goodputRequestsPerSecond());
      number(g, "ttft_p50_ms", p.ttftP50Millis());
      number(g, "ttft_p90_ms", p.ttftP90Millis());
      number(g, "ttft_p99_ms", p.ttftP99Millis());
      g.writeStringField("ttft_from", p.ttftFrom().wireName());
      number(g, "ttft_sent_p99_ms", p.ttftSentP99Millis());
      number(g, "tpot_p50_ms", p.tpotP50Millis());
      number(g, "tpot_p99_ms", p.tpotP99Millis());
      number(g, "error_pct", p.errorPercent());
      g.writeEndObject();
    }
    g.writeEndArray();
    Knee k = s.knee();
    g.writeObjectFieldStart("knee");
    g.writeStringField("status", k.status().wireName());
    number(g, "bar_tps", k.barTokensPerSecond());
    g.writeStringField("bar_source", k.barSource());
    number(g, "crossing_load", k.crossingLoad());
    index(g, "last_meeting_index", k.lastMeetingIndex());
    index(g, "first_below_index", k.firstBelowIndex());
    g.writeBooleanField("recovers", k.recovers());
    g.writeStringField("statement", k.statement());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void slo(JsonGenerator g, RunAnalysis a) throws IOException {
    SloReport r = a.slo();
    if (r == null) {
      g.writeNullField("slo");
      return;
    }
    g.writeObjectFieldStart("slo");
    g.writeStringField("spec", r.slo().text());
    g.writeArrayFieldStart("objectives");
    for (Slo.Objective o : r.slo().objectives()) {
      g.writeStartObject();
      g.writeStringField("name", o.name());
      g.writeStringField("op", o.op().symbol());
      number(g, "threshold", o.threshold());
      g.writeStringField("unit", o.metric().unit());
      g.writeBooleanField("per_request", o.metric().perRequest());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeBooleanField("passed", r.passed());
    g.writeBooleanField("violated", a.sloViolated());
    g.writeArrayFieldStart("stages");
    for (SloReport.StageVerdict v : r.stages()) {
      g.writeStartObject();
      g.writeNumberField("index", v.index());
      g.writeStringField("label", v.label());
      g.writeBooleanField("passed", v.passed());
      g.writeArrayFieldStart("checks");
      for (SloReport.Check c : v.checks()) {
        g.writeStartObject();
        g.writeStringField("objective", c.objective().name());
        number(g, "measured", c.measured());
        g.writeBooleanField("passed", c.passed());
        g.writeStringField("note", c.note());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndArray();
    search(g, a.search());
    g.writeEndObject();
  }

  private static void search(JsonGenerator g, SearchResult s) throws IOException {
    if (s == null) {
      g.writeNullField("search");
      return;
    }
    g.writeObjectFieldStart("search");
    g.writeStringField("load_kind", s.loadKind());
    number(g, "start", s.search().start());
    number(g, "limit", s.search().limit());
    number(g, "relative_precision", s.search().integer() ? Double.NaN : s.search().relativePrecision());
    g.writeNumberField("max_probes", s.search().maxProbes());
    g.writeArrayFieldStart("probes");
    for (LoadSearch.Probe p : s.probes()) {
      g.writeStartObject();
      number(g, "load", p.load());
      g.writeBooleanField("passed", p.passed());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeBooleanField("found", s.found());
    index(g, "best_index", s.bestIndex());
    number(g, "best_load", s.bestLoad());
    number(g, "best_goodput_requests_per_s", s.bestGoodputRequestsPerSecond());
    index(g, "failed_index", s.failedIndex());
    number(g, "failed_load", s.failedLoad());
    g.writeStringField("statement", s.statement());
    g.writeEndObject();
  }

  private static void index(JsonGenerator g, String name, int index) throws IOException {
    if (index < 0) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, index);
    }
  }
}
