package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Numbers;
import dev.tokenmeter.core.analysis.TurnRange;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A service-level objective: objectives that every stage must meet, parsed from {@code --slo}
 * ({@code "ttft.p99<=800ms,tpot.p99<=60ms,errors<=1%,tps.p10>=30"}). Immutable. Grammar and the
 * exact meaning of each name: {@code docs/METRICS.md}, "SLOs".
 *
 * @param text the spec as given
 * @param objectives the objectives, in the order given
 */
public record Slo(String text, List<Objective> objectives) {

  public Slo {
    objectives = List.copyOf(objectives);
  }

  /**
   * Parses {@code spec}: comma-separated clauses {@code METRIC[.STAT] OP VALUE[UNIT]}, whitespace
   * anywhere between the parts.
   *
   * @throws IllegalArgumentException with a one-line message naming the bad clause and the valid
   *     choices, fit to show the user
   */
  public static Slo parse(String spec) {
    return SloParser.parse(spec);
  }

  /** Whether some objective can be judged per request (goodput counts requests that meet all of them). */
  public boolean hasPerRequestObjectives() {
    return objectives.stream().anyMatch(o -> o.metric().perRequest());
  }

  /** The objectives that are judged per request for goodput, in the order given. */
  public List<Objective> perRequestObjectives() {
    return objectives.stream().filter(o -> o.metric().perRequest()).toList();
  }

  /**
   * One objective: {@code metric.stat op threshold}.
   *
   * @param metric what is constrained
   * @param stat the statistic of a distribution metric, null for a stage-level one
   * @param op the comparison that must hold
   * @param threshold the limit in {@link SloMetric#unit()} (ms for times, whatever unit was typed)
   * @param turns the conversation turns it is about ({@code ttft.p99[turn>=4]}), null for every
   *     request
   */
  public record Objective(SloMetric metric, Stat stat, Op op, double threshold, TurnRange turns) {
    public Objective {
      if (metric.kind().distribution() != (stat != null)) {
        throw new IllegalArgumentException(metric.wireName() + ": statistic " + stat);
      }
      if (turns != null && !metric.byTurn()) {
        throw new IllegalArgumentException(metric.wireName() + " is not recorded by turn");
      }
    }

    /** An objective over every request. */
    public Objective(SloMetric metric, Stat stat, Op op, double threshold) {
      this(metric, stat, op, threshold, null);
    }

    /** {@code "ttft.p99"}, {@code "ttft.p99[turn>=4]"}, {@code "errors"}. */
    public String name() {
      String n = stat == null ? metric.wireName() : metric.wireName() + "." + stat.wireName();
      return turns == null ? n : n + "[" + turns + "]";
    }

    /** {@code "ttft.p99 <= 800 ms"}, the canonical form. */
    public String describe() {
      return name() + " " + op.symbol() + " " + number(threshold) + (metric.unit().equals("%") ? "%" : " " + metric.unit());
    }

    /** Whether {@code measured} (in {@link SloMetric#unit()}) meets the objective; NaN never does. */
    public boolean holds(double measured) {
      return op.holds(measured, threshold);
    }

    /** The value of this objective's statistic in {@code d}. */
    public double valueIn(Distribution d) {
      return stat.of(d);
    }
  }

  /** A statistic of a distribution. */
  public enum Stat {
    P1("p1"), P5("p5"), P10("p10"), P50("p50"), P90("p90"), P95("p95"), P99("p99"), P999("p999"),
    MEAN("mean"), MIN("min"), MAX("max");

    private final String wireName;

    Stat(String wireName) {
      this.wireName = wireName;
    }

    /** The name in a spec and in summary.json's distributions ({@code "p999"}). */
    public String wireName() {
      return wireName;
    }

    /** This statistic of {@code d} (NaN when {@code d} is empty). */
    public double of(Distribution d) {
      return switch (this) {
        case P1 -> d.p1();
        case P5 -> d.p5();
        case P10 -> d.p10();
        case P50 -> d.p50();
        case P90 -> d.p90();
        case P95 -> d.p95();
        case P99 -> d.p99();
        case P999 -> d.p999();
        case MEAN -> d.mean();
        case MIN -> d.min();
        case MAX -> d.max();
      };
    }

    /** The statistic named {@code name} ({@code "p99.9"} is {@code p999}), or null. */
    static Stat ofName(String name) {
      String n = name.toLowerCase(Locale.ROOT).equals("p99.9") ? "p999" : name.toLowerCase(Locale.ROOT);
      return Arrays.stream(values()).filter(s -> s.wireName.equals(n)).findFirst().orElse(null);
    }

    static String names() {
      return Arrays.stream(values()).map(Stat::wireName).collect(Collectors.joining(", "));
    }
  }

  /** A comparison. */
  public enum Op {
    LE("<="), LT("<"), GE(">="), GT(">");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    public String symbol() {
      return symbol;
    }

    /** {@code value op threshold}; false when {@code value} is NaN. */
    public boolean holds(double value, double threshold) {
      return switch (this) {
        case LE -> value <= threshold;
        case LT -> value < threshold;
        case GE -> value >= threshold;
        case GT -> value > threshold;
      };
    }

    /** The operator that fails where this one holds, for "measured > threshold" sentences. */
    public String negatedSymbol() {
      return switch (this) {
        case LE -> ">";
        case LT -> ">=";
        case GE -> "<";
        case GT -> "<=";
      };
    }
  }

  /** A threshold or measured value for messages: {@link Numbers#compact(double)}. */
  public static String number(double v) {
    return Numbers.compact(v);
  }
}
