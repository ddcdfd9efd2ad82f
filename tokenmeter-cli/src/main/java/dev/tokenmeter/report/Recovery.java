package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.StageResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The summary.json of a run whose process died (a {@code kill -9}, a power cut), rebuilt from what
 * it left: the summary it rewrote after its last finished stage, the plan of the stage it was
 * running ({@link StagePlanJson}) and the requests of that stage in {@code requests.jsonl} ({@link
 * RecoveredStage} says what is exact). The result is marked: {@code partial_reason} {@code
 * "recovered"} and a {@code recovered} object (docs/summary.schema.json). A pure function of its
 * inputs; stateless.
 */
public final class Recovery {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Recovery() {}

  /**
   * A rebuilt summary.
   *
   * @param summary the summary.json tree to write
   * @param rebuiltStage the index of the stage rebuilt from requests.jsonl, -1 when none was
   * @param lines requests read from requests.jsonl
   * @param tornLines lines skipped (a last line cut short by the kill)
   */
  public record Result(ObjectNode summary, int rebuiltStage, int lines, int tornLines) {}

  /**
   * Rebuilds {@code summary} (the folder's summary.json, as the run last wrote it).
   *
   * @param runningOrNull the stage the run was in when it died, null when the folder has none
   * @throws IllegalArgumentException when the summary says the run finished (nothing to recover)
   */
  public static Result recover(JsonNode summary, StagePlanJson.Running runningOrNull, RequestsJsonlReader.Lines lines) {
    if (!summary.path("partial").asBoolean(false)) {
      throw new IllegalArgumentException("the run finished (summary.json is not partial): nothing to recover;"
          + " re-render it with 'tokenmeter report DIR'");
    }
    ObjectNode out = summary.deepCopy();
    ArrayNode stages = out.withArray("stages");
    int rebuilt = -1;
    if (runningOrNull != null && runningOrNull.plan().index() >= stages.size()) {
      int index = runningOrNull.plan().index();
      List<SavedRequest> mine = lines.requests().stream().filter(r -> r.stage() == index).toList();
      stages.add(tree(RecoveredStage.build(runningOrNull, mine)));
      rebuilt = index;
    }
    String detail = "the process died; rebuilt by 'tokenmeter report --recover' from requests.jsonl ("
        + lines.requests().size() + " requests" + (lines.tornLines() > 0 ? ", " + lines.tornLines()
        + " cut-short line skipped" : "") + ")"
        + (rebuilt < 0 ? "" : "; stage " + (rebuilt + 1) + " was running: its ITL and steady state are left out,"
            + " its output tokens/s is estimated");
    out.put("partial", true);
    out.put("partial_reason", RunSummary.PartialReason.RECOVERED.wireName());
    out.put("partial_detail", detail);
    ObjectNode rec = out.putObject("recovered");
    rec.put("requests", lines.requests().size());
    rec.put("torn_lines", lines.tornLines());
    if (rebuilt < 0) {
      rec.putNull("rebuilt_stage");
    } else {
      rec.put("rebuilt_stage", rebuilt);
    }
    rec.put("previous_detail", summary.path("partial_detail").asText(null));
    return new Result(out, rebuilt, lines.requests().size(), lines.tornLines());
  }

  private static JsonNode tree(StageResult r) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(bytes)) {
      StageJsonWriter.write(g, r, null, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return MAPPER.readTree(bytes.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
