package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The launcher's heap cap (scripts/heap-for-run.sh, sourced by ./tokenmeter): a closed-loop bench
 * gets 128 MiB plus 48 bytes per in-flight token; whatever its arguments do not bound gets 1 GiB.
 */
class LauncherHeapTest {

  private static int heapMb(String args) throws Exception {
    String script = ". scripts/heap-for-run.sh && tm_heap_mb \"$@\"";
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", script, "tm"));
    cmd.addAll(List.of(args.split(" ")));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.exitValue()).as(out).isZero();
    return Integer.parseInt(out);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "bench --url http://x --concurrency 1000 --output-tokens 2048 | 222", // 128 + 93.75
        "bench --concurrency=1,10,100 --output-tokens=32768 | 278", // the largest stage counts
        "bench --concurrency 10 | 129", // the default 256 output tokens
        "bench --output-tokens 64 --concurrency 2000 --extra-body {\"ignore_eos\":true} | 134",
        "bench --concurrency 1000 --output-tokens 32768 | 1628", // above 1 GiB when the run needs it
        "bench --url http://x | 1024", // no --concurrency: not bounded here
        "bench --rate 5 --concurrency 3 | 1024", // open loop
        "bench --concurrency 64 --output-tokens normal:512,64 | 1024", // a distribution
        "bench --concurrency 64 --prompts p.jsonl | 1024",
        "bench --concurrency 64 --tokenizer=hf.json | 1024",
        "sim serve --port 0 | 1024",
        "demo | 1024"
      })
  void sizesTheHeapFromTheRun(String args, int expectedMb) throws Exception {
    assertThat(heapMb(args)).isEqualTo(expectedMb);
  }

  @Test
  void theLauncherPassesIt() throws Exception {
    String launcher = Files.readString(Path.of("tokenmeter"));
    assertThat(launcher).contains("scripts/heap-for-run.sh").contains("\"-Xmx$(tm_heap_mb \"$@\")m\"");
  }
}
