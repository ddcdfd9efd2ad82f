package dev.tokenmeter.core.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.slo.Slo.Objective;
import dev.tokenmeter.core.slo.Slo.Op;
import dev.tokenmeter.core.slo.Slo.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --slo} parsing: every name, unit and operator, and the exact message of each error. */
class SloTest {

  @Test
  void theIssuesExampleParsesIntoFourObjectivesInCanonicalUnits() {
    Slo slo = Slo.parse("ttft.p99<=800ms,tpot.p99<=60ms,errors<=1%,tps.p10>=30");
    assertThat(slo.objectives())
        .containsExactly(
            new Objective(SloMetric.TTFT, Stat.P99, Op.LE, 800),
            new Objective(SloMetric.TPOT, Stat.P99, Op.LE, 60),
            new Objective(SloMetric.ERRORS, null, Op.LE, 1),
            new Objective(SloMetric.TPS, Stat.P10, Op.GE, 30));
    assertThat(slo.objectives().stream().map(Objective::describe))
        .containsExactly("ttft.p99 <= 800 ms", "tpot.p99 <= 60 ms", "errors <= 1%", "tps.p10 >= 30 tok/s");
    assertThat(slo.perRequestObjectives()).hasSize(3); // errors is stage-level
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "ttft.p99<=1s              | TTFT       | P99  | LE | 1000",
        "  ttft . p50 <  250 ms    | TTFT       | P50  | LT | 250",
        "TTFT_SCHED.p99.9<=2s      | TTFT_SCHEDULED | P999 | LE | 2000",
        "ttft_scheduled.p99<=2s    | TTFT_SCHEDULED | P99 | LE | 2000",
        "ttft_sent.p50<=2s         | TTFT_SENT  | P50  | LE | 2000",
        "itl_chunk.p99<=20ms       | ITL_CHUNK  | P99  | LE | 20",
        "e2e_sent.p99<=2s          | E2E_SENT   | P99  | LE | 2000",
        "e2e_scheduled.p99<=2s     | E2E_SCHEDULED | P99 | LE | 2000",
        "itl.max<1500us            | ITL        | MAX  | LT | 1.5",
        "e2e.mean<=.5s             | E2E        | MEAN | LE | 500",
        "e2e_sched.p95<=1e1s       | E2E_SCHEDULED | P95 | LE | 10000",
        "tps.p1>12.5tok/s          | TPS        | P1   | GT | 12.5",
        "tpot.min>=2µs             | TPOT       | MIN  | GE | 0.002",
        "output_tps>=1000          | OUTPUT_TPS |      | GE | 1000",
        "throughput>=900 tokens/s  | OUTPUT_TPS |      | GE | 900",
        "request_rate>=4req/s      | REQUEST_RATE |    | GE | 4",
        "errors<0.5 %              | ERRORS     |      | LT | 0.5",
      })
  void clausesParse(String clause, SloMetric metric, Stat stat, Op op, double threshold) {
    assertThat(Slo.parse(clause).objectives()).containsExactly(new Objective(metric, stat, op, threshold));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "ttfx.p99<=800ms | --slo clause 'ttfx.p99<=800ms': unknown metric 'ttfx'; valid: ttft, ttft_sent, ttft_scheduled, tpot, itl, itl_chunk, e2e, e2e_sent, e2e_scheduled, tps, output_tps (or throughput), request_rate, errors",
        "ttft<=800ms     | --slo clause 'ttft<=800ms': ttft needs a statistic, e.g. ttft.p99; valid: p1, p5, p10, p50, p90, p95, p99, p999, mean, min, max",
        "ttft.p42<=800ms | --slo clause 'ttft.p42<=800ms': unknown statistic 'p42'; valid: p1, p5, p10, p50, p90, p95, p99, p999, mean, min, max",
        "ttft.p99 800ms  | --slo clause 'ttft.p99 800ms': no comparison; write METRIC[.STAT]<=VALUE (operators <=, <, >=, >)",
        "ttft.p99<=800   | --slo clause 'ttft.p99<=800': give a unit for ttft: ms, s or us (e.g. 800ms)",
        "ttft.p99<=8min  | --slo clause 'ttft.p99<=8min': unit 'min' does not fit ttft; use ms, s or us",
        "ttft.p99<=fast  | --slo clause 'ttft.p99<=fast': 'fast' is not a non-negative number after <=",
        "ttft.p99<=-1ms  | --slo clause 'ttft.p99<=-1ms': '-1ms' is not a non-negative number after <=",
        "ttft.p99<=      | --slo clause 'ttft.p99<=': no value after <=",
        "errors<=1       | --slo clause 'errors<=1': errors is a percentage of measured requests: write e.g. errors<=1%",
        "errors.p99<=1%  | --slo clause 'errors.p99<=1%': errors takes no statistic (one value per stage): write errors<=1%",
        "tps.p10>=30ms   | --slo clause 'tps.p10>=30ms': unit 'ms' does not fit tps; use tok/s or no unit",
        "request_rate>=4tok/s | --slo clause 'request_rate>=4tok/s': unit 'tok/s' does not fit request_rate; use req/s or no unit",
        "<=3ms           | --slo clause '<=3ms': no metric; valid: ttft, ttft_sent, ttft_scheduled, tpot, itl, itl_chunk, e2e, e2e_sent, e2e_scheduled, tps, output_tps (or throughput), request_rate, errors",
      })
  void badClausesAreNamedWithTheFix(String spec, String message) {
    assertThatThrownBy(() -> Slo.parse(spec)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void emptySpecsAndEmptyClausesAreRefused() {
    assertThatThrownBy(() -> Slo.parse("  "))
        .hasMessage("--slo is empty: give objectives such as \"ttft.p99<=800ms,tps.p10>=30\"");
    assertThatThrownBy(() -> Slo.parse("ttft.p99<=1s,,errors<=1%"))
        .hasMessage("--slo \"ttft.p99<=1s,,errors<=1%\" has an empty clause: separate objectives with single commas");
  }

  @Test
  void operatorsCompareAtTheBoundaryAndNaNNeverHolds() {
    assertThat(Op.LE.holds(800, 800)).isTrue();
    assertThat(Op.LT.holds(800, 800)).isFalse();
    assertThat(Op.GE.holds(30, 30)).isTrue();
    assertThat(Op.GT.holds(30, 30)).isFalse();
    for (Op op : Op.values()) {
      assertThat(op.holds(Double.NaN, 1)).as(op.symbol()).isFalse();
    }
  }
}
