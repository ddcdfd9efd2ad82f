package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.StageResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@code summary.json} holds about one run: what was measured, how, and each stage's
 * result. Immutable; rendered by {@link SummaryJsonWriter}. The JSON schema is {@code
 * docs/summary.schema.json}, version {@link #SCHEMA_VERSION}.
 *
 * @param tool the tool that measured
 * @param startedAt wall-clock start (UTC)
 * @param endedAt wall-clock end (UTC)
 * @param target what was measured
 * @param commandLine the arguments the run was started with
 * @param seed the run's seed
 * @param settings timeouts and workload
 * @param completion whether the run finished or was cut short
 * @param stages the stages in run order; a partial run holds the stages that ran
 */
public record RunSummary(
    Tool tool,
    Instant startedAt,
    Instant endedAt,
    Target target,
    List<String> commandLine,
    long seed,
    Settings settings,
    Completion completion,
    List<StageResult> stages) {

  /**
   * Version of the summary.json schema: major changes break readers (a field removed or its
   * meaning changed), minor ones add fields.
   */
  public static final String SCHEMA_VERSION = "1.0";

  public RunSummary {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(endedAt, "endedAt");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(completion, "completion");
    commandLine = List.copyOf(commandLine);
    stages = List.copyOf(stages);
  }

  /** The measuring tool: {@code tokenmeter} and its version. */
  public record Tool(String name, String version) {}

  /**
   * What was measured.
   *
   * @param url base URL of the server
   * @param api the API spoken ({@code "chat"}, {@code "completions"})
   * @param model the model asked for, null when the server chose
   */
  public record Target(String url, String api, String model) {
    public Target {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(api, "api");
    }
  }

  /**
   * How the run was configured.
   *
   * @param timeouts the client's deadlines
   * @param workload a description of the workload (prompt and output length specs, dataset),
   *     values being strings, numbers, booleans, lists or maps of them; written as given
   */
  public record Settings(Timeouts timeouts, Map<String, Object> workload) {
    public Settings {
      Objects.requireNonNull(timeouts, "timeouts");
      workload = Collections.unmodifiableMap(new LinkedHashMap<>(workload));
    }
  }

  /** The client's deadlines; null where there is none. */
  public record Timeouts(Duration firstToken, Duration idle, Duration total) {
    /** No deadlines at all. */
    public static final Timeouts NONE = new Timeouts(null, null, null);
  }

  /**
   * Whether the run finished.
   *
   * @param partial true when the run stopped before its plan ended
   * @param reason why, null when not partial
   * @param detail a human-readable detail (the error message), may be null
   */
  public record Completion(boolean partial, PartialReason reason, String detail) {
    public Completion {
      if (partial != (reason != null)) {
        throw new IllegalArgumentException("a partial run needs a reason, a complete one none");
      }
    }

    /** The run ran every stage to its end. */
    public static Completion complete() {
      return new Completion(false, null, null);
    }

    /** The user stopped the run (Ctrl-C). */
    public static Completion interrupted(String detail) {
      return new Completion(true, PartialReason.INTERRUPTED, detail);
    }

    /** An error stopped the run. */
    public static Completion error(String detail) {
      return new Completion(true, PartialReason.ERROR, detail);
    }
  }

  /** Why a run is partial. */
  public enum PartialReason {
    INTERRUPTED,
    ERROR;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
