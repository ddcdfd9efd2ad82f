package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.TurnRange;
import dev.tokenmeter.core.slo.Slo.Objective;
import dev.tokenmeter.core.slo.Slo.Op;
import dev.tokenmeter.core.slo.Slo.Stat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Parses {@code --slo} specs (see {@link Slo#parse}). Every error names the clause and lists what
 * would have been valid, so the CLI can show it as is.
 */
final class SloParser {
  private static final Pattern VALUE =
      Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?\\s*(.*)");

  private SloParser() {}

  static Slo parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException(
          "--slo is empty: give objectives such as \"ttft.p99<=800ms,tps.p10>=30\"");
    }
    List<Objective> objectives = new ArrayList<>();
    for (String clause : spec.split(",", -1)) {
      if (clause.isBlank()) {
        throw new IllegalArgumentException(
            "--slo \"" + spec + "\" has an empty clause: separate objectives with single commas");
      }
      objectives.add(clause(clause.strip()));
    }
    return new Slo(spec, objectives);
  }

  private static Objective clause(String clause) {
    TurnRange turns = null;
    String c = clause;
    int open = clause.indexOf('[');
    if (open >= 0) {
      int close = clause.indexOf(']', open);
      if (close < 0) {
        throw bad(clause, "'[' without ']'; write e.g. ttft.p99[turn>=4]<=1s");
      }
      try {
        turns = TurnRange.parse(clause.substring(open + 1, close));
      } catch (IllegalArgumentException e) {
        throw bad(clause, e.getMessage());
      }
      c = clause.substring(0, open) + clause.substring(close + 1);
    }
    Objective o = clause(clause, c);
    if (turns == null) {
      return o;
    }
    if (!o.metric().byTurn()) {
      throw bad(clause, o.metric().wireName() + " is not recorded by turn; turn ranges apply to ttft, ttft_sent, ttft_scheduled and tpot");
    }
    return new Objective(o.metric(), o.stat(), o.op(), o.threshold(), turns);
  }

  private static Objective clause(String clause, String c) {
    int at = firstOperator(c);
    if (at < 0) {
      throw bad(c, "no comparison; write METRIC[.STAT]<=VALUE (operators <=, <, >=, >)");
    }
    boolean two = at + 1 < c.length() && c.charAt(at + 1) == '=';
    Op op = switch (c.charAt(at)) {
      case '<' -> two ? Op.LE : Op.LT;
      default -> two ? Op.GE : Op.GT;
    };
    String left = c.substring(0, at).strip();
    String right = c.substring(at + (two ? 2 : 1)).strip();
    int dot = left.indexOf('.');
    String name = dot < 0 ? left : left.substring(0, dot).strip();
    String statName = dot < 0 ? null : left.substring(dot + 1).strip();
    SloMetric metric = SloMetric.ofName(name);
    if (metric == null) {
      throw bad(c, (name.isEmpty() ? "no metric" : "unknown metric '" + name + "'") + "; valid: " + metricNames());
    }
    Stat stat = null;
    if (metric.kind().distribution()) {
      if (statName == null) {
        throw bad(c, name + " needs a statistic, e.g. " + name + ".p99; valid: " + Stat.names());
      }
      stat = Stat.ofName(statName);
      if (stat == null) {
        throw bad(c, "unknown statistic '" + statName + "'; valid: " + Stat.names());
      }
    } else if (statName != null) {
      throw bad(c, name + " takes no statistic (one value per stage): write " + name + op.symbol() + right);
    }
    Matcher m = VALUE.matcher(right);
    if (!m.matches()) {
      throw bad(c, (right.isEmpty() ? "no value" : "'" + right + "' is not a non-negative number") + " after " + op.symbol());
    }
    double number = Double.parseDouble(right.substring(0, right.length() - m.group(2).length()).strip());
    return new Objective(metric, stat, op, number * unitFactor(c, metric, m.group(2).strip()));
  }

  /** Index of the first {@code <} or {@code >}, -1 when none. */
  private static int firstOperator(String c) {
    for (int i = 0; i < c.length(); i++) {
      if (c.charAt(i) == '<' || c.charAt(i) == '>') {
        return i;
      }
    }
    return -1;
  }

  /** What the typed number is multiplied by to be in the metric's unit. */
  private static double unitFactor(String c, SloMetric metric, String unit) {
    String u = unit.toLowerCase(Locale.ROOT);
    return switch (metric.kind()) {
      case TIME -> switch (u) {
        case "ms" -> 1;
        case "s" -> 1000;
        case "us", "µs" -> 1e-3;
        default -> throw bad(c, u.isEmpty()
            ? "give a unit for " + metric.wireName() + ": ms, s or us (e.g. 800ms)"
            : "unit '" + unit + "' does not fit " + metric.wireName() + "; use ms, s or us");
      };
      case SPEED, STAGE_TOKENS -> switch (u) {
        case "", "tok/s", "tokens/s", "t/s" -> 1;
        default -> throw bad(c, "unit '" + unit + "' does not fit " + metric.wireName() + "; use tok/s or no unit");
      };
      case STAGE_REQUESTS -> switch (u) {
        case "", "/s", "req/s", "rps" -> 1;
        default -> throw bad(c, "unit '" + unit + "' does not fit " + metric.wireName() + "; use req/s or no unit");
      };
      case PERCENT -> {
        if (!u.equals("%")) {
          throw bad(c, metric.wireName() + " is a percentage of measured requests: write e.g. " + metric.wireName() + "<=1%");
        }
        yield 1;
      }
    };
  }

  private static String metricNames() {
    return Arrays.stream(SloMetric.values())
        .map(m -> m == SloMetric.OUTPUT_TPS ? m.wireName() + " (or throughput)" : m.wireName())
        .collect(Collectors.joining(", "));
  }

  private static IllegalArgumentException bad(String clause, String why) {
    return new IllegalArgumentException("--slo clause '" + clause + "': " + why);
  }
}
