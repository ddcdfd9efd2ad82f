package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The workload group's nested groups ({@link CompletionOptions}, {@link ProfileOptions}, {@link
 * TokenizerOptions}): their flags reach them from the command line, and the help lists the whole
 * group in one section, in the order it had as one class.
 */
class WorkloadOptionGroupsTest {
  private static BenchCommand bench(String... args) {
    BenchCommand bench = new BenchCommand();
    List<String> all = new ArrayList<>(List.of("--url", "http://127.0.0.1:1", "--concurrency", "1"));
    all.addAll(List.of(args));
    new CommandLine(bench).parseArgs(all.toArray(String[]::new));
    return bench;
  }

  @Test
  void nestedFlagsReachTheirGroups() {
    WorkloadOptions w = bench("--profile", "completion", "--burst", "4", "--tokenizer", "cl100k_base").workload;
    assertThat(w.completion()).isTrue();
    assertThat(w.bursts.burst).isEqualTo("4");
    assertThat(w.tokenizers.tokenizer).isEqualTo("cl100k_base");
    w.withDefaults(WorkloadOptions.BENCH_INPUT, WorkloadOptions.BENCH_OUTPUT);
    assertThat(w.inputTokens).isEqualTo(CompletionOptions.COMPLETION_INPUT);
    assertThat(w.describe()).containsEntry("burst", "4").containsEntry("keystroke_time", "150ms");
  }

  @Test
  void aNestedFlagAloneIsStillChecked() {
    WorkloadOptions w = bench("--tool-time", "1s").workload;
    assertThat(w.traffic.toolTime).isEqualTo("1s");
    assertThatThrownBy(w::validate).isInstanceOf(UsageException.class)
        .hasMessage("--tool-time shapes agent loops: add --profile agent (or leave it out)");
    WorkloadOptions k = bench("--keystroke-time", "100ms").workload;
    assertThatThrownBy(k::validate).isInstanceOf(UsageException.class)
        .hasMessage("--keystroke-time shapes code completion's typing bursts: add --profile completion (or leave out --keystroke-time)");
  }

  @Test
  void theHelpListsTheWorkloadSectionInItsOrder() {
    String usage = new CommandLine(new BenchCommand()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    String section = usage.substring(usage.indexOf("\nWorkload:\n"), usage.indexOf("\nTrace replay:"));
    List<String> flags = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^ {6}(--[a-z-]+)").matcher(section);
    while (m.find()) {
      flags.add(m.group(1));
    }
    assertThat(flags).containsExactly("--input-tokens", "--output-tokens", "--workload", "--prompts",
        "--shared-prefix-tokens", "--max-context", "--burst", "--keystroke-time", "--cancel-after", "--profile",
        "--tool-time", "--tool-result-tokens", "--tokenizer", "--tokenizer-map");
  }
}
