package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.Cost;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * {@code --price-in/--price-out}, {@code --gpu-cost}, {@code --traffic}, {@code --turns},
 * {@code --currency}: what a run's stages cost (docs/METRICS.md, "Cost"). The GPU count comes from
 * the command: {@code simulate} and {@code demo} use the simulated deployment's {@code --gpus};
 * {@code bench} adds its own ({@link WithGpus}).
 */
class CostOptions {
  private static final Pattern TRAFFIC =
      Pattern.compile("([0-9]*\\.?[0-9]+(?:[eE][0-9]+)?)\\s*([kKM]?)\\s*(?:req(?:uests)?)?\\s*/\\s*"
          + "(s|sec|second|min|minute|h|hr|hour|d|day|month)");

  @Option(names = "--price-in", paramLabel = "PRICE", description = "Token pricing: price of 1M input (prompt) tokens, in --currency.")
  Double priceIn;

  @Option(names = "--price-out", paramLabel = "PRICE", description = "Token pricing: price of 1M output tokens, in --currency.")
  Double priceOut;

  @Option(names = "--gpu-cost", paramLabel = "PRICE", description = "GPU pricing: price of one GPU-hour, in --currency; cost at the measured throughput.")
  Double gpuCost;

  @Option(names = "--power-price", paramLabel = "PRICE", description = "Energy pricing: price of one kWh, in --currency;"
      + " adds the energy cost per 1M output tokens to the GPU figures (bench --gpu-metrics, simulate).")
  Double powerPrice;

  @Option(names = "--traffic", paramLabel = "RATE", description = "Traffic of the monthly (30-day) projection: 10000req/day, 50req/s, 2k req/h, 1M req/month.")
  String traffic;

  @Option(names = "--turns", paramLabel = "SPEC", description = "Turns per conversation: 4, uniform:2,8 (length-spec forms). bench and simulate run real conversations: each user sends turn k+1 with the whole history (its earlier messages and the server's answers) plus a new --input-tokens message, and cost a conversation as they went (docs/METRICS.md, Sessions); demo takes a whole number, the requests a conversation costs (default: ${DEFAULT-VALUE}).")
  String turns = "1";

  @Option(names = "--currency", paramLabel = "NAME", description = "What prices are in, shown beside costs (default: ${DEFAULT-VALUE}).")
  String currency = "USD";

  /** {@code bench}'s options: the GPUs are those behind the endpoint, which only the user knows. */
  static final class WithGpus extends CostOptions {
    @Option(names = "--gpus", paramLabel = "N", description = "GPU pricing: GPUs serving the endpoint, one deployment (default: ${DEFAULT-VALUE}).")
    int gpus = 1;

    Cost.Model model() {
      return model(gpus);
    }
  }

  /**
   * The cost model, or null when no price was given.
   *
   * @param gpus GPUs of one deployment
   * @throws UsageException for a bad value, or a traffic, turns or GPU count with no price
   */
  Cost.Model model(int gpus) {
    boolean tokens = priceIn != null || priceOut != null;
    if (!tokens && gpuCost == null) {
      if (traffic != null || (!sessionsAreReal && turnsPerConversation() != 1)) {
        throw new UsageException("--traffic and --turns cost a run: give prices too, --price-in/--price-out or --gpu-cost");
      }
      return null;
    }
    double in = nonNegative("--price-in", priceIn);
    double out = nonNegative("--price-out", priceOut);
    double gpu = gpuCost == null ? Double.NaN : nonNegative("--gpu-cost", gpuCost);
    if (gpus < 1) {
      throw new UsageException("--gpus must be at least 1, got " + gpus);
    }
    if (currency.isBlank()) {
      throw new UsageException("--currency must not be empty");
    }
    return new Cost.Model(
        currency.strip(),
        tokens ? in : Double.NaN,
        tokens ? out : Double.NaN,
        gpu,
        gpus,
        traffic == null ? Double.NaN : requestsPerDay(traffic),
        turnsPerConversation());
  }

  /** Set from a --workload profile's conversations when --turns was not given; else null. */
  dev.tokenmeter.workload.LengthSpec observedTurns;

  /** Set by {@code bench}: its --turns runs real conversations, which need no price. */
  boolean sessionsAreReal;

  /**
   * {@code --turns} as a length spec, or null for the default single turn (no sessions).
   *
   * @throws UsageException for a spec that is not one
   */
  dev.tokenmeter.workload.LengthSpec sessionTurns() {
    if (observedTurns != null) {
      return observedTurns;
    }
    dev.tokenmeter.workload.LengthSpec spec;
    try {
      spec = dev.tokenmeter.workload.LengthSpec.parse(turns);
    } catch (IllegalArgumentException e) {
      String why = e.getMessage().replace(" tokens", " turns").replace("length must", "turns must");
      int examples = why.indexOf("; examples:");
      throw new UsageException("--turns " + (examples < 0 ? why : why.substring(0, examples))
          + "; examples: 4, uniform:2,8, normal:6,2");
    }
    return spec instanceof dev.tokenmeter.workload.LengthSpec.Fixed f && f.tokens() == 1 ? null : spec;
  }

  /**
   * Requests per conversation for the cost model: {@code --turns} when a whole number; under bench's
   * real sessions, the spec's mean rounded (the cost follows the sessions measured, {@code Cost.of}).
   */
  private int turnsPerConversation() {
    if (sessionsAreReal) {
      var spec = sessionTurns();
      return spec == null ? 1 : (int) Math.max(1, Math.round(spec.mean()));
    }
    try {
      int n = Integer.parseInt(turns.strip());
      if (n < 1) {
        throw new UsageException("--turns must be at least 1, got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException("--turns '" + turns + "': this command costs a conversation as a whole number of"
          + " requests (e.g. --turns 4); distributions of turns are for bench's real conversations");
    }
  }

  /** {@code --power-price} per kWh; NaN when not given. */
  double powerPricePerKwh() {
    return powerPrice == null ? Double.NaN : nonNegative("--power-price", powerPrice);
  }

  /** A price given alone prices the other kind of token at 0 (free input, say). */
  private static double nonNegative(String name, Double v) {
    if (v == null) {
      return 0;
    }
    if (!(v >= 0) || v.isInfinite()) {
      throw new UsageException(name + " must be a price of 0 or more, got " + v);
    }
    return v;
  }

  /** {@code "10000req/day"} as requests per day. */
  static double requestsPerDay(String text) {
    Matcher m = TRAFFIC.matcher(text.strip());
    if (!m.matches()) {
      throw new UsageException("--traffic '" + text + "': give requests per time, e.g. 10000req/day, 50req/s, 2k req/h");
    }
    double n = Double.parseDouble(m.group(1));
    n *= switch (m.group(2)) {
      case "k", "K" -> 1e3;
      case "M" -> 1e6;
      default -> 1;
    };
    double perDay = switch (m.group(3).toLowerCase(Locale.ROOT)) {
      case "s", "sec", "second" -> 86_400;
      case "min", "minute" -> 1_440;
      case "h", "hr", "hour" -> 24;
      case "month" -> 1.0 / Cost.DAYS_PER_MONTH;
      default -> 1;
    };
    return n * perDay;
  }
}
