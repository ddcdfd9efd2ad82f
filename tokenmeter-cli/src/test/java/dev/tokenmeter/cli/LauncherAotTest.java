package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's AOT cache for {@code bench} (scripts/aot-cache.sh): used only by a bench on JDK
 * 25+, unless TOKENMETER_AOT=0; a cache older than the jar is never used; a training that failed is
 * not tried again until the next build. The training itself (30 s) is left to the benchmark
 * scripts that use it (bench/peers.sh).
 */
class LauncherAotTest {
  @TempDir Path dir;

  /** Runs {@code script} after sourcing the launcher's scripts; returns its output lines. */
  private static List<String> run(String script, Map<String, String> env) throws Exception {
    String all = ". scripts/heap-for-run.sh && . scripts/aot-cache.sh && " + script;
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", all));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("TOKENMETER_AOT");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().toList();
  }

  private static boolean wanted(String args, String major, String aot) throws Exception {
    Map<String, String> env = new java.util.HashMap<>(Map.of("TOKENMETER_JAVA_MAJOR", major));
    if (aot != null) {
      env.put("TOKENMETER_AOT", aot);
    }
    return run("if tm_aot_wanted " + args + "; then echo yes; else echo no; fi", env).equals(List.of("yes"));
  }

  @Test
  void onlyABenchOnJdk25OrLaterUnlessTurnedOff() throws Exception {
    assertThat(wanted("bench --concurrency 64", "25", null)).isTrue();
    assertThat(wanted("bench --concurrency 64", "26", "1")).isTrue();
    assertThat(wanted("bench --concurrency 64", "21", null)).isFalse(); // no AOT cache before JDK 24
    assertThat(wanted("bench --concurrency 64", "24", null)).isFalse(); // no method profiles in it
    assertThat(wanted("bench --concurrency 64", "25", "0")).isFalse();
    assertThat(wanted("sim serve --port 0", "25", null)).isFalse();
    assertThat(wanted("proxy", "25", null)).isFalse();
    assertThat(wanted("bench --help", "25", null)).isFalse(); // no 30 s training for a help text
    assertThat(wanted("bench -V", "25", null)).isFalse();
  }

  @Test
  void aFolderItCannotCreateMeansNoCacheAndNoFailure() throws Exception {
    Path jar = Files.writeString(dir.resolve("tokenmeter.jar"), "jar");
    Files.writeString(dir.resolve("aot"), "a file where the cache's folder would go");
    assertThat(opts(jar)).contains("-XX:+UseSerialGC").noneMatch(o -> o.startsWith("-XX:AOTCache"))
        .noneMatch(o -> o.startsWith("tokenmeter: training"));
  }

  /** The options a bench gets with this jar and cache folder, and JAVA_HOME's modules. */
  private List<String> opts(Path jar) throws Exception {
    Path jdk = dir.resolve("jdk");
    Files.createDirectories(jdk.resolve("lib"));
    return run(
        "tm_java_opts bench --concurrency 64 && tm_aot_opts '" + jar + "' bench --concurrency 64"
            + " && printf '%s\\n' \"${TM_JAVA_OPTS[@]}\"",
        Map.of("TOKENMETER_JAVA_MAJOR", "25", "TOKENMETER_JAVA_HOME", jdk.toString()));
  }

  @Test
  void aCacheNewerThanTheJarIsUsedAndItsLogQuiet() throws Exception {
    Path jar = Files.writeString(dir.resolve("tokenmeter.jar"), "jar");
    Path cache = Files.createDirectories(dir.resolve("aot")).resolve("bench.aot");
    Files.writeString(cache, "cache");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    assertThat(opts(jar))
        .contains("-XX:AOTCache=" + cache, "-Xlog:aot=off", "-Xlog:cds=off", "-XX:+UseSerialGC", "-Xmx66m");
  }

  @Test
  void aStaleCacheIsNotUsedAndAFailedTrainingNotRetriedBeforeTheNextBuild() throws Exception {
    Path aot = Files.createDirectories(dir.resolve("aot"));
    Path cache = Files.writeString(aot.resolve("bench.aot"), "old cache");
    Files.writeString(aot.resolve("bench.aot.failed"), "");
    long now = System.currentTimeMillis();
    Files.setLastModifiedTime(cache, FileTime.fromMillis(now - 120_000));
    Path jar = Files.writeString(dir.resolve("tokenmeter.jar"), "jar");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(now - 60_000)); // built after the cache
    List<String> opts = opts(jar); // the marker is newer than the jar: no training here
    assertThat(opts).contains("-XX:+UseSerialGC").noneMatch(o -> o.startsWith("-XX:AOTCache"));
    assertThat(opts).noneMatch(o -> o.startsWith("tokenmeter: training"));
  }

  @Test
  void theLauncherAndTheBenchScriptsUseIt() throws Exception {
    assertThat(Files.readString(Path.of("tokenmeter")))
        .contains(". \"$root/scripts/aot-cache.sh\"")
        .contains("tm_aot_opts \"$jar\" \"$@\"");
    assertThat(Files.readString(Path.of("bench/peers.sh"))).contains("aot_prepare");
    assertThat(Files.readString(Path.of("bench/lib.sh"))).contains("tm_aot_prepare");
  }
}
