package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.Slo.Objective;
import java.util.ArrayList;
import java.util.List;

/**
 * An SLO checked against every stage of a run: per stage, per objective, the measured value, the
 * threshold and the verdict. Immutable.
 *
 * <p>"No data" is a failure, never a pass: a latency objective over a stage with no successful
 * measured request (or a TPOT/TPS objective where no request had 2 tokens), a stage-level rate
 * over a window that never opened, an error rate over no measured request. The check says why.
 *
 * @param slo the SLO checked
 * @param stages one verdict per stage, in run order
 */
public record SloReport(Slo slo, List<StageVerdict> stages) {

  public SloReport {
    stages = List.copyOf(stages);
  }

  /** Checks {@code slo} against each of {@code results}. */
  public static SloReport evaluate(Slo slo, List<StageResult> results) {
    return new SloReport(slo, results.stream().map(r -> evaluate(slo, r)).toList());
  }

  /** Checks {@code slo} against one stage. */
  public static StageVerdict evaluate(Slo slo, StageResult r) {
    List<Check> checks = new ArrayList<>();
    for (Objective o : slo.objectives()) {
      checks.add(check(o, r));
    }
    return new StageVerdict(r.plan().index(), r.label(), checks);
  }

  /** True when every stage met every objective (and there was at least one stage). */
  public boolean passed() {
    return !stages.isEmpty() && stages.stream().allMatch(StageVerdict::passed);
  }

  /** Number of (stage, objective) checks that failed. */
  public long failures() {
    return stages.stream().flatMap(s -> s.checks().stream()).filter(c -> !c.passed()).count();
  }

  private static Check check(Objective o, StageResult r) {
    double measured;
    String noData = null;
    switch (o.metric().kind()) {
      case TIME, SPEED -> {
        if (o.turns() != null) {
          Metric m = o.metric().metricUnder(r.plan().load());
          Distribution d = r.sessions() == null ? Distribution.EMPTY : Distribution.of(r.sessions().over(m, o.turns()), m);
          measured = o.valueIn(d);
          if (d.count() == 0) {
            noData = r.sessions() == null
                ? "no data: the stage ran no conversations (bench --turns)"
                : "no data: no measured request of " + o.turns() + " succeeded";
          }
          break;
        }
        Distribution d = r.metric(o.metric().metricUnder(r.plan().load()));
        measured = o.valueIn(d);
        if (d.count() == 0) {
          noData = r.requests().completed() == 0
              ? "no data: no measured request succeeded"
              : "no data: no successful request had a value (TPOT and TPS need 2 or more output tokens)";
        }
      }
      case STAGE_TOKENS, STAGE_REQUESTS -> {
        measured = o.metric() == SloMetric.OUTPUT_TPS
            ? r.throughput().outputTokensPerSecond()
            : r.throughput().requestsPerSecond();
        if (Double.isNaN(measured)) {
          noData = "no data: the measurement window never opened";
        }
      }
      case PERCENT -> {
        long total = r.requests().completed() + r.requests().failed();
        measured = total == 0 ? Double.NaN : 100.0 * r.requests().failed() / total;
        if (total == 0) {
          noData = "no data: no measured request";
        }
      }
      default -> throw new IllegalStateException();
    }
    boolean passed = noData == null && o.holds(measured);
    String unit = o.metric().unit().equals("%") ? "%" : " " + o.metric().unit();
    String note = noData != null
        ? noData
        : Slo.number(measured) + unit + (passed ? " " + o.op().symbol() + " " : " " + o.op().negatedSymbol() + " ")
            + Slo.number(o.threshold()) + unit;
    return new Check(o, measured, passed, note);
  }

  /**
   * One stage's verdict.
   *
   * @param index the stage's index in the run
   * @param label the stage's load ({@code "c=25"})
   * @param checks one per objective, in the SLO's order
   */
  public record StageVerdict(int index, String label, List<Check> checks) {
    public StageVerdict {
      checks = List.copyOf(checks);
    }

    /** Whether every objective held. */
    public boolean passed() {
      return checks.stream().allMatch(Check::passed);
    }

    /** {@code "ttft.p99 (912 ms > 800 ms), errors (2% > 1%)"}: the failed checks, empty when passed. */
    public String reasons() {
      return failed().stream()
          .map(c -> c.objective().name() + " (" + c.note() + ")")
          .collect(java.util.stream.Collectors.joining(", "));
    }

    /** The failed checks, in the SLO's order. */
    public List<Check> failed() {
      return checks.stream().filter(c -> !c.passed()).toList();
    }
  }

  /**
   * One objective at one stage.
   *
   * @param objective the objective
   * @param measured the stage's value in the objective's unit, NaN when there is no data
   * @param passed whether the objective held
   * @param note {@code "912 ms > 800 ms"}, or why there was no data
   */
  public record Check(Objective objective, double measured, boolean passed, String note) {}
}
