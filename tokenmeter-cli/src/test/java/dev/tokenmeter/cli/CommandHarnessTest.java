package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.testkit.Cli;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CommandHarness} runs a command as {@code tokenmeter} does: for the same arguments it gives
 * the exit code and standard error that {@link Main#run} gives (through {@code testkit.Cli}), for
 * bad options (picocli's parse errors), for bad values the command itself rejects, and for help.
 */
class CommandHarnessTest {
  @TempDir Path dir;

  @Test
  void aCommandRunsAsTheWholeCommandLineRunsIt() {
    String missing = dir.resolve("missing.db").toString();
    List<List<String>> cases = List.of(
        List.of("--bogus"),
        List.of("--ledger", missing),
        List.of("--ledger", missing, "--json", "--csv"),
        List.of("--by", "region", "--ledger", missing));
    for (List<String> args : cases) {
      String[] argv = args.toArray(String[]::new);
      CommandHarness.Run harness = CommandHarness.run(new ProxyUsageCommand(), argv);
      Cli.Result main = Cli.run(concat(List.of("proxy", "usage"), args));
      assertThat(harness.exit()).as("exit of %s", args).isEqualTo(main.exitCode()).isEqualTo(Main.EXIT_USAGE);
      assertThat(harness.err()).as("stderr of %s", args).isEqualTo(main.err()).startsWith("tokenmeter: ");
    }
  }

  @Test
  void aBadOptionNamesTheCommandsFullPathAsMainDoes() {
    CommandHarness.Run r = CommandHarness.run(new ProxyAlertRulesCommand(), "--bogus");
    assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).contains("Try 'tokenmeter proxy alert-rules --help'.");
  }

  @Test
  void helpIsTheCommandsOwnUnderItsFullName() {
    CommandHarness.Run r = CommandHarness.run(new BenchCommand(), "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).startsWith("Usage: tokenmeter bench ").contains("Examples:");
  }

  @Test
  void anObjectThatIsNoCommandOfTheTreeIsRefused() {
    assertThatThrownBy(() -> CommandHarness.run(new Object())).isInstanceOf(IllegalArgumentException.class);
  }

  private static String[] concat(List<String> head, List<String> tail) {
    return java.util.stream.Stream.concat(head.stream(), tail.stream()).toArray(String[]::new);
  }
}
