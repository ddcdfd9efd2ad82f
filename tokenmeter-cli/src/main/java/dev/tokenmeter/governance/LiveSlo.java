package dev.tokenmeter.governance;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloMetric;
import dev.tokenmeter.ledger.MeteredRequest;
import java.util.Locale;
import java.util.Objects;

/**
 * One objective of the {@code --slo} grammar turned into a per-request SLI with an error budget,
 * for live traffic. Immutable.
 *
 * <p>The translation (docs/PROXY.md, "SLOs and alerts"): a percentile objective {@code m.pQ op T}
 * says that a share Q of requests lies on the right side of T, so each request is judged by {@code
 * value op T}; for {@code <=} and {@code <} the error budget is the share {@code 1 - Q} allowed
 * above T ({@code ttft.p99<=800ms}: 1% of requests may take longer than 800 ms to the first
 * token), for {@code >=} and {@code >} it is the share Q allowed below T ({@code tps.p10>=30}:
 * 10% of requests may decode slower than 30 tokens/s). Latency and speed objectives count the
 * completed inference requests that have the value (a TPS needs two tokens or more); {@code
 * errors<=X%} counts every inference request in scope but those the client cancelled, a failed
 * one bad, with a budget of X%.
 * Inference requests are those that name a model.
 *
 * @param objective the objective as parsed
 * @param scope the requests it judges
 * @param budget the error budget: the share of requests allowed to be bad, in (0, 1)
 */
public record LiveSlo(Slo.Objective objective, SloScope scope, double budget) {

  /** How one request counts toward an SLI. */
  public enum Judgement { GOOD, BAD, NOT_COUNTED }

  public LiveSlo {
    Objects.requireNonNull(objective, "objective");
    Objects.requireNonNull(scope, "scope");
    if (!(budget > 0 && budget < 1)) {
      throw new IllegalArgumentException("an error budget is a share in (0, 1), got " + budget);
    }
  }

  /**
   * The live SLI of {@code o} over {@code scope}.
   *
   * @throws IllegalArgumentException one line naming the objective and what to write instead, when
   *     it cannot be judged request by request
   */
  public static LiveSlo of(Slo.Objective o, SloScope scope) {
    SloMetric m = o.metric();
    String name = o.name();
    if (o.turns() != null) {
      throw new IllegalArgumentException("SLO '" + name + "': turn ranges are for bench --turns conversations;"
          + " live traffic has no turn numbers: leave out [" + o.turns() + "]");
    }
    switch (m) {
      case TTFT, TTFT_SENT, TPOT, E2E, E2E_SENT, TPS -> {
        int perMille = perMille(o);
        boolean upper = o.op() == Slo.Op.LE || o.op() == Slo.Op.LT;
        return new LiveSlo(o, scope, (upper ? 1000 - perMille : perMille) / 1000.0); // p99: 10 / 1000, exactly 0.01
      }
      case ERRORS -> {
        if (o.op() == Slo.Op.GE || o.op() == Slo.Op.GT) {
          throw new IllegalArgumentException("SLO '" + o.describe() + "': an error objective is an upper limit; write errors<=1%");
        }
        if (!(o.threshold() > 0 && o.threshold() < 100)) {
          throw new IllegalArgumentException("SLO '" + o.describe()
              + "': the error budget must be above 0% and below 100% (0% cannot burn at a rate), e.g. errors<=1%");
        }
        return new LiveSlo(o, scope, o.threshold() / 100);
      }
      default -> throw new IllegalArgumentException("SLO '" + name + "': not judged on live traffic (each request "
          + "needs its own value); use ttft, ttft_sent, tpot, e2e, e2e_sent, tps or errors");
    }
  }

  /** The objective's quantile in thousandths. */
  private static int perMille(Slo.Objective o) {
    return switch (o.stat()) {
      case P1 -> 10;
      case P5 -> 50;
      case P10 -> 100;
      case P50 -> 500;
      case P90 -> 900;
      case P95 -> 950;
      case P99 -> 990;
      case P999 -> 999;
      case MEAN, MIN, MAX -> throw new IllegalArgumentException("SLO '" + o.name() + "': a " + o.stat().wireName()
          + " cannot be judged request by request on live traffic; use a percentile such as "
          + o.metric().wireName() + ".p99");
    };
  }

  /** {@code ttft.p99<=800ms}, plus {@code  tenant=acme} when scoped: the {@code slo} label. */
  public String name() {
    String unit = objective.metric().unit();
    String threshold = Slo.number(objective.threshold()) + (unit.equals("tok/s") ? "" : unit);
    String text = objective.name() + objective.op().symbol() + threshold;
    return scope.equals(SloScope.ALL) ? text : text + " " + scope.describe();
  }

  /** {@code share of requests with TTFT <= 800 ms}: what the SLI counts. */
  public String sli() {
    if (objective.metric() == SloMetric.ERRORS) {
      return "share of inference requests that did not fail, client cancellations aside";
    }
    return "share of completed requests with " + objective.metric().wireName().toUpperCase(Locale.ROOT) + " "
        + objective.op().symbol() + " " + Slo.number(objective.threshold()) + " " + objective.metric().unit();
  }

  /** How {@code r} counts: out of scope or without the value it is not counted. */
  public Judgement judge(MeteredRequest r) {
    if (r.model() == null || !scope.matches(r) || r.refusedByProxy()) {
      return Judgement.NOT_COUNTED; // a refusal by the proxy's own policy (budget, key) is not the service failing
    }
    if (objective.metric() == SloMetric.ERRORS) {
      // the client hung up: not the service failing, and not a success either
      return r.ok() ? Judgement.GOOD : r.errorClass() == ErrorClass.CANCELLED ? Judgement.NOT_COUNTED : Judgement.BAD;
    }
    double v = r.ok() ? value(r) : Double.NaN;
    if (Double.isNaN(v)) {
      return Judgement.NOT_COUNTED;
    }
    return objective.holds(v) ? Judgement.GOOD : Judgement.BAD;
  }

  /** The request's value in the objective's unit (ms or tokens/s); NaN when it has none. */
  private double value(MeteredRequest r) {
    return switch (objective.metric()) {
      case TTFT, TTFT_SENT -> millis(r.ttftNanos());
      case E2E, E2E_SENT -> millis(r.e2eNanos());
      case TPOT -> r.tpotNanos() / 1e6;
      case TPS -> r.decodeTokensPerSecond();
      default -> Double.NaN;
    };
  }

  private static double millis(long nanos) {
    return nanos < 0 ? Double.NaN : nanos / 1e6;
  }
}
