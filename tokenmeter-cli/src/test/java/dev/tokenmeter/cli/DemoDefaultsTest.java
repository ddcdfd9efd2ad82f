package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Per-command length defaults survive picocli rebuilding the workload option group. */
class DemoDefaultsTest {

  private static WorkloadOptions parsedDemo(String... args) {
    DemoCommand demo = new DemoCommand();
    new CommandLine(demo).parseArgs(args);
    return demo.workload.withDefaults("256", "128");
  }

  @Test
  void demoKeepsItsOwnDefaultsWhenAnotherWorkloadOptionIsGiven() {
    WorkloadOptions w = parsedDemo("--shared-prefix-tokens", "8");
    assertThat(w.inputTokens).isEqualTo("256");
    assertThat(w.outputTokens).isEqualTo("128");
  }

  @Test
  void givenSpecsWin() {
    WorkloadOptions w = parsedDemo("--input-tokens", "64", "--output-tokens", "none");
    assertThat(w.inputTokens).isEqualTo("64");
    assertThat(w.outputTokens).isEqualTo("none");
  }

  @Test
  void benchDefaultsAreItsOwn() {
    BenchCommand bench = new BenchCommand();
    new CommandLine(bench).parseArgs("--url", "http://127.0.0.1:1", "--concurrency", "1", "--seed", "3");
    WorkloadOptions w = bench.workload;
    w.validate();
    assertThat(w.inputTokens).isEqualTo("512");
    assertThat(w.outputTokens).isEqualTo("256");
  }
}
