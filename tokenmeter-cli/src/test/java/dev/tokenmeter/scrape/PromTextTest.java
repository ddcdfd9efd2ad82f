package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The text exposition format (0.0.4) and OpenMetrics 1.0 text, line by line. */
class PromTextTest {

  @Test
  void readsSamplesLabelsTypesAndSumsOverLabelSets() {
    Exposition e = PromText.parse("""
        # HELP q Requests queued.
        # TYPE q gauge
        q{model="a",engine="0"} 3
        q{model="b",engine="0"} 4.5
        plain 7 1712345678000
        """);
    assertThat(e.samples()).hasSize(3);
    assertThat(e.samples().get(0).labels()).isEqualTo(Map.of("model", "a", "engine", "0"));
    assertThat(e.sum("q")).isEqualTo(7.5);
    assertThat(e.sum("plain")).isEqualTo(7);
    assertThat(e.sum("absent")).isNaN();
    assertThat(e.has("plain")).isTrue();
    assertThat(e.typeOf("q")).isEqualTo("gauge");
    assertThat(e.typeOf("plain")).isEqualTo("untyped");
  }

  @Test
  void labelValuesKeepTheirEscapesCommasAndBraces() {
    Exposition e = PromText.parse("m{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\\n\",x=\"a,b}c\",} 1\n");
    assertThat(e.samples().get(0).labels())
        .containsEntry("path", "C:\\dir").containsEntry("q", "say \"hi\"\n").containsEntry("x", "a,b}c");
  }

  @Test
  void specialValuesCrlfBlankLinesAndFreeComments() {
    Exposition e = PromText.parse("# a comment\r\n\r\na NaN\r\nb +Inf\r\nc -Inf\r\nd 1e3\r\n   \r\n");
    assertThat(e.sum("a")).isNaN();
    assertThat(e.sum("b")).isInfinite().isPositive();
    assertThat(e.sum("c")).isInfinite().isNegative();
    assertThat(e.sum("d")).isEqualTo(1000);
  }

  @Test
  void openMetricsUnitsExemplarsAndEofAreUnderstood() {
    Exposition e = PromText.parse("""
        # TYPE req_seconds histogram
        # UNIT req_seconds seconds
        req_seconds_bucket{le="0.5"} 2 # {trace_id="abc"} 0.31 1712345678.1
        req_seconds_bucket{le="+Inf"} 3
        req_seconds_count 3
        req_seconds_sum 1.5
        # EOF
        after_eof is ignored
        """);
    Buckets b = e.histogram("req_seconds");
    assertThat(b.bounds()).containsExactly(0.5, Double.POSITIVE_INFINITY);
    assertThat(b.cumulative()).containsExactly(2, 3);
    assertThat(b.count()).isEqualTo(3);
    assertThat(b.sum()).isEqualTo(1.5);
    assertThat(e.typeOf("req_seconds_bucket")).isEqualTo("histogram");
    assertThat(e.histogram("absent")).isNull();
  }

  @Test
  void histogramBucketsAreSummedOverLabelSetsByBound() {
    Exposition e = PromText.parse("""
        h_bucket{engine="0",le="1"} 1
        h_bucket{engine="1",le="1"} 2
        h_bucket{engine="0",le="+Inf"} 4
        h_bucket{engine="1",le="+Inf"} 6
        """);
    Buckets b = e.histogram("h");
    assertThat(b.cumulative()).containsExactly(3, 10);
    assertThat(b.count()).as("no _count: the +Inf bucket").isEqualTo(10);
    assertThat(b.sum()).isNaN();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "<!DOCTYPE html>|line 1: not a metric name",
    "{\"object\":\"list\"}|line 1: not a metric name",
    "m{a=\"1\" 2|line 1: expected ',' or '}'",
    "m{a=1} 2|line 1: a label value must be quoted",
    "m{a=\"1} 2|line 1: unterminated label value",
    "m{a=\"\\x\"} 2|line 1: unknown escape",
    "m{1a=\"x\"} 2|line 1: bad label name",
    "m{a=\"x\",|line 1: unclosed label set",
    "m{a=\"x\"|line 1: expected ',' or '}'",
    "m twelve|line 1: not a number",
    "m|line 1: missing value",
    "m 1 soon|line 1: not a timestamp",
    "m 1 2 3|line 1: unexpected text after the value",
    "# TYPE|line 1: a TYPE line needs",
  })
  void textThatIsNotExpositionFormatNamesItsLine(String text, String message) {
    assertThatThrownBy(() -> PromText.parse(text + "\n"))
        .isInstanceOf(PromText.Malformed.class).hasMessageStartingWith(message);
  }

  @Test
  void theLineNumberCountsFromOne() {
    assertThatThrownBy(() -> PromText.parse("ok 1\n\nbad line here\n")).hasMessageStartingWith("line 3:");
  }

  @Test
  void namesAreCheckedByTheSpecsAlphabet() {
    assertThat(PromText.validName("vllm:num_requests_running")).isTrue();
    assertThat(PromText.validName("_x9")).isTrue();
    assertThat(PromText.validName("9x")).isFalse();
    assertThat(PromText.validName("a-b")).isFalse();
    assertThat(PromText.validName("")).isFalse();
    assertThat(PromText.abbreviate("x".repeat(80))).hasSize(60).endsWith("...");
  }
}
