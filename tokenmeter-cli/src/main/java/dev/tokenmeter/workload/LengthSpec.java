package dev.tokenmeter.workload;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A distribution of token counts (prompt or output lengths), parsed from a command-line spec:
 *
 * <pre>
 *   512                  fixed 512
 *   fixed:512            fixed 512
 *   uniform:256,1024     uniform over 256..1024, both ends included
 *   normal:512,128       normal with mean 512 and standard deviation 128
 *   lognormal:512,256    log-normal whose token count has mean 512 and standard deviation 256
 * </pre>
 *
 * <p>and {@link Empirical}, the observed quantiles of a workload profile ({@link WorkloadProfile}),
 * which has no spec of its own: {@code --workload FILE} supplies it.
 *
 * <p>Every {@link #sample} is at least 1: draws below 1 (after rounding to the nearest integer) are
 * redrawn, so normal and log-normal are truncated at 1 rather than piled up there; after 1,000
 * redraws in a row (a spec like {@code normal:1,1000}) the sample is clamped to 1. Samples are
 * deterministic for a given {@link SplittableRandom} state and consume only {@code nextLong} and
 * {@code nextDouble}, whose algorithms the JDK specifies, so one seed gives the same lengths on
 * every JDK. Immutable and thread-safe; the random is the caller's.
 */
public sealed interface LengthSpec {

  /** Valid examples, quoted in every parse error. */
  String EXAMPLES = "examples: 512, uniform:256,1024, normal:512,128, lognormal:512,256";

  /** A token count drawn from this distribution, at least 1. */
  int sample(SplittableRandom random);

  /** The distribution's mean before truncation at 1, in tokens. */
  double mean();

  /** Short human label for reports: {@code "fixed 512"}, {@code "uniform 256..1024"}. */
  String describe();

  /** Always {@code tokens}. */
  record Fixed(int tokens) implements LengthSpec {
    public Fixed {
      if (tokens < 1) {
        throw new IllegalArgumentException("length must be at least 1, got " + tokens);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return tokens;
    }

    @Override
    public double mean() {
      return tokens;
    }

    @Override
    public String describe() {
      return "fixed " + tokens;
    }
  }

  /** Uniform over {@code min..max}, both included. */
  record Uniform(int min, int max) implements LengthSpec {
    public Uniform {
      if (min < 1) {
        throw new IllegalArgumentException("min must be at least 1, got " + min);
      }
      if (min > max) {
        throw new IllegalArgumentException("min must not exceed max");
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return (int) random.nextLong(min, (long) max + 1);
    }

    @Override
    public double mean() {
      return (min + (double) max) / 2;
    }

    @Override
    public String describe() {
      return "uniform " + min + ".." + max;
    }
  }

  /** Normal with {@code mean} and standard deviation {@code sd} tokens, rounded, truncated at 1. */
  record Normal(double mean, double sd) implements LengthSpec {
    public Normal {
      checkMeanAndSd(mean, sd);
    }

    @Override
    public int sample(SplittableRandom random) {
      return Draws.atLeastOne(random, r -> mean + sd * Draws.standardNormal(r));
    }

    @Override
    public String describe() {
      return "normal(mean " + Draws.format(mean) + ", sd " + Draws.format(sd) + ")";
    }
  }

  /**
   * Log-normal whose token count (not its log) has {@code mean} and standard deviation {@code sd}.
   * The underlying normal has {@code sigma^2 = ln(1 + sd^2 / mean^2)} and {@code mu = ln(mean) -
   * sigma^2 / 2}, which are the moment equations {@code mean = exp(mu + sigma^2/2)}, {@code sd^2 =
   * (exp(sigma^2) - 1) * mean^2} solved for mu and sigma. Example: 512, 256 gives sigma 0.4724, mu
   * 6.1266. Skewed right: the median {@code exp(mu)} (458 in the example) is below the mean.
   */
  record LogNormal(double mean, double sd) implements LengthSpec {
    public LogNormal {
      checkMeanAndSd(mean, sd);
    }

    /** Mean of the underlying normal (of ln tokens). */
    public double mu() {
      return Math.log(mean) - sigma() * sigma() / 2;
    }

    /** Standard deviation of the underlying normal (of ln tokens). */
    public double sigma() {
      return Math.sqrt(Math.log1p(sd * sd / (mean * mean)));
    }

    @Override
    public int sample(SplittableRandom random) {
      double mu = mu();
      double sigma = sigma();
      return Draws.atLeastOne(random, r -> Math.exp(mu + sigma * Draws.standardNormal(r)));
    }

    @Override
    public String describe() {
      return "lognormal(mean " + Draws.format(mean) + ", sd " + Draws.format(sd) + ")";
    }
  }

  /**
   * An observed distribution given by its quantiles at equal steps of probability ({@code
   * quantiles.get(0)} the minimum, the last the maximum; 101 of them for p0, p1, ..., p100 in a
   * workload profile). A draw takes {@code u} uniform in [0, 1) and interpolates linearly between
   * the two quantiles around it (the inverse of the piecewise-linear CDF through them), rounded,
   * at least 1: the observed lengths' distribution to within the quantiles' spacing.
   */
  record Empirical(List<Integer> quantiles) implements LengthSpec {
    public Empirical {
      quantiles = List.copyOf(quantiles);
      if (quantiles.size() < 2) {
        throw new IllegalArgumentException("an empirical distribution needs at least 2 quantiles, got " + quantiles.size());
      }
      for (int i = 0; i < quantiles.size(); i++) {
        if (quantiles.get(i) < 1 || i > 0 && quantiles.get(i) < quantiles.get(i - 1)) {
          throw new IllegalArgumentException("quantiles must be whole numbers of tokens, at least 1, ascending; got "
              + quantiles);
        }
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      double u = random.nextDouble() * (quantiles.size() - 1);
      int i = (int) u;
      double lo = quantiles.get(i);
      double hi = quantiles.get(Math.min(i + 1, quantiles.size() - 1));
      return (int) Math.max(1, Math.round(lo + (u - i) * (hi - lo)));
    }

    @Override
    public double mean() {
      double sum = 0;
      for (int i = 1; i < quantiles.size(); i++) {
        sum += (quantiles.get(i - 1) + quantiles.get(i)) / 2.0;
      }
      return sum / (quantiles.size() - 1);
    }

    @Override
    public String describe() {
      int n = quantiles.size() - 1;
      return "empirical(median " + quantiles.get(n / 2) + ", " + quantiles.get(0) + ".." + quantiles.get(n) + ")";
    }
  }

  private static void checkMeanAndSd(double mean, double sd) {
    if (!(mean >= 1) || Double.isInfinite(mean)) {
      throw new IllegalArgumentException("mean must be at least 1, got " + Draws.format(mean));
    }
    if (!(sd >= 0) || Double.isInfinite(sd)) {
      throw new IllegalArgumentException("sd must not be negative, got " + Draws.format(sd));
    }
  }

  /**
   * Parses a spec (see the class comment); case and surrounding spaces are ignored.
   *
   * @throws IllegalArgumentException naming the problem and quoting valid {@link #EXAMPLES}
   */
  static LengthSpec parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("empty length spec; " + EXAMPLES);
    }
    String trimmed = spec.strip();
    int colon = trimmed.indexOf(':');
    String kind =
        colon < 0 ? "fixed" : trimmed.substring(0, colon).strip().toLowerCase(Locale.ROOT);
    List<String> args =
        List.of((colon < 0 ? trimmed : trimmed.substring(colon + 1)).split(",", -1)).stream()
            .map(String::strip)
            .toList();
    try {
      return switch (kind) {
        case "fixed" -> new Fixed(integer(args, 1, 0));
        case "uniform" -> new Uniform(integer(args, 2, 0), integer(args, 2, 1));
        case "normal" -> new Normal(decimal(args, 2, 0), decimal(args, 2, 1));
        case "lognormal", "log-normal" -> new LogNormal(decimal(args, 2, 0), decimal(args, 2, 1));
        default ->
            throw new IllegalArgumentException(
                "unknown distribution '" + kind + "' (use fixed, uniform, normal or lognormal)");
      };
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + spec + "': " + e.getMessage() + "; " + EXAMPLES, e);
    }
  }

  private static String argument(List<String> args, int expected, int index) {
    if (args.size() != expected) {
      throw new IllegalArgumentException(
          "expected "
              + (expected == 1 ? "1 number" : expected + " numbers separated by a comma")
              + ", got "
              + args.size());
    }
    String arg = args.get(index);
    if (arg.isEmpty()) {
      throw new IllegalArgumentException("missing number at position " + (index + 1));
    }
    return arg;
  }

  private static int integer(List<String> args, int expected, int index) {
    String arg = argument(args, expected, index);
    try {
      return Integer.parseInt(arg);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + arg + "' is not a whole number of tokens");
    }
  }

  private static double decimal(List<String> args, int expected, int index) {
    String arg = argument(args, expected, index);
    try {
      double value = Double.parseDouble(arg);
      if (!Double.isFinite(value)) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + arg + "' is not a number");
    }
  }
}
