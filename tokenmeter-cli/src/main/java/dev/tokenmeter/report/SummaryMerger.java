package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.Version;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Merges the {@code summary.json} of load generators that ran side by side, at the same time,
 * against the same target with the same plan, into one summary of the combined load: a pure
 * function of the parts' JSON trees. Stage by stage (see {@link StageMerger}): histograms add
 * exactly, counts add, throughputs and achieved concurrency add (each part over its own window),
 * the load and its label describe the combined load ({@code c=8} twice is {@code c=16}). The run's
 * settings and seed are part 0's; {@code merged_from} lists the parts (schema 1.2). Stateless.
 */
public final class SummaryMerger {
  /** Smallest overlap of the parts' windows, as a fraction of the longest, before a warning. */
  public static final double MIN_WINDOW_OVERLAP = 0.9;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SummaryMerger() {}

  /**
   * One part: a results folder's summary.json.
   *
   * @param dir where it came from, recorded in {@code merged_from}
   * @param summary its parsed summary.json
   */
  public record Part(Path dir, JsonNode summary) {
    public Part {
      Objects.requireNonNull(dir, "dir");
      Objects.requireNonNull(summary, "summary");
    }
  }

  /**
   * The merged summary and what the user should know about it.
   *
   * @param summary the merged summary.json tree
   * @param warnings one sentence each: windows that did not overlap, URLs that differ, ...
   */
  public record Result(ObjectNode summary, List<String> warnings) {
    public Result {
      warnings = List.copyOf(warnings);
    }
  }

  /** The parts' plans differ; the message says how. */
  public static final class PlanMismatchException extends Exception {
    private static final long serialVersionUID = 1L;

    PlanMismatchException(String message) {
      super(message);
    }
  }

  /**
   * Merges {@code parts} (one or more; a single part, the one worker of {@code bench --workers}
   * left, is rewritten in the merged form).
   *
   * @param commandLine the merge's own command line, written as {@code command_line}
   * @param force merge even when the plans differ: then stages are merged by index up to the
   *     shortest part, with a warning
   * @throws PlanMismatchException when the plans differ and {@code force} is false
   */
  public static Result merge(List<Part> parts, List<String> commandLine, boolean force)
      throws PlanMismatchException {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("merge needs at least one part");
    }
    List<String> warnings = new ArrayList<>();
    List<String> mismatches = mismatches(parts);
    if (!mismatches.isEmpty()) {
      if (!force) {
        throw new PlanMismatchException(String.join("; ", mismatches));
      }
      for (String m : mismatches) {
        warnings.add("merged anyway (--force): " + m);
      }
    }
    JsonNode first = parts.get(0).summary();
    String url = first.at("/target/url").asText();
    for (int i = 1; i < parts.size(); i++) {
      String other = parts.get(i).summary().at("/target/url").asText();
      if (!other.equals(url)) {
        warnings.add("part " + i + " measured " + other + ", part 0 " + url + " (one target behind several addresses?)");
      }
    }
    ObjectNode out = MAPPER.createObjectNode();
    out.put("schema_version", RunSummary.SCHEMA_VERSION);
    out.putObject("tool").put("name", "tokenmeter").put("version", Version.VERSION);
    out.put("started_at", extreme(parts, "started_at", true).toString());
    out.put("ended_at", extreme(parts, "ended_at", false).toString());
    out.set("target", first.get("target").deepCopy());
    ArrayNode line = out.putArray("command_line");
    commandLine.forEach(line::add);
    out.set("seed", first.get("seed").deepCopy());
    out.set("settings", first.get("settings").deepCopy());
    completion(out, parts);
    ArrayNode from = out.putArray("merged_from");
    for (Part p : parts) {
      JsonNode s = p.summary();
      from.addObject().put("dir", p.dir().toString())
          .put("started_at", s.get("started_at").asText())
          .put("ended_at", s.get("ended_at").asText())
          .put("target_url", s.at("/target/url").asText())
          .put("seed", s.get("seed").asLong())
          .put("partial", s.get("partial").asBoolean());
    }
    // The curve, knee and SLO verdicts belong to one generator's stages; a merged run states none
    // (run `tokenmeter report` or compare on the merged folder for the combined numbers).
    out.putNull("sweep");
    out.putNull("slo");
    ArrayNode stages = out.putArray("stages");
    int count = parts.stream().mapToInt(p -> p.summary().get("stages").size()).min().orElse(0);
    boolean virtual = parts.stream().allMatch(p -> p.summary().at("/settings/simulation").isObject());
    List<Double> offsets = new ArrayList<>(java.util.Collections.nCopies(parts.size(), 0.0));
    for (int s = 0; s < count; s++) {
      List<JsonNode> nodes = new ArrayList<>();
      for (Part p : parts) {
        nodes.add(p.summary().get("stages").get(s));
      }
      if (!virtual) {
        overlap(parts, nodes, offsets, warnings);
      }
      stages.add(StageMerger.merge(nodes, warnings));
    }
    return new Result(out, warnings);
  }

  /** How the parts' plans differ: stage count, labels, load models, models, APIs. */
  static List<String> mismatches(List<Part> parts) {
    List<String> out = new ArrayList<>();
    JsonNode first = parts.get(0).summary();
    for (int i = 1; i < parts.size(); i++) {
      JsonNode other = parts.get(i).summary();
      for (String field : new String[] {"/target/model", "/target/api"}) {
        if (!first.at(field).equals(other.at(field))) {
          out.add("part " + i + " has " + field.substring(1) + " " + other.at(field) + ", part 0 "
              + first.at(field));
        }
      }
      JsonNode a = first.get("stages");
      JsonNode b = other.get("stages");
      if (a.size() != b.size()) {
        out.add("part " + i + " has " + b.size() + " stages, part 0 " + a.size());
      }
      for (int s = 0; s < Math.min(a.size(), b.size()); s++) {
        String la = a.get(s).get("label").asText();
        String lb = b.get(s).get("label").asText();
        if (!la.equals(lb) || !a.get(s).at("/load/model").equals(b.get(s).at("/load/model"))) {
          out.add("stage " + s + " of part " + i + " is " + lb + ", of part 0 " + la);
        }
      }
    }
    return out;
  }

  private static Instant extreme(List<Part> parts, String field, boolean earliest) {
    Instant best = null;
    for (Part p : parts) {
      Instant t = Instant.parse(p.summary().get(field).asText());
      if (best == null || (earliest ? t.isBefore(best) : t.isAfter(best))) {
        best = t;
      }
    }
    return best;
  }

  private static void completion(ObjectNode out, List<Part> parts) {
    String reason = null;
    List<String> details = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      JsonNode s = parts.get(i).summary();
      if (s.get("partial").asBoolean()) {
        reason = reason != null ? reason : s.get("partial_reason").asText();
        String detail = s.path("partial_detail").isTextual() ? s.get("partial_detail").asText() : reason;
        details.add("part " + i + ": " + detail);
      }
    }
    out.put("partial", reason != null);
    out.put("partial_reason", reason);
    out.put("partial_detail", details.isEmpty() ? null : String.join("; ", details));
  }

  /**
   * Warns when the parts' windows of this stage overlap by less than {@link #MIN_WINDOW_OVERLAP}
   * of the longest. A stage's wall-clock start is estimated as the run's {@code started_at} plus
   * the lengths of the stages before it (the gaps between stages are milliseconds).
   */
  private static void overlap(
      List<Part> parts, List<JsonNode> stages, List<Double> offsets, List<String> warnings) {
    double latestStart = Double.NEGATIVE_INFINITY;
    double earliestEnd = Double.POSITIVE_INFINITY;
    double longest = 0;
    double origin = Instant.parse(parts.get(0).summary().get("started_at").asText()).toEpochMilli() / 1e3;
    for (int i = 0; i < parts.size(); i++) {
      JsonNode w = stages.get(i).get("window");
      double stageStart = Instant.parse(parts.get(i).summary().get("started_at").asText()).toEpochMilli() / 1e3
          - origin + offsets.get(i);
      offsets.set(i, offsets.get(i) + stages.get(i).get("stage_length_s").asDouble());
      if (!w.get("start_s").isNumber()) {
        return; // a part whose window never started: nothing to align
      }
      latestStart = Math.max(latestStart, stageStart + w.get("start_s").asDouble());
      earliestEnd = Math.min(earliestEnd, stageStart + w.get("end_s").asDouble());
      longest = Math.max(longest, w.get("length_s").asDouble());
    }
    double shared = Math.max(0, earliestEnd - latestStart);
    if (longest > 0 && shared < MIN_WINDOW_OVERLAP * longest) {
      warnings.add(String.format(Locale.ROOT,
          "stage %s: the parts' measurement windows overlap for %.1f s of %.1f s (%.0f%%, want %.0f%%):"
              + " the parts did not run at the same time, and the summed throughputs overstate the load",
          stages.get(0).get("label").asText(), shared, longest, 100 * shared / longest,
          100 * MIN_WINDOW_OVERLAP));
    }
  }
}
