package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.StageDetail;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The answer at the top of report.html, in plain words: what one user sees at the highest load that
 * still streams fluidly, and where per-user TPS (the p50 of per-request decode TPS) falls below the
 * threshold: the knee of the degradation curve. Pure functions of a {@link SavedSummary}.
 *
 * <p>Words per second are given only when the stage measured its words per output token
 * ({@code tokens.words_per_output_token}); a ratio is never assumed.
 */
final class Headline {
  /** Per-user tokens/s at and above which text streams fluidly; also the knee's default threshold. */
  static final double FLUID_TPS = 30;
  /** Per-user tokens/s at and above which text keeps ahead of a reader (about 4-5 words/s). */
  static final double READABLE_TPS = 10;
  /** The knee is also where per-user TPS falls below this fraction of its lightest-load value. */
  static final double KNEE_FRACTION = 0.5;

  private Headline() {}

  /**
   * One stage on the degradation curve.
   *
   * @param stage index of the stage in the run
   * @param closed closed loop (users) rather than open (requests/s); also true when unknown
   * @param load concurrency or rate; NaN when unknown
   * @param perUserTps p50 of per-request decode TPS, tokens/s; NaN when no request had 2 tokens
   * @param slowUserTps p10 of per-request decode TPS, tokens/s
   * @param wordsPerToken measured words per output token; NaN when not measured
   * @param group with {@code --repeat}: the planned stage's repeats, whose means the values are
   *     ({@code stage} is then its first repeat); null without repeats
   */
  record Point(
      int stage,
      String label,
      boolean closed,
      double load,
      double perUserTps,
      double slowUserTps,
      double aggregateTps,
      double wordsPerToken,
      Repeats.Group group) {

    /** One stage's point, without repeats. */
    Point(int stage, String label, boolean closed, double load, double perUserTps, double slowUserTps,
        double aggregateTps, double wordsPerToken) {
      this(stage, label, closed, load, perUserTps, slowUserTps, aggregateTps, wordsPerToken, null);
    }

    /** "25 concurrent users", "8 requests/s", or the stage label when the load is unknown. */
    String loadPhrase() {
      if (Double.isNaN(load)) {
        return label;
      }
      return closed ? users(load) + (load == 1 ? " concurrent user" : " concurrent users")
          : num(load) + " requests/s";
    }

    /** "50 users", "8 requests/s". */
    String shortLoad() {
      if (Double.isNaN(load)) {
        return label;
      }
      return closed ? users(load) + (load == 1 ? " user" : " users") : num(load) + " requests/s";
    }
  }

  /**
   * Where the curve bends.
   *
   * @param position index into the points list of the first point below the limit
   * @param limitTps the limit it fell below, tokens/s
   * @param byFraction true when the limit is {@link #KNEE_FRACTION} of the lightest load's value
   */
  record Knee(int position, double limitTps, boolean byFraction) {}

  /**
   * The stages as points, in order of load when every stage has one of the same kind. With repeats
   * one point per planned stage, the means over its repeats: N repeats of a load are one load.
   */
  static List<Point> points(SavedSummary s) {
    List<Point> points = new ArrayList<>();
    for (Repeats.Group g : s.repeats() == null ? List.<Repeats.Group>of() : s.repeats().groups()) {
      if (!g.stages().isEmpty()) {
        StageDetail d = s.stage(g.stages().get(0)).detail();
        points.add(new Point(g.stages().get(0), g.label(), d.loadModel() == null || d.closed(), load(d),
            g.estimate(Repeats.Headline.DECODE_TPS_P50).mean(), g.estimate(Repeats.Headline.DECODE_TPS_P10).mean(),
            g.estimate(Repeats.Headline.OUTPUT_TPS).mean(), d.wordsPerOutputToken(), g));
      }
    }
    for (SavedSummary.Stage st : s.repeats() == null ? s.stages() : List.<SavedSummary.Stage>of()) {
      StageDetail d = st.detail();
      Distribution decode = st.metrics().getOrDefault("decode_tps", Distribution.EMPTY);
      points.add(new Point(st.index(), st.label(), d.loadModel() == null || d.closed(), load(d),
          decode.count() > 0 ? decode.p50() : Double.NaN, decode.count() > 0 ? decode.p10() : Double.NaN,
          st.outputTokensPerSecond(), d.wordsPerOutputToken()));
    }
    boolean sortable = points.stream().noneMatch(p -> Double.isNaN(p.load()))
        && points.stream().map(Point::closed).distinct().count() <= 1;
    if (sortable) {
      points.sort(Comparator.comparingDouble(Point::load)); // stable: equal loads keep run order
    }
    return points;
  }

  private static double load(StageDetail d) {
    return d.loadModel() == null ? Double.NaN : d.closed() ? d.concurrency() : d.ratePerSecond();
  }

  /**
   * A stage's name in tables and legends: its label, and with repeats which repeat it is ("c=8,
   * repeat 2 of 3").
   */
  static String stageName(SavedSummary s, SavedSummary.Stage st) {
    if (s.repeats() != null) {
      for (Repeats.Group g : s.repeats().groups()) {
        int k = g.stages().indexOf(st.index());
        if (k >= 0) {
          return st.label() + ", repeat " + (k + 1) + " of " + s.repeats().count();
        }
      }
    }
    return st.label();
  }

  /**
   * The knee: the first point, in load order, whose per-user TPS is below {@code thresholdTps} or
   * below {@code fraction} of the first point's value; null when there is none. Points without a
   * per-user TPS are skipped. The shared knee detection of core/analysis will replace this.
   */
  static Knee knee(List<Point> points, double thresholdTps, double fraction) {
    double base = points.isEmpty() ? Double.NaN : points.get(0).perUserTps();
    for (int i = 0; i < points.size(); i++) {
      double v = points.get(i).perUserTps();
      if (Double.isNaN(v)) {
        continue;
      }
      if (v < thresholdTps) {
        return new Knee(i, thresholdTps, false);
      }
      if (i > 0 && v < fraction * base) {
        return new Knee(i, fraction * base, true);
      }
    }
    return null;
  }

  /**
   * The point the answer names: the last load before the knee, or the heaviest when there is no
   * knee; null when no stage measured a per-user TPS.
   */
  static Point answer(SavedSummary s) {
    List<Point> measured = points(s).stream().filter(p -> !Double.isNaN(p.perUserTps())).toList();
    return measured.isEmpty() ? null : answer(measured, knee(measured, FLUID_TPS, KNEE_FRACTION));
  }

  private static Point answer(List<Point> measured, Knee knee) {
    return knee == null ? measured.get(measured.size() - 1) : measured.get(Math.max(0, knee.position() - 1));
  }

  /** Whether the run ended in an error ({@code partial_reason: "error"}) with no request completed. */
  static boolean failed(SavedSummary s) {
    return "error".equals(s.partialReason()) && s.partialDetail() != null && !s.stages().isEmpty()
        && s.stages().stream().allMatch(st -> st.completed() == 0);
  }

  /** The headline sentences, in order; the first is the answer. */
  static List<String> sentences(SavedSummary s) {
    List<Point> points = points(s);
    List<Point> measured = points.stream().filter(p -> !Double.isNaN(p.perUserTps())).toList();
    String sees = s.simulated() ? " would see " : " sees ";
    List<String> out = new ArrayList<>();
    if (failed(s)) {
      out.add("The run failed: no request completed. " + s.partialDetail());
      return out;
    }
    if (measured.isEmpty()) {
      out.add(points.isEmpty()
          ? "No stage finished, so there is nothing to report yet."
          : "No request completed with at least 2 output tokens, so there is no per-user speed to report; see the errors below.");
      return out;
    }
    Knee knee = knee(measured, FLUID_TPS, KNEE_FRACTION);
    Point answer = answer(measured, knee);
    String at = knee != null && knee.position() == 0 && measured.size() > 1
        ? "Even at the lightest load, " + answer.loadPhrase() + ", each user" + sees + "only "
        : "At " + answer.loadPhrase() + " each user" + sees;
    out.add(at + tps(answer.perUserTps()) + words(answer, s.simulated()) + ": " + feel(answer.perUserTps())
        + ". All users together get " + tps(answer.aggregateTps()) + ".");
    if (measured.size() == 1) {
      out.add("Only one load was run: give a list (for example --concurrency 1,10,25,50) to see where"
          + " per-user TPS falls below " + num(FLUID_TPS) + " tokens/s.");
    } else if (knee == null) {
      out.add("Per-user TPS stays at or above " + num(FLUID_TPS) + " tokens/s at every load tested, up to "
          + answer.shortLoad() + ": the knee lies beyond.");
    } else if (knee.position() == 0) {
      out.add("Per-user TPS is below " + num(FLUID_TPS) + " tokens/s at every load tested.");
    } else {
      Point k = measured.get(knee.position());
      String limit = knee.byFraction()
          ? "half its value at " + measured.get(0).shortLoad() + " (" + tps(knee.limitTps()) + ")"
          : num(knee.limitTps()) + " tokens/s";
      out.add("Per-user TPS falls below " + limit + " at " + k.shortLoad() + " ("
          + tps(k.perUserTps()) + ")." + (knee.byFraction() ? threshold(measured) : ""));
    }
    return out;
  }

  /** A warning naming the stages where the client itself may have been the bottleneck, or null. */
  static String bottleneck(SavedSummary s) {
    List<String> stages = new ArrayList<>();
    for (SavedSummary.Stage st : s.stages()) {
      if (st.detail().health() != null && st.detail().health().bottleneck()) {
        stages.add(st.label());
      }
    }
    if (stages.isEmpty()) {
      return null;
    }
    return "Caution: tokenmeter itself may have been the bottleneck at " + String.join(", ", stages)
        + " (see Client health): the server may be faster than these numbers say.";
  }

  /** After a knee by fraction: where, if anywhere, per-user TPS also falls below the fluid threshold. */
  private static String threshold(List<Point> measured) {
    for (Point p : measured) {
      if (p.perUserTps() < FLUID_TPS) {
        return " It falls below " + num(FLUID_TPS) + " tokens/s at " + p.shortLoad() + ".";
      }
    }
    return " It stays at or above " + num(FLUID_TPS) + " tokens/s at every load tested.";
  }

  /** How the thresholds are defined, for the small print under the answer. */
  static String scale() {
    return "Per-user TPS is the median (p50) of per-request decode speed. Fluid: at least "
        + num(FLUID_TPS) + " tokens/s; readable: at least " + num(READABLE_TPS)
        + " tokens/s (ahead of a reader); slower than that: slow. The knee is the first load where"
        + " per-user TPS falls below " + num(FLUID_TPS) + " tokens/s or below half its value at the"
        + " lightest load.";
  }

  static String feel(double perUserTps) {
    return perUserTps >= FLUID_TPS ? "fluid" : perUserTps >= READABLE_TPS ? "readable" : "slow";
  }

  /**
   * English words per token by rule of thumb ("1 token is about 3/4 of a word", OpenAI's help page
   * "What are tokens and how to count them?"), for simulated runs: the simulator writes one word per
   * token, which measures no real model.
   */
  static final double RULE_OF_THUMB_WORDS_PER_TOKEN = 0.75;

  private static String words(Point p, boolean simulated) {
    if (simulated) {
      return ", about " + num(p.perUserTps() * RULE_OF_THUMB_WORDS_PER_TOKEN)
          + " words/s (at 0.75 words per token, a rule of thumb for English text)";
    }
    if (!(p.wordsPerToken() > 0)) {
      return "";
    }
    return ", about " + num(p.perUserTps() * p.wordsPerToken())
        + " words/s (words per token measured on this run's text)";
  }

  static String tps(double v) {
    return num(v) + " tokens/s";
  }

  /** 1,234 / 41 / 7.5 / 0.25: whole numbers from 10 up, else two significant digits. */
  static String num(double v) {
    return dev.tokenmeter.report.ProductionWords.num(v);
  }

  private static String users(double n) {
    return String.format(Locale.ROOT, "%,.0f", n);
  }
}
