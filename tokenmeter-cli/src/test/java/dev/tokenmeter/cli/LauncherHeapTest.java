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
 * gets 64 MiB, 16 KiB per stream, 32 bytes per in-flight token and 40 MiB for a tokenizer when
 * --model is given; whatever its arguments do not bound gets 1 GiB.
 * And the JVM options around it (tm_java_opts): the collector, the starting heap, the one-line
 * error when the heap runs out.
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
        "bench --url http://x --concurrency 1000 --output-tokens 2048 | 143", // 64 + 15.6 + 62.5
        "bench --concurrency=1,10,100 --output-tokens=32768 | 166", // the largest stage counts
        "bench --concurrency 10 | 65", // the default 256 output tokens
        "bench --concurrency 1000 | 88", // 64 + 15.6 + 7.8: bench/client-memory.sh's run
        "bench --concurrency 10000 | 299", // the per-stream term grows with the streams
        "bench --output-tokens 64 --concurrency 2000 --extra-body {\"ignore_eos\":true} | 100",
        "bench --concurrency 1000 --model gpt-4o | 128", // a named model may load a tokenizer: +40
        "bench --model=my-llama --concurrency 10 | 105",
        "bench --concurrency 1000 --output-tokens 32768 | 1080", // above 1 GiB when the run needs it
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
    assertThat(launcher)
        .contains("scripts/heap-for-run.sh")
        .contains("tm_java_opts \"$@\"")
        .contains("\"${TM_JAVA_OPTS[@]}\" ${TOKENMETER_JAVA_OPTS:-} -jar"); // the user's options last
    assertThat(Files.readString(Path.of("bench/client.sh"))).contains("tm_java_opts \"$@\"");
  }

  /** The options tm_java_opts chooses for {@code args}, with these environment variables. */
  private static List<String> javaOpts(String args, String javaOpts, String major) throws Exception {
    String script = ". scripts/heap-for-run.sh && tm_java_opts \"$@\" && printf '%s\\n' \"${TM_JAVA_OPTS[@]}\"";
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", script, "tm"));
    cmd.addAll(List.of(args.split(" ")));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("TOKENMETER_JAVA_OPTS", javaOpts);
    pb.environment().put("TOKENMETER_JAVA_MAJOR", major);
    Process p = pb.start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().toList();
  }

  @Test
  void aBenchGetsTheSerialCollectorAndAHeapThatGrowsWithItsData() throws Exception {
    List<String> opts = javaOpts("bench --concurrency 1000 --output-tokens 2048", "", "25");
    assertThat(opts)
        .contains("-Xmx143m", "-XX:+UseSerialGC", "-Xms16m", "-XX:TrimNativeHeapInterval=1000")
        .doesNotContain("-XX:+UseParallelGC");
    assertThat(opts).filteredOn(o -> o.startsWith("-XX:OnOutOfMemoryError="))
        .singleElement().asString().endsWith("/out-of-memory.sh' %p -Xmx143m 143");
    // JDK 21 has no TrimNativeHeapInterval (an unknown option stops the JVM).
    assertThat(javaOpts("bench --concurrency 10", "", "21"))
        .contains("-Xmx65m", "-XX:+UseSerialGC").doesNotContain("-XX:TrimNativeHeapInterval=1000");
  }

  @Test
  void otherCommandsKeepTheParallelCollectorAndTheUsersChoicesWin() throws Exception {
    assertThat(javaOpts("sim serve --port 0", "", "25"))
        .contains("-Xmx1024m", "-XX:+UseParallelGC").doesNotContain("-XX:+UseSerialGC", "-Xms16m");
    List<String> mine = javaOpts("bench --concurrency 10", "-XX:+UseG1GC -Xmx2g", "25");
    assertThat(mine).doesNotContain("-XX:+UseSerialGC", "-XX:+UseParallelGC"); // two collectors: no JVM
    assertThat(mine).filteredOn(o -> o.startsWith("-XX:OnOutOfMemoryError="))
        .singleElement().asString().endsWith(" %p -Xmx2g 65"); // the limit in force is named
    assertThat(javaOpts("sim serve", "-XX:+UseSerialGC", "25")).doesNotContain("-XX:+UseParallelGC");
  }

  @Test
  void theProxyGetsTheSerialCollectorAndASmallHeapUnderTheUsualCap() throws Exception {
    assertThat(javaOpts("proxy --listen 127.0.0.1:0", "", "25"))
        .contains("-Xmx1024m", "-XX:+UseSerialGC", "-Xms16m", "-XX:TrimNativeHeapInterval=1000")
        .doesNotContain("-XX:+UseParallelGC");
    // The user's collector (in TOKENMETER_JAVA_OPTS, after these) wins: none of ours beside it.
    assertThat(javaOpts("proxy --listen 127.0.0.1:0", "-XX:+UseParallelGC", "25"))
        .contains("-Xms16m").doesNotContain("-XX:+UseSerialGC", "-XX:+UseParallelGC");
    assertThat(javaOpts("proxy --listen 127.0.0.1:0", "", "21"))
        .contains("-Xms16m").doesNotContain("-XX:TrimNativeHeapInterval=1000");
  }

  /**
   * A cap sized without a tokenizer (no --model: the bench takes the server's first model) is
   * named to the client, so that it can warn when that model loads one; not when --model was
   * given, the user chose the limit, or the arguments bound nothing.
   */
  @Test
  void aCapSizedWithoutATokenizerIsNamedToTheClient() throws Exception {
    assertThat(javaOpts("bench --concurrency 1000", "", "25")).contains("-Dtokenmeter.heap.noTokenizerMb=88");
    for (String[] c : new String[][] {
        {"bench --concurrency 1000 --model gpt-4o", ""},
        {"bench --concurrency 1000 --model=gpt-4o", ""},
        {"bench --concurrency 1000", "-Xmx512m"},
        {"bench --rate 5", ""},
        {"sim serve --port 0", ""}}) {
      assertThat(javaOpts(c[0], c[1], "25")).as(c[0] + " / " + c[1])
          .noneMatch(o -> o.startsWith("-Dtokenmeter.heap.noTokenizerMb"));
    }
  }

  /**
   * A JVM started with the launcher's options whose heap runs out prints one line that names
   * TOKENMETER_JAVA_OPTS, no stack trace, and ends.
   */
  @Test
  void anExhaustedHeapEndsTheRunWithOneLineNamingTheFix() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(javaOpts("bench --concurrency 10", "-Xmx24m", String.valueOf(Runtime.version().feature())));
    cmd.addAll(List.of("-Xmx24m", "-cp", System.getProperty("java.class.path"), OutOfMemoryFixture.class.getName()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out.lines().toList())
        .as(out)
        .containsExactly(
            "tokenmeter: out of memory: the Java heap limit -Xmx24m is too small for this run; rerun with a larger"
                + " -Xmx in TOKENMETER_JAVA_OPTS");
    assertThat(p.exitValue()).isEqualTo(137); // SIGKILL: nothing half-written after the line
  }

  /**
   * The container image has no shell to run the launcher in: its entrypoint (Dockerfile) and the
   * Jib profile's JVM flags carry the options tm_java_opts gives a bench on JDK 21, the image's
   * Java, but the heap cap per run (the image takes a share of the container's memory) and the
   * out-of-memory hook (a shell script).
   */
  @Test
  void theImageRunsWithTheLaunchersBenchOptions() throws Exception {
    List<String> launcher = javaOpts("bench --concurrency 10", "", "21").stream()
        .filter(o -> !o.startsWith("-Xmx") && !o.startsWith("-Dtokenmeter.heap.") && !o.startsWith("-XX:OnOutOfMemoryError")
            && !o.equals("-XX:+UnlockDiagnosticVMOptions") && !o.equals("-XX:-DisplayVMOutput"))
        .toList();
    assertThat(launcher).contains("-XX:+UseSerialGC", "-Xss512k");
    String dockerfile = Files.readString(Path.of("Dockerfile"));
    String entrypoint = dockerfile.lines().filter(l -> l.startsWith("ENTRYPOINT")).findFirst().orElseThrow();
    List<String> image = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"([^\"]*)\"").matcher(entrypoint);
    while (m.find()) {
      image.add(m.group(1));
    }
    assertThat(image).containsAll(launcher).contains("-XX:MaxRAMPercentage=75");
    String pom = Files.readString(Path.of("tokenmeter-cli/pom.xml"));
    List<String> jib = new ArrayList<>();
    java.util.regex.Matcher f = java.util.regex.Pattern.compile("<jvmFlag>([^<]*)</jvmFlag>").matcher(pom);
    while (f.find()) {
      jib.add(f.group(1));
    }
    assertThat(jib).containsExactlyInAnyOrderElementsOf(
        image.subList(1, image.indexOf("-jar")));
  }
}
