package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code sim serve --faults}: the spec grammar and its one-line errors. */
class FaultsParseTest {
  @Test
  void kindsAndProbabilities() {
    Faults f = Faults.parse(" http_429=0.05, DISCONNECT=0.5 ,error_event=0");
    assertThat(f).isEqualTo(Faults.none().with(Fault.HTTP_429, 0.05).with(Fault.DISCONNECT, 0.5)
        .with(Fault.ERROR_EVENT, 0.0));
    assertThatThrownBy(() -> Faults.parse("stall=0.6,disconnect=0.6")).hasMessageContaining("sum to 1.2");
    assertThat(Faults.parse(null)).isEqualTo(Faults.none());
    assertThat(Faults.parse("  ")).isEqualTo(Faults.none());
  }

  @Test
  void badSpecsNameThePartAndTheFix() {
    assertThatThrownBy(() -> Faults.parse("http_429")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'http_429': expected KIND=PROBABILITY, e.g. http_429=0.05");
    assertThatThrownBy(() -> Faults.parse("boom=0.1")).hasMessageStartingWith("unknown kind 'boom'; kinds: http_429");
    assertThatThrownBy(() -> Faults.parse("stall=lots")).hasMessage("'lots' is not a probability between 0 and 1");
    assertThatThrownBy(() -> Faults.parse("stall=1.5")).hasMessage("stall=1.5 needs a kind and a probability between 0 and 1");
    assertThatThrownBy(() -> Faults.parse("none=0.5")).hasMessageContaining("needs a kind");
  }
}
