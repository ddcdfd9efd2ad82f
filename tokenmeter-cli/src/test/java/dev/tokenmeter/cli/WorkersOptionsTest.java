package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --workers N}'s bad input: one line naming the problem and the fix, exit 2, before
 * any server is contacted (the URL below has nothing behind it); and the arguments the workers get.
 */
class WorkersOptionsTest {
  private static final String NOWHERE = "http://127.0.0.1:9"; // discard port: a contacted server would fail otherwise

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "--concurrency 10 --workers 3|--concurrency 10 is the total over the 3 workers and must divide evenly: use 9 or 12",
    "--rate 4 --max-concurrency 5 --workers 2|--max-concurrency 5 is the total over the 2 workers and must divide evenly: use 4 or 6",
    "--concurrency 4 --workers 0|--workers must be between 1 and 1024, got 0",
    "--concurrency 4 --workers 2 --worker-launch kubernetes|--worker-launch must be local or external, got 'kubernetes'",
    "--concurrency 4 --workers 2 --coordinator-listen 7070|--coordinator-listen wants HOST:PORT (127.0.0.1:0, 0.0.0.0:7070), got '7070'",
    "--concurrency 4 --workers 2 --requests 100|--workers cannot be combined with --requests yet: the workers share a --duration window and a fixed list of stages; gate or compare the merged folder afterwards (tokenmeter report, compare)",
    "--concurrency 4 --workers 2 --repeat 3|--workers cannot be combined with --repeat yet: the workers share a --duration window and a fixed list of stages; gate or compare the merged folder afterwards (tokenmeter report, compare)",
  })
  void badInputIsOneLine(String args, String message) {
    String[] all = (("--url " + NOWHERE + " ") + args).split(" ");
    CommandHarness.Run r = CommandHarness.run(new BenchCommand(), all);
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("tokenmeter: " + message);
  }

  @Test
  void theWorkersGetTheBenchArgumentsLessTheCoordinatorsOwn() {
    assertThat(WorkersOptions.workerArgs(List.of("bench", "--url", "http://x", "--workers", "4", "--out", "dir",
        "--coordinator-listen=0.0.0.0:7070", "-q", "--worker-launch", "external", "--concurrency", "8")))
        .containsExactly("--url", "http://x", "--concurrency", "8");
  }
}
