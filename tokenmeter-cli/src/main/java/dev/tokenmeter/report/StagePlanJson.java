package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalInt;

/**
 * {@code stage-in-progress.json}: the plan of the stage a run is running and when it started, so
 * that {@code tokenmeter report --recover} can rebuild that stage from {@code requests.jsonl} after
 * the process died. Written when a stage starts, deleted when the run ends (docs/RESULTS.md). The
 * plan's fields are those of a {@code stages[]} element of summary.json. Stateless.
 */
public final class StagePlanJson {
  /** The file's name inside a results folder. */
  public static final String FILE_NAME = "stage-in-progress.json";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final double NS_PER_S = 1e9;
  private static final double NS_PER_MS = 1e6;

  private StagePlanJson() {}

  /**
   * A stage that was running.
   *
   * @param plan its plan
   * @param label its label ({@code "c=4"})
   * @param stageStartNanos when it started, nanoseconds from the run's start (the base of {@code
   *     requests.jsonl}'s times)
   */
  public record Running(StagePlan plan, String label, long stageStartNanos) {}

  /** Writes {@code running} into {@code dir}, atomically (a temporary file moved over it). */
  public static void write(Path dir, Running running) throws IOException {
    Path tmp = dir.resolve(FILE_NAME + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp);
        JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      StageJsonWriter.plan(g, running.plan(), running.label());
      g.writeNumberField("stage_start_ms", running.stageStartNanos() / NS_PER_MS);
      g.writeEndObject();
    }
    Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Reads {@code file}.
   *
   * @throws IllegalArgumentException when it is not a stage plan this version writes
   */
  public static Running read(Path file) throws IOException {
    JsonNode n = MAPPER.readTree(file.toFile());
    try {
      StagePlan plan = new StagePlan(n.get("index").asInt(), load(n.get("load")), stop(n.get("stop")),
          nanos(n.get("warmup_s").asDouble()), nanos(n.get("cooldown_s").asDouble()), n.get("seed").asLong(),
          n.path("max_requests").asLong(0)); // absent or null: no cap
      return new Running(plan, n.get("label").asText(), Math.round(n.get("stage_start_ms").asDouble() * NS_PER_MS));
    } catch (NullPointerException e) {
      throw new IllegalArgumentException(file + " is not a stage plan: a field is missing", e);
    }
  }

  private static LoadModel load(JsonNode load) {
    if ("closed".equals(load.get("model").asText())) {
      return new LoadModel.Closed(load.get("concurrency").asInt(),
          Math.round(load.get("think_time_ms").asDouble() * NS_PER_MS));
    }
    Arrivals arrivals = switch (load.get("arrivals").asText()) {
      case "constant" -> new Arrivals.Constant();
      case "poisson" -> new Arrivals.Poisson();
      case "gamma" -> new Arrivals.Gamma(load.get("burstiness").asDouble());
      default -> throw new IllegalArgumentException("unknown arrivals " + load.get("arrivals"));
    };
    JsonNode cap = load.get("max_concurrency");
    return new LoadModel.Open(load.get("rate_per_s").asDouble(), arrivals,
        cap == null || cap.isNull() ? OptionalInt.empty() : OptionalInt.of(cap.asInt()));
  }

  private static StopCondition stop(JsonNode stop) {
    return "requests".equals(stop.get("kind").asText())
        ? new StopCondition.Requests(stop.get("requests").asLong())
        : new StopCondition.Duration(nanos(stop.get("duration_s").asDouble()));
  }

  private static long nanos(double seconds) {
    return Math.round(seconds * NS_PER_S);
  }
}
